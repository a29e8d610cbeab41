"""The event loop behind the synchronous facade (``Session.send``): one loop, run by a background thread.

Every synchronous call hands its coroutine to one long-lived loop that a daemon thread named
:data:`THREAD_NAME` runs, and waits for the result. One loop for every thread keeps what a session relies
on between and across calls in one place: its per-session :class:`asyncio.Lock` (two threads sending to one
session play their turns one after the other), the background extractions a turn leaves running, and the
connections a store opened. The caller's :mod:`contextvars` travel with the coroutine (a tracing span opened
around ``send`` is the parent of the turn's spans).

**Ctrl-C** cancels the turn rather than interrupting it between two statements: the caller, waiting, gets
the ``KeyboardInterrupt``, cancels the task, waits until the cancellation has run (the session keeps its
last completed turn) and raises the interrupt; a second Ctrl-C during that wait raises at once.

:func:`shutdown` cancels what is left on the loop and stops the thread; the next call starts a new one. It
runs at interpreter exit; a forked child starts its own loop (the parent's thread does not exist there).
Calling :func:`run_sync` from a coroutine on a running loop would block that loop: ``Session.send`` checks
first and refuses with a clear error.
"""

from __future__ import annotations

import asyncio
import atexit
import contextvars
import os
import threading
from collections.abc import Coroutine
from typing import Any, Generic, TypeVar

__all__ = ["THREAD_NAME", "run_sync", "shutdown"]

THREAD_NAME = "slotgraph-loop"
_WAIT_SLICE = 0.1
"""Seconds a caller waits at a time, so a Ctrl-C delivered to another thread reaches it promptly."""

_T = TypeVar("_T")


class _Call(Generic[_T]):
    """One coroutine handed to the loop: its task, made on the loop, and an event set when it is done."""

    def __init__(self, coro: Coroutine[Any, Any, _T]) -> None:
        self.coro = coro
        self.task: asyncio.Task[_T] | None = None
        self.done = threading.Event()

    def result(self) -> _T:
        if self.task is None or self.task.cancelled():
            raise asyncio.CancelledError()
        return self.task.result()


class _LoopThread:
    """An event loop that a daemon thread runs until :meth:`close`."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name=THREAD_NAME, daemon=True)
        self.thread.start()

    def submit(self, call: _Call[Any]) -> None:
        """Start the call's coroutine as a task on the loop, in a copy of the caller's context."""
        context = contextvars.copy_context()

        def start() -> None:
            if call.done.is_set():  # cancelled before it started
                return
            call.task = self.loop.create_task(call.coro, context=context)
            call.task.add_done_callback(lambda _: call.done.set())

        self.loop.call_soon_threadsafe(start)

    def cancel(self, call: _Call[Any]) -> None:
        """Cancel the call's task; a call whose task was never made is closed (callbacks run in the order
        they were scheduled: a task that will exist exists by then)."""

        def cancel_now() -> None:
            if call.task is not None:
                call.task.cancel()
            else:
                call.coro.close()
                call.done.set()

        self.loop.call_soon_threadsafe(cancel_now)

    def close(self) -> None:
        """Cancel every task, let the cancellations run, close the loop and join the thread."""
        asyncio.run_coroutine_threadsafe(self._cancel_everything(), self.loop).result()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        self.loop.run_until_complete(self.loop.shutdown_default_executor())
        self.loop.close()

    async def _cancel_everything(self) -> None:
        tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


_lock = threading.Lock()
_current: _LoopThread | None = None


def _loop_thread() -> _LoopThread:
    global _current
    with _lock:
        if _current is None:
            _current = _LoopThread()
        return _current


def run_sync(coro: Coroutine[Any, Any, _T]) -> _T:
    """Run ``coro`` on the facade's loop and return its result (or raise its exception) in this thread."""
    call = _Call(coro)
    try:
        loop = _loop_thread()
    except BaseException:
        coro.close()
        raise
    try:
        loop.submit(call)
        _wait(call)
    except KeyboardInterrupt:
        loop.cancel(call)
        _wait(call)  # the cancellation runs to its end; a second Ctrl-C here raises at once
        raise
    return call.result()


def _wait(call: _Call[Any]) -> None:
    """Wait for the call in slices: the kernel may deliver Ctrl-C to another thread, and Python then runs its
    handler in this (the main) thread only when this thread wakes up."""
    while not call.done.wait(_WAIT_SLICE):
        pass


def shutdown() -> None:
    """Stop the facade's loop and its thread (pending work is cancelled); a later :func:`run_sync` starts a
    new one."""
    global _current
    with _lock:
        current, _current = _current, None
    if current is not None:
        current.close()


def _forget_after_fork() -> None:
    global _current, _lock
    _current, _lock = None, threading.Lock()


atexit.register(shutdown)
os.register_at_fork(after_in_child=_forget_after_fork)
