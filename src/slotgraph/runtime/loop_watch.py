"""A watchdog for event loops that run ``async def`` tools: it names the tool that blocks the loop.

An ``async def`` tool runs on the event loop, shared by every session of the process. One that blocks —
``time.sleep``, a synchronous HTTP client, a long computation — stalls them all, and its own
``tool_timeout`` cannot fire either (timers run on the blocked loop). Nothing can interrupt it, but it can be
named: the first time a loop awaits an ``async def`` tool, a :class:`LoopWatch` starts for that loop. The
loop beats every :data:`BEAT_SECONDS`; a daemon thread checks the beats, and when none came for
:data:`BLOCKED_AFTER` seconds it looks at what the loop's thread is running (:func:`sys._current_frames`)
and logs a warning on ``slotgraph.runtime`` naming the tool (the innermost frame of a known tool function)
and the line it is stuck on; when the loop beats again it logs for how long it was blocked. The watch stops
with its loop (it holds it weakly and ends when the loop is closed or gone).

One watch per loop, kept in a table keyed weakly by the loop (:func:`watch_loop`): a loop's watch is found
from any session on that loop, and nothing outlives the loop.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
import weakref
from types import CodeType, FrameType

__all__ = ["BEAT_SECONDS", "BLOCKED_AFTER", "LoopWatch", "watch_loop"]

logger = logging.getLogger("slotgraph.runtime")

BEAT_SECONDS = 0.25
"""How often a watched loop beats (and the watchdog looks)."""
BLOCKED_AFTER = 1.0
"""A loop that has not beaten for this long is blocked: the watchdog says by what."""

_watches: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LoopWatch] = weakref.WeakKeyDictionary()
_watches_lock = threading.Lock()


def watch_loop(loop: asyncio.AbstractEventLoop) -> LoopWatch:
    """The watch of ``loop``, started on first use (call it on the loop's own thread)."""
    with _watches_lock:
        watch = _watches.get(loop)
        if watch is None:
            watch = _watches[loop] = LoopWatch(loop)
    return watch


class LoopWatch:
    """Notices when ``loop`` stops beating and logs which tool blocks it (see the module docstring)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, *, blocked_after: float = BLOCKED_AFTER) -> None:
        self._loop = weakref.ref(loop)
        self.blocked_after = blocked_after
        self._tools: dict[CodeType, str] = {}
        self._last_beat = time.monotonic()
        self._thread_id = threading.get_ident()
        self._blocked_since: float | None = None
        loop.call_soon(self._beat)
        thread = threading.Thread(target=self._watch, name="slotgraph-loop-watch", daemon=True)
        thread.start()

    def note(self, name: str, code: CodeType | None) -> None:
        """``code`` (a tool function's) runs as the tool ``name``: a loop blocked in it names that tool."""
        if code is not None:
            self._tools[code] = name

    def _beat(self) -> None:
        now = time.monotonic()
        if self._blocked_since is not None:
            logger.warning(
                "the event loop runs again after being blocked for %.1fs", now - self._blocked_since
            )
            self._blocked_since = None
        self._last_beat, self._thread_id = now, threading.get_ident()
        loop = self._loop()
        if loop is not None and not loop.is_closed():
            loop.call_later(BEAT_SECONDS, self._beat)

    def _watch(self) -> None:
        while True:
            time.sleep(BEAT_SECONDS)
            loop = self._loop()
            if loop is None or loop.is_closed():
                return
            running = loop.is_running()
            del loop  # a reference held here would keep a dropped loop alive
            if not running:  # a loop nobody runs now (the synchronous facade between turns) is not blocked
                self._last_beat = time.monotonic()
                continue
            silent = time.monotonic() - self._last_beat
            if silent < self.blocked_after or self._blocked_since is not None:
                continue
            self._blocked_since = self._last_beat
            self._report(silent)

    def _report(self, silent: float) -> None:
        frame = sys._current_frames().get(self._thread_id)
        tool, where = self._culprit(frame)
        if tool is not None:
            logger.warning(
                "the event loop has been blocked for %.1fs by the async tool %s (at %s): every session of "
                "this process waits, and its tool_timeout cannot fire — an async def tool must never block "
                "(no time.sleep, no synchronous I/O): write it as a plain def, which runs in a worker thread",
                silent,
                tool,
                where,
            )
        else:
            logger.warning(
                "the event loop has been blocked for %.1fs (at %s): every session of this process waits",
                silent,
                where,
            )

    def _culprit(self, frame: FrameType | None) -> tuple[str | None, str]:
        """The tool whose code the loop's thread is in (the innermost), and where it is stuck: the line of
        the tool, and the innermost line when that is elsewhere (a library the tool called)."""
        innermost = "an unknown place" if frame is None else _place(frame)
        while frame is not None:
            tool = self._tools.get(frame.f_code)
            if tool is not None:
                own = _place(frame)
                return tool, own if own == innermost else f"{own}, inside {innermost}"
            frame = frame.f_back
        return None, innermost


def _place(frame: FrameType) -> str:
    return f"{frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}"
