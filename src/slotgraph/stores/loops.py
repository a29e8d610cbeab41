"""Network clients belong to the event loop they connected on; closing one may happen on another loop.

A Redis or PostgreSQL store connects on the loop of its first use (a server's loop, or the sync facade's
background loop for ``Session.send``) and refuses a second loop while it is connected. :func:`on_loop` lets
``close()`` run from any loop: the client is closed on the loop it belongs to while that loop still runs;
when that loop has stopped, there is nothing left to close gracefully and the client is just dropped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

__all__ = ["on_loop"]


async def on_loop(loop: asyncio.AbstractEventLoop | None, job: Coroutine[Any, Any, None]) -> None:
    """Run ``job`` on ``loop`` (the running one when None) and wait for it from the running loop."""
    running = asyncio.get_running_loop()
    if loop is None or loop is running:
        await job
    elif loop.is_running():
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(job, loop))
    else:
        job.close()  # the loop the client belonged to is gone: its connections went with it
