"""One long-lived event loop for the synchronous facade (``Session.send``), run by the thread that calls.

``asyncio.run`` per call builds a loop, installs and removes a SIGINT handler, starts a fresh thread pool
for the turn's synchronous tools and joins it again: on a Bella Notte turn that was most of the runtime's
cost. :func:`run_sync` instead runs every coroutine on one loop that lives for the process (made on first
use), and lets the calling thread run that loop itself while no other thread does:

* **uncontended** (one thread sending at a time, the common case): the caller runs the loop until its
  coroutine is done, as ``asyncio.Runner`` would, and no other thread is involved. Handing every turn to a
  loop thread and back made a Bella Notte turn through ``send`` cost ~200 µs of CPU more than through
  ``asend`` on a 2-core machine; ~75 µs now (docs/performance.md, section 3);
* **several threads at once**: the first runs the loop, the others hand their coroutines to it and wait.
  When the thread running the loop has its own result and work is still on the loop (another thread's
  turn, a task a turn left running such as a background extraction), a background thread named
  ``slotgraph-sync-loop`` (started on first need) takes the loop over and runs it until nothing is left;
  the next caller that finds the loop idle runs it itself again. Turns of one session therefore still
  queue behind the session's lock (an ``asyncio.Lock``, which works within one loop only);
* the caller's :mod:`contextvars` travel with the coroutine (a tracing span opened around ``send`` is the
  parent of the turn's spans, as with ``asyncio.run``); synchronous tools run on their own threads
  (:mod:`slotgraph.runtime.tool_threads`); the loop's default executor, for other blocking work such as the
  offline model's planning, has :data:`TOOL_THREADS` threads;
* **Ctrl-C** cancels the coroutine, never interrupts it between two of its statements: a caller waiting
  for another thread's loop cancels it there; the main thread running the loop itself handles SIGINT as
  ``asyncio.run`` does (the first one cancels the coroutine at its next ``await`` and the loop runs until
  the cancellation is done, then ``KeyboardInterrupt`` is raised; a second one raises at once) — when
  Python's own SIGINT handler is installed, a handler of the program's own is left alone;
* :func:`shutdown` stops the loop cleanly — pending tasks cancelled, async generators and the default
  executor shut down, the background thread joined; the next :func:`run_sync` makes a new loop. It runs at
  interpreter exit, and a forked child makes its own loop (the parent's threads do not exist there).

Calling :func:`run_sync` from a coroutine on a running loop would block that loop: the caller checks first
(``Session.send`` refuses with a clear error).
"""

from __future__ import annotations

import _signal
import asyncio
import atexit
import concurrent.futures
import contextvars
import enum
import logging
import os
import signal
import socket
import threading
from collections.abc import Coroutine
from types import FrameType
from typing import Any, Generic, TypeVar

TOOL_THREADS = 32
"""Threads of the loop's default executor (blocking work other than tools: the offline model's planning)."""

__all__ = ["THREAD_NAME", "TOOL_THREADS", "run_sync", "shutdown"]

logger = logging.getLogger(__name__)

THREAD_NAME = "slotgraph-sync-loop"
"""The name of the background thread that runs the loop while no caller does and work is left on it."""
_SHUTDOWN_SECONDS = 10.0
"""How long :func:`shutdown` waits for the loop's pending work before it gives up on the thread."""
_WAIT_SLICE = 0.1
"""Seconds: how long a caller's wait for its coroutine runs before Python may run a due signal handler."""

_SIGINT = int(signal.SIGINT)

_T = TypeVar("_T")


class _Driver(enum.Enum):
    """Who runs the loop now."""

    CALLER = "a thread that called run_sync, for its own coroutine"
    BACKGROUND = "the background thread, until no work is left"
    CLOSING = "shutdown(), which closes the loop: nobody runs it any more"


