"""The worker threads synchronous tools run on: each tool has its own, so a tool that hangs holds only those.

A synchronous tool function runs in a worker thread so it never blocks the event loop. Each tool has its own
:class:`ToolThreads`: at most :attr:`~ToolThreads.limit` threads (``limits.tool_threads`` in agent.yaml,
default :data:`DEFAULT_TOOL_THREADS`) run its calls at once, started as needed and reused. Python cannot stop
a thread, so a call still running after its ``tool_timeout`` keeps its thread busy until the function
returns: a tool that hangs ends up holding its own threads — its next calls wait, then fail — and nothing
else. (With one pool for every tool, 32 hung calls of one tool made every sync tool of the process fail
until a restart.)

**Waiting for a thread is not the tool's time.** A call that finds all of its tool's threads busy waits for
one, at most ``limits.tool_queue_timeout`` seconds; its ``tool_timeout`` runs from the moment a thread starts
it (:class:`CallClock`). A call that got no thread in time never ran: it fails with :class:`ToolBusy`, which
is safe to try again. The first call that has to wait, and each call that times out while its thread stays
busy, log a warning on ``slotgraph.runtime`` naming the tool and how many of its threads are stuck.

The caller's :mod:`contextvars` travel with the call (a tracing span around the turn stays the parent of
the tool's spans). A forked child starts its own threads (the parent's do not exist there).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from slotgraph.config.limits import DEFAULT_TOOL_QUEUE_TIMEOUT, DEFAULT_TOOL_THREADS
from slotgraph.runtime.errors import SlotgraphRuntimeError

__all__ = [
    "DEFAULT_TOOL_QUEUE_TIMEOUT",
    "DEFAULT_TOOL_THREADS",
    "THREAD_PREFIX",
    "CallClock",
    "ToolBusy",
    "ToolThreads",
    "call_clock",
    "reset_call_clock",
]

logger = logging.getLogger("slotgraph.runtime")

THREAD_PREFIX = "slotgraph-tool"


class ToolBusy(SlotgraphRuntimeError):
    """Every thread of the tool was busy for the whole queue timeout: the call was never run."""

    code = "tool_busy"


@dataclass(eq=False)
class CallClock:
    """When one tool call's own time runs: set by the caller around the call (:func:`call_clock`), moved by
    :meth:`ToolThreads.run` while the call waits for a thread.

    ``deadline`` is the call's timeout (an :class:`asyncio.Timeout`, or None for no timeout); ``seconds``
    its length. ``work`` is what runs the call once it runs in a thread (its
    :class:`concurrent.futures.Future`): a call abandoned at its timeout is still running until that is done.
    """

    deadline: asyncio.Timeout | None
    seconds: float | None
    queue_timeout: float = DEFAULT_TOOL_QUEUE_TIMEOUT
    work: concurrent.futures.Future[Any] | None = None


_CLOCK: contextvars.ContextVar[CallClock | None] = contextvars.ContextVar("slotgraph_tool_call", default=None)


def call_clock(clock: CallClock) -> contextvars.Token[CallClock | None]:
    """Make ``clock`` the clock of the tool call started next in this context (reset it with the token)."""
    return _CLOCK.set(clock)


def reset_call_clock(token: contextvars.Token[CallClock | None]) -> None:
    _CLOCK.reset(token)


@dataclass(eq=False)
class ToolThreads:
    """The worker threads of one synchronous tool (see the module docstring).

    ``limit`` may be changed until the first call starts the threads (an agent sets its ``limits``)."""

    name: str
    limit: int = DEFAULT_TOOL_THREADS
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _executor: concurrent.futures.ThreadPoolExecutor | None = field(default=None, repr=False)
    _pid: int = field(default=0, repr=False)
    _running: int = field(default=0, repr=False)
    """Calls running in a thread now (those past their timeout included)."""
    _overdue: int = field(default=0, repr=False)
    """Of those, calls whose caller stopped waiting (their timeout passed)."""
    _warned_full: bool = field(default=False, repr=False)

    def _pool(self) -> concurrent.futures.ThreadPoolExecutor:
        with self._lock:
            if self._executor is None or self._pid != os.getpid():  # a forked child starts its own threads
                self._executor = concurrent.futures.ThreadPoolExecutor(
                    self.limit, thread_name_prefix=f"{THREAD_PREFIX}-{self.name}"
                )
                self._pid, self._running, self._overdue = os.getpid(), 0, 0
            return self._executor

    @property
    def busy(self) -> tuple[int, int]:
        """``(calls running in a thread, of which past their timeout)``."""
        with self._lock:
            return self._running, self._overdue

    async def run(self, fn: Callable[[], Any]) -> Any:
        """``fn()`` in one of the tool's threads, in a copy of the caller's context; its result.

        With a :class:`CallClock` set by the caller, the wait for a thread is bounded by its
        ``queue_timeout`` (:class:`ToolBusy` after it: ``fn`` never ran) and not counted in its ``deadline``,
        which runs from the moment a thread starts the call."""
        clock = _CLOCK.get()
        loop = asyncio.get_running_loop()
        started: asyncio.Future[float] = loop.create_future()
        context = contextvars.copy_context()

        def work() -> Any:
            with self._lock:
                self._running += 1
            with contextlib.suppress(RuntimeError):  # the caller's loop is closed: nobody waits for the start
                loop.call_soon_threadsafe(_start, started)
            try:
                return context.run(fn)
            finally:
                with self._lock:
                    self._running -= 1

        pool = self._pool()
        before = self.busy  # what the call finds: all threads busy means it waits
        future = pool.submit(work)
        if clock is None:
            return await asyncio.wrap_future(future)
        clock.work = future
        if clock.deadline is not None:  # while it waits for a thread, the call's own time does not run
            clock.deadline.reschedule(None)
        result = asyncio.wrap_future(future)
        if not started.done():
            await self._wait_for_thread(started, result, future, clock.queue_timeout, before)
        if clock.deadline is not None and clock.seconds is not None:
            clock.deadline.reschedule(loop.time() + clock.seconds)
        return await result

    async def _wait_for_thread(
        self,
        started: asyncio.Future[float],
        result: asyncio.Future[Any],
        future: concurrent.futures.Future[Any],
        queue_timeout: float,
        before: tuple[int, int],
    ) -> None:
        running, overdue = before
        if running >= self.limit and not self._warned_full:
            self._warned_full = True
            logger.warning(
                "tool %s: all %d of its threads are busy (%d of them with a call past its timeout); calls "
                "wait for one, at most %gs each — raise limits.tool_threads, or fix the tool if it hangs",
                self.name,
                self.limit,
                overdue,
                queue_timeout,
            )
        try:
            await asyncio.wait({started, result}, timeout=queue_timeout, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            future.cancel()  # a call still waiting never runs
            raise
        if not started.done() and not result.done() and future.cancel():
            running, overdue = self.busy
            raise ToolBusy(
                f"Busy: {self.name} had no free thread for {queue_timeout:g}s (all {self.limit} were "
                f"running calls, {overdue} of them past their timeout); it was not run"
            )
        if running < self.limit:
            self._warned_full = False  # the next time every thread is busy is worth a warning again

    def overdue(self, future: concurrent.futures.Future[Any]) -> None:
        """The caller stopped waiting for ``future`` (its timeout passed); its thread stays busy until it
        returns. Logs how many of the tool's threads are held that way."""
        with self._lock:
            self._overdue += 1
            overdue = self._overdue
        future.add_done_callback(self._returned)
        logger.warning(
            "tool %s: a call past its timeout keeps its thread until it returns (%d of the tool's %d threads "
            "are held that way)",
            self.name,
            overdue,
            self.limit,
        )

    def _returned(self, _: concurrent.futures.Future[Any]) -> None:
        with self._lock:
            self._overdue -= 1


def _start(started: asyncio.Future[float]) -> None:
    if not started.done():
        started.set_result(started.get_loop().time())
