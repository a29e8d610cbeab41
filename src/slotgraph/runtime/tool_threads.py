"""The worker threads synchronous tools run on: one pool per process, sized for many concurrent turns.

A synchronous tool function runs in a worker thread so it never blocks the event loop. ``asyncio.to_thread``
would use the loop's default executor, which asyncio sizes ``min(32, cpu_count + 4)``: six threads on a
two-core server, so the sync tools of a seventh concurrent turn waited for a free thread, and a few tools
hanging until their timeout (their threads cannot be stopped, see ``docs/security.md``) could stall every
sync tool of the worker. Tools instead run on one pool of :data:`TOOL_THREADS` threads per process, the same
in the server and in the synchronous facade, whatever loop calls them; the caller's :mod:`contextvars` travel
with the call (a tracing span around the turn stays the parent of the tool's spans).

The pool starts on first use; a forked child starts its own (the parent's threads do not exist there).
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

__all__ = ["TOOL_THREADS", "run_in_tool_thread", "tool_pool"]

TOOL_THREADS = 32
"""Worker threads of the pool synchronous tools run on (per process)."""
THREAD_PREFIX = "slotgraph-tool"

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def tool_pool() -> ThreadPoolExecutor:
    """The process's tool pool, started on first use."""
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(TOOL_THREADS, thread_name_prefix=THREAD_PREFIX)
        return _pool


async def run_in_tool_thread(fn: Callable[[], Any]) -> Any:
    """Run ``fn()`` on the tool pool in a copy of the caller's context and return its result."""
    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(tool_pool(), context.run, fn)


def _forget_after_fork() -> None:
    global _pool, _lock
    _pool, _lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)