class _SharedLoop:
    """The facade's one event loop, run by whichever thread needs it (see the module docstring).

    ``_mutex`` guards ``_driver`` (None while nobody runs the loop), ``_handed`` (coroutines handed over to
    the running loop whose task has not been made yet: the thread running the loop must not leave it
    before they are tasks) and ``_closing``."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.loop.set_default_executor(
            concurrent.futures.ThreadPoolExecutor(TOOL_THREADS, thread_name_prefix="slotgraph-sync-tool")
        )
        self._mutex = threading.Lock()
        self._driver: _Driver | None = None
        self._handed = 0
        self._closing = False
        self._wake = threading.Event()
        self._idle = threading.Event()
        """Set while the background thread does not run the loop (tests wait for it)."""
        self._idle.set()
        self._closed = threading.Event()
        self.thread: threading.Thread | None = None
        self._settling: asyncio.Task[None] | None = None
        # Where a signal's C-level handler writes (``signal.set_wakeup_fd``) while the main thread runs the
        # loop: a SIGINT that the kernel delivered to another thread still wakes the loop out of its wait,
        # so that Python runs the handler in the main thread at once.
        # A loop without readers (Windows' proactor) goes without: Python's handler then runs when the main
        # thread next wakes, as under ``asyncio.run``.
        self._signal_in, self._signal_out = socket.socketpair()
        self._wakeup_fd: int | None = self._signal_out.fileno()
        for end in (self._signal_in, self._signal_out):
            end.setblocking(False)
        try:
            self.loop.add_reader(self._signal_in.fileno(), self._drain_signal_bytes)
        except NotImplementedError:
            self._wakeup_fd = None

    # -- one coroutine ---------------------------------------------------------------------------------

    def run(self, coro: Coroutine[Any, Any, _T]) -> _T:
        with self._mutex:
            drive = self._driver is None and not self._closing
            if drive:
                self._driver = _Driver.CALLER
            else:
                self._handed += 1
        if drive:
            return self._drive(coro)
        return self._hand_over(coro)

    def _drive(self, coro: Coroutine[Any, Any, _T]) -> _T:
        """Run the loop in this thread until ``coro`` is done (then hand any work left to the background)."""
        try:
            task = self.loop.create_task(coro)
        except BaseException:
            coro.close()
            self._leave()
            raise
        interrupt = _Interrupt.install(self, task)
        try:
            result = self.loop.run_until_complete(task)
        except BaseException as problem:
            if not task.done():  # a second Ctrl-C, or a handler of the program's own, raised in the loop
                task.cancel()
            if interrupt is not None and interrupt.count:
                raise KeyboardInterrupt from None
            if isinstance(problem, asyncio.CancelledError):  # cancelled on the loop (shutdown()): as when
                raise concurrent.futures.CancelledError() from None  # another thread ran the loop
            raise
        finally:
            if interrupt is not None:
                interrupt.remove()
            self._leave()
        if interrupt is not None and interrupt.count:
            raise KeyboardInterrupt  # the turn ended despite the cancellation: the caller still asked to stop
        return result

    def _leave(self) -> None:
        """The caller stops running the loop: the background thread takes over if work is left on it."""
        with self._mutex:
            if self._closing or self._handed or self._work_left():
                self._driver = _Driver.BACKGROUND
                self._idle.clear()
                self._start_background()
                self._wake.set()
            else:
                self._driver = None

    def _work_left(self) -> bool:
        """Whether the loop has a task not done, or callbacks ready to run (a finished task's done-callbacks
        are run by the loop after it finished: one may release a thread waiting for that task). A callback
        scheduled for later (``call_later``) without a task waits for the next thread that runs the loop."""
        if getattr(self.loop, "_ready", None):
            return True
        return any(not task.done() for task in asyncio.all_tasks(self.loop))

    def _hand_over(self, coro: Coroutine[Any, Any, _T]) -> _T:
        """Give ``coro`` to the thread running the loop and wait for its outcome."""
        outcome: _Outcome[_T] = _Outcome()
        try:
            self.loop.call_soon_threadsafe(self._start, outcome, coro, contextvars.copy_context())
            return outcome.result()
        except BaseException:
            # An interrupt (Ctrl-C) while handing over or waiting: the coroutine is cancelled on the loop
            # (closed there if it has not started), never closed from this thread while a task may run it.
            outcome.cancel()
            if self.loop.is_closed():  # shut down meanwhile: nothing will start it any more
                coro.close()
            raise

    def _start(self, outcome: _Outcome[Any], coro: Coroutine[Any, Any, Any], context: Any) -> None:
        """On the loop: a handed-over coroutine becomes a task (unless the loop is being shut down)."""
        with self._mutex:
            self._handed -= 1
            closing = self._closing
        if closing:
            outcome.cancel()
        outcome.start(self.loop, coro, context)

    # -- the background thread -------------------------------------------------------------------------

    def _start_background(self) -> None:
        """Start the background thread if it is not running (called under ``_mutex``)."""
        if self.thread is None:
            self.thread = threading.Thread(target=self._background, name=THREAD_NAME, daemon=True)
            self.thread.start()

    def _background(self) -> None:
        asyncio.set_event_loop(self.loop)
        while True:
            self._wake.wait()
            self._wake.clear()
            with self._mutex:
                mine, closing = self._driver is _Driver.BACKGROUND, self._closing
            if mine and (closing or self._run_until_idle()):
                self._close_loop()
                return
            if closing:
                return

    def _run_until_idle(self) -> bool:
        """Run the loop until no work is left on it; True when it is to be closed instead."""
        while True:
            with self._mutex:
                if self._closing:
                    return True
                if not (self._handed or self._work_left()):
                    self._driver = None
                    self._idle.set()
                    return False
            self._settling = settling = self.loop.create_task(self._settle())
            try:
                self.loop.run_until_complete(settling)
            except asyncio.CancelledError:  # by shutdown()
                pass
            except Exception:  # a callback of someone else's broke the loop's run: keep serving
                logger.exception("the sync facade's background loop thread caught an error")
            finally:
                self._settling = None

    async def _settle(self) -> None:
        """Wait until every task on the loop now has finished (one pass of the loop if there is none)."""
        me = asyncio.current_task()
        tasks = [task for task in asyncio.all_tasks() if task is not me]
        if tasks:
            await asyncio.wait(tasks)
        else:
            await asyncio.sleep(0)

    def _stop_settling(self) -> None:
        """On the loop: make the background thread look at ``_closing`` now."""
        if self._settling is not None:
            self._settling.cancel()

    # -- shutting down ---------------------------------------------------------------------------------

    def close(self) -> None:
        """Cancel what is left on the loop, close it, and stop the background thread."""
        with self._mutex:
            self._closing = True
            driver = self._driver
            if driver is None:
                self._driver = _Driver.CLOSING  # nobody else may start running it now
        if driver is None:
            self._close_loop()
        elif driver is _Driver.BACKGROUND:
            self.loop.call_soon_threadsafe(self._stop_settling)
        else:  # a caller runs the loop: its coroutine is cancelled, then it hands the loop over to be closed
            self.loop.call_soon_threadsafe(_cancel_all, self.loop)
        this_thread = threading.current_thread()
        if driver is _Driver.CALLER and asyncio._get_running_loop() is not self.loop:
            self._closed.wait(_SHUTDOWN_SECONDS)
        thread = self.thread
        if thread is not None and thread is not this_thread:
            self._wake.set()
            thread.join(_SHUTDOWN_SECONDS)

    def _close_loop(self) -> None:
        try:
            _finish(self.loop)
        finally:
            if self._wakeup_fd is not None:
                self.loop.remove_reader(self._signal_in.fileno())
            self.loop.close()
            self._signal_in.close()
            self._signal_out.close()
            self._closed.set()

    def _drain_signal_bytes(self) -> None:
        try:
            while self._signal_in.recv(4096):
                pass
        except OSError:  # nothing more to read (BlockingIOError) or already closed
            pass


class _Interrupt:
    """SIGINT while the main thread runs the loop, handled as ``asyncio.Runner`` does: the first cancels the
    coroutine's task (it stops at its next ``await``), a second raises ``KeyboardInterrupt`` at once.

    It uses :mod:`_signal`, the C module :mod:`signal` wraps: the wrappers turn every handler and signal
    number into an enum member, ~10 µs of each uncontended ``run_sync`` for the same calls."""

    __slots__ = ("_loop", "_previous_fd", "_task", "count")

    def __init__(self, shared: _SharedLoop, task: asyncio.Task[Any]) -> None:
        self.count = 0
        self._loop = shared.loop
        self._task = task
        self._previous_fd: int | None = None
        if shared._wakeup_fd is not None:
            self._previous_fd = _signal.set_wakeup_fd(shared._wakeup_fd, warn_on_full_buffer=False)
        _signal.signal(_SIGINT, self._on_sigint)

    @classmethod
    def install(cls, shared: _SharedLoop, task: asyncio.Task[Any]) -> _Interrupt | None:
        """Take over SIGINT for this run, if this is the main thread and Python's own handler is in place."""
        if threading.current_thread() is not threading.main_thread():
            return None
        if _signal.getsignal(_SIGINT) is not signal.default_int_handler:
            return None
        return cls(shared, task)

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        self.count += 1
        if self.count == 1 and not self._task.done():
            self._task.cancel()
            self._loop.call_soon_threadsafe(lambda: None)  # wake the loop if it waits in select()
            return
        raise KeyboardInterrupt()

    def remove(self) -> None:
        if _signal.getsignal(_SIGINT) == self._on_sigint:
            _signal.signal(_SIGINT, signal.default_int_handler)
        if self._previous_fd is not None:
            _signal.set_wakeup_fd(self._previous_fd)


