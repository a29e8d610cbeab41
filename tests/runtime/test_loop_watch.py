"""An ``async def`` tool that blocks the event loop is named in the log (a watchdog notices the loop stalled).

Such a tool stalls every session of the process and its own timeout cannot fire (timers run on the blocked
loop); nothing can interrupt it, but the operator learns which tool it is and where it is stuck. The tool
here blocks the loop (a blocking wait, as ``time.sleep`` would) until the watchdog has said so, so the test
waits on that observable event, never on a clock.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import pytest

from slotgraph.runtime import Agent, ToolResultEvent

from .test_limits import NOTES, Calls, clock


class _Noticed(logging.Handler):
    """Sets ``seen`` when the watchdog's warning about a blocked loop is logged."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen = threading.Event()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        self.messages.append(message)
        if "the event loop has been blocked" in message:
            self.seen.set()


@pytest.fixture
def noticed() -> Any:
    handler = _Noticed()
    logger = logging.getLogger("slotgraph.runtime")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        handler.seen.set()  # a tool still blocking returns


def test_an_async_tool_that_blocks_the_loop_is_named_with_where_it_is_stuck(noticed: _Noticed) -> None:
    async def set_topic(topic: str) -> dict[str, Any]:
        """Record the topic (blocks the event loop: a mistake the watchdog names)."""
        noticed.seen.wait(30)  # blocks the loop, as time.sleep would, until the watchdog has noticed
        return {"stored": True, "value": topic}

    agent = Agent.from_config(NOTES, tools=[set_topic], model=Calls(1))
    result = asyncio.run(agent.session(session_id="s", clock=clock).asend("cats"))
    assert [e.result for e in result.events if isinstance(e, ToolResultEvent)] == [
        {"stored": True, "value": "t0"}
    ]
    (warning,) = [m for m in noticed.messages if "the event loop has been blocked" in m]
    assert "by the async tool set_topic (at " in warning and "test_loop_watch.py:" in warning
    assert "an async def tool must never block" in warning


def test_a_loop_nobody_runs_is_not_reported_as_blocked(noticed: _Noticed) -> None:
    """Between two turns of the synchronous facade the loop is idle, not blocked: nothing is logged."""

    async def set_topic(topic: str) -> dict[str, Any]:
        """Record the topic."""
        return {"stored": True, "value": topic}

    session = Agent.from_config(NOTES, tools=[set_topic], model=Calls(1)).session(session_id="s", clock=clock)
    session.send("cats")
    assert not noticed.seen.wait(1.5)  # longer than BLOCKED_AFTER, with the loop left idle
    session.send("dogs")
    assert not [m for m in noticed.messages if "blocked" in m]
