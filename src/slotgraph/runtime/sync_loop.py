"""One long-lived event loop for the synchronous facade (``Session.send``), on a background thread.

``asyncio.run`` per call builds a loop, installs and removes a SIGINT handler, starts a fresh thread pool
for the turn's synchronous tools and joins it again: on a Bella Notte turn that was most of the runtime's
cost. :func:`run_sync` instead hands the coroutine to one loop that lives for the process (started on first
use, on a daemon thread named ``slotgraph-sync-loop``) and waits for its result:

* the caller's :mod:`contextvars` travel with the coroutine (a tracing span opened around ``send`` is the
  parent of the turn's spans, as with ``asyncio.run``);
* several threads may call it at once: their coroutines run concurrently on the one loop (turns of one
  session still queue behind the session's lock), and their synchronous tools on the process's tool pool
  (:mod:`slotgraph.runtime.tool_threads`, :data:`TOOL_THREADS` threads; the loop's default executor, for
  other blocking work such as the offline model's planning, has as many);
* an exception in the caller's thread while it waits (``KeyboardInterrupt``) cancels the coroutine;
* :func:`shutdown` stops the loop cleanly — pending tasks cancelled, async generators and the default
  executor shut down, the thread joined; the next :func:`run_sync` starts a new one. It runs at interpreter
  exit, and a forked child starts its own loop (the parent's thread does not exist there).

Calling :func:`run_sync` from a coroutine on a running loop would block that loop: the caller checks first
(``Session.send`` refuses with a clear error).
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextvars
import os
import threading
from collections.abc import Coroutine
from typing import Any, Generic, TypeVar

from slotgraph.runtime.tool_threads import TOOL_THREADS

__all__ = ["THREAD_NAME", "TOOL_THREADS", "run_sync", "shutdown"]

THREAD_NAME = "slotgraph-sync-loop"
_SHUTDOWN_SECONDS = 10.0
"""How long :func:`shutdown` waits for the loop's pending work before it gives up on the thread."""
_WAIT_SLICE = 0.1
"""Seconds: how long a caller's wait for its coroutine runs before Python may run a due signal handler."""

_T = TypeVar("_T")


class _LoopThread:
    """An event loop running forever on its own daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.loop.set_default_executor(
            concurrent.futures.ThreadPoolExecutor(TOOL_THREADS, thread_name_prefix="slotgraph-sync-tool")
        )
        ready = threading.Event()
        self.thread = threading.Thread(target=self._main, args=(ready,), name=THREAD_NAME, daemon=True)
        self.thread.start()
        ready.wait()

    def _main(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.call_soon(ready.set)
        try:
            self.loop.run_forever()
        finally:
            try:
                _finish(self.loop)
            finally:
                self.loop.close()

    def submit(self, coro: Coroutine[Any, Any, _T], outcome: _Outcome[_T]) -> None:
        """Start ``coro`` on the loop in a copy of the caller's context; its outcome arrives in ``outcome``.

        The caller makes ``outcome`` before submitting, so an interrupt that reaches it at any point after
        this call started can cancel the coroutine through it: a coroutine not started yet is closed by the
        loop, a running one is cancelled there (never closed from this thread while its task runs it)."""
        context = contextvars.copy_context()
        self.loop.call_soon_threadsafe(outcome.start, self.loop, coro, context)

    def stop(self) -> None:
        if self.thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(_SHUTDOWN_SECONDS)


class _Outcome(Generic[_T]):
    """The caller's end of a coroutine run on the loop: the caller blocks on a plain lock that the task's
    end releases (a ``concurrent.futures.Future`` waits on a condition variable built per wait: ~20-30 µs
    more CPU per call). ``cancel`` may be called from any thread, before or after the loop started it."""

    __slots__ = ("_cancelled", "_done", "_guard", "_loop", "_task")

    def __init__(self) -> None:
        self._done = threading.Lock()
        self._done.acquire()
        self._guard = threading.Lock()
        self._cancelled = False
        self._task: asyncio.Task[_T] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self, loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, _T], context: Any) -> None:
        """On the loop: run ``coro`` as a task, unless the caller gave up before the loop got to it."""
        with self._guard:
            if self._cancelled:
                coro.close()
                self._done.release()
                return
            self._loop = loop
            self._task = task = loop.create_task(coro, context=context)
        task.add_done_callback(self._finished)

    def _finished(self, _task: asyncio.Task[_T]) -> None:
        self._done.release()

    def cancel(self) -> None:
        """Cancel the coroutine: closed if the loop has not started it, else its task is cancelled there."""
        with self._guard:
            self._cancelled = True
            task, loop = self._task, self._loop
        if task is not None and loop is not None and not task.done():
            loop.call_soon_threadsafe(task.cancel)

    def result(self) -> _T:
        """Wait for the task's end; its result, or its exception raised here.

        The wait is taken in slices of :data:`_WAIT_SLICE`: Python runs a signal's handler (Ctrl-C's
        ``KeyboardInterrupt``) between two slices. An untimed wait is woken only by a signal the kernel
        delivers to this very thread; one that lands on another of the process's threads (the loop's, a
        tool's) left the caller blocked for good with its handler still due
        (``tests/runtime/test_sync_loop.py`` sends one to the loop's thread)."""
        while not self._done.acquire(timeout=_WAIT_SLICE):
            pass
        task = self._task
        if task is None or task.cancelled():
            raise concurrent.futures.CancelledError()
        return task.result()


def _finish(loop: asyncio.AbstractEventLoop) -> None:
    """What ``asyncio.run`` does when its coroutine ends: cancel what is left, close generators, executor."""
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.run_until_complete(loop.shutdown_asyncgens())
    loop.run_until_complete(loop.shutdown_default_executor())


_lock = threading.Lock()
_current: _LoopThread | None = None
_pid = os.getpid()


def _loop_thread() -> _LoopThread:
    global _current, _pid
    with _lock:
        if _current is None or _pid != os.getpid() or not _current.thread.is_alive():
            _current, _pid = _LoopThread(), os.getpid()
        return _current


def run_sync(coro: Coroutine[Any, Any, _T]) -> _T:
    """Run ``coro`` on the shared loop and return its result (or raise its exception) in this thread."""
    outcome: _Outcome[_T] = _Outcome()
    submitted = False
    try:
        thread = _loop_thread()
        submitted = True  # from here on the loop owns the coroutine (it closes it if cancelled before start)
        thread.submit(coro, outcome)
        return outcome.result()
    except BaseException:
        # An interrupt (Ctrl-C) while submitting or waiting: the coroutine is cancelled, not left running.
        outcome.cancel()
        if not submitted:
            coro.close()
        raise


def shutdown() -> None:
    """Stop the shared loop (if one runs) and wait for its thread; a later :func:`run_sync` starts anew."""
    global _current
    with _lock:
        current, _current = _current, None
    if current is not None and _pid == os.getpid():
        current.stop()


def _forget_after_fork() -> None:
    global _current, _lock
    _current, _lock = None, threading.Lock()


atexit.register(shutdown)
os.register_at_fork(after_in_child=_forget_after_fork)