class _Outcome(Generic[_T]):
    """The waiting caller's end of a coroutine handed to the thread running the loop: the caller blocks on
    a plain lock that the task's end releases (a ``concurrent.futures.Future`` waits on a condition variable
    built per wait). ``cancel`` may be called from any thread, before or after the loop started it."""

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
        (``tests/runtime/test_sync_loop.py`` sends one to another thread)."""
        while not self._done.acquire(timeout=_WAIT_SLICE):
            pass
        task = self._task
        if task is None or task.cancelled():
            raise concurrent.futures.CancelledError()
        return task.result()


def _cancel_all(loop: asyncio.AbstractEventLoop) -> None:
    """On the loop: cancel every task on it."""
    for task in asyncio.all_tasks(loop):
        task.cancel()


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
_current: _SharedLoop | None = None
_pid = os.getpid()


def _shared_loop() -> _SharedLoop:
    global _current, _pid
    with _lock:
        if _current is None or _pid != os.getpid():
            _current, _pid = _SharedLoop(), os.getpid()
        return _current


def run_sync(coro: Coroutine[Any, Any, _T]) -> _T:
    """Run ``coro`` on the shared loop and return its result (or raise its exception) in this thread."""
    try:
        shared = _shared_loop()
    except BaseException:
        coro.close()
        raise
    return shared.run(coro)


def shutdown() -> None:
    """Stop the shared loop (if there is one) and its background thread; a later :func:`run_sync` makes a
    new loop."""
    global _current
    with _lock:
        current, _current = _current, None
    if current is not None and _pid == os.getpid():
        current.close()


def _forget_after_fork() -> None:
    global _current, _lock
    _current, _lock = None, threading.Lock()


atexit.register(shutdown)
os.register_at_fork(after_in_child=_forget_after_fork)
