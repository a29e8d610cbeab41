"""Each sync tool has its own threads: a tool that hangs holds only those, and the wait for a thread is not
the tool's time.

With one pool of 32 threads per process, 32 hung calls made every sync tool of the process fail at its
timeout until a restart. Now a tool's calls past their timeout keep only that tool's threads
(``limits.tool_threads``); its next calls wait for one at most ``limits.tool_queue_timeout`` and then fail
as ``Busy`` without running; every other tool goes on; the log says which tool is stuck.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import pytest

from slotgraph.models.protocol import ModelRequest, ModelResponse, ToolCall, UserMessage
from slotgraph.runtime import Agent, ToolResultEvent
from slotgraph.runtime.tool_threads import CallClock, ToolBusy, ToolThreads, call_clock, reset_call_clock

from .test_limits import NOTES, clock

HANG = threading.Event()
"""Released at the end of every test of this module: the hung calls return then."""


@pytest.fixture(autouse=True)
def _release_hung_calls() -> Any:
    HANG.clear()
    yield
    HANG.set()


class Says:
    """A model that calls the tool named by the user's message (``"<tool>"``), then says "ok"."""

    async def generate(self, request: ModelRequest) -> ModelResponse:
        last = request.messages[-1]
        if isinstance(last, UserMessage):
            return ModelResponse(tool_calls=(ToolCall(f"c{len(request.messages)}", last.text, {}),))
        return ModelResponse(text="ok")


def _agent(**limits: Any) -> tuple[Agent, list[str]]:
    started: list[str] = []

    def stuck() -> dict[str, Any]:
        """A lookup whose backend hangs."""
        started.append("stuck")
        HANG.wait(60)
        return {"late": True}

    def healthy() -> dict[str, Any]:
        """A lookup that answers."""
        started.append("healthy")
        return {"fine": True}

    agent = Agent.from_config(NOTES, tools=[stuck, healthy], model=Says(), limits=limits)
    return agent, started


def _result(turn: Any) -> Any:
    (result,) = [e for e in turn.events if isinstance(e, ToolResultEvent)]
    return result


def test_a_hung_tool_holds_only_its_own_threads_and_its_next_call_is_busy_not_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    agent, started = _agent(tool_timeout=0.1, tool_threads=2, tool_queue_timeout=0.2)

    async def body() -> list[Any]:
        turns = []
        for text in ("stuck", "stuck", "stuck", "healthy"):
            turns.append(await agent.session(clock=clock).asend(text))
        return turns

    with caplog.at_level(logging.WARNING, logger="slotgraph.runtime"):
        first, second, third, other = asyncio.run(body())
    for hung in (first, second):
        assert (
            _result(hung).result["message"]
            == "The tool stuck failed (Timeout: stuck did not answer within 0.1s)."
        )
    busy = _result(third)
    assert (
        busy.failed
        and "Busy: stuck had no free thread for 0.2s (all 2 were running calls, 2 of them past"
        in (busy.result["message"])
    )
    assert started.count("stuck") == 2  # the third call never ran
    assert _result(other).result == {"fine": True}  # another tool of the agent is not affected
    assert (
        "tool stuck: a call past its timeout keeps its thread until it returns (2 of the tool's 2"
        in caplog.text
    )
    assert "tool stuck: all 2 of its threads are busy (2 of them with a call past its timeout)" in caplog.text
    assert agent.tools.get("stuck") is not None and agent.tools.get("stuck").threads.busy == (2, 2)  # type: ignore[union-attr]


def test_many_hung_calls_of_one_tool_never_starve_the_other_tools() -> None:
    """Forty hung calls of one tool (more than the old shared pool's 32 threads), then the other tool: it
    answers at once."""
    agent, started = _agent(tool_timeout=0.05, tool_threads=40, tool_queue_timeout=5)

    async def body() -> Any:
        await asyncio.gather(*(agent.session(clock=clock).asend("stuck") for _ in range(40)))
        return await agent.session(clock=clock).asend("healthy")

    assert _result(asyncio.run(body())).result == {"fine": True}
    assert started.count("stuck") == 40


def test_the_wait_for_a_thread_does_not_run_the_calls_timeout() -> None:
    """While a call waits for one of its tool's threads its deadline is off; it starts when a thread starts
    the call, for the call's whole timeout."""
    threads = ToolThreads("lookup", limit=1)
    gate = threading.Event()
    seen: dict[str, Any] = {}

    async def body() -> None:
        loop = asyncio.get_running_loop()
        holding = asyncio.ensure_future(threads.run(gate.wait))  # takes the only thread
        while threads.busy[0] != 1:
            await asyncio.sleep(0)
        async with asyncio.timeout(5) as deadline:
            token = call_clock(CallClock(deadline, 5.0, queue_timeout=30))
            try:
                queued = asyncio.ensure_future(threads.run(lambda: loop.time()))
            finally:
                reset_call_clock(token)
            while deadline.when() is not None:  # the call is submitted: its deadline is taken off
                await asyncio.sleep(0)
            seen["while_waiting"] = deadline.when()
            gate.set()
            started_at = await queued
            seen["after"] = deadline.when() - started_at
        await holding

    asyncio.run(body())
    assert seen["while_waiting"] is None
    assert 5.0 <= seen["after"] < 5.5  # the whole timeout, from the moment a thread started the call


def test_a_call_that_gets_no_thread_in_time_is_never_run() -> None:
    threads = ToolThreads("lookup", limit=1)
    gate = threading.Event()
    ran: list[str] = []

    async def body() -> None:
        holding = asyncio.ensure_future(threads.run(gate.wait))
        while threads.busy[0] != 1:
            await asyncio.sleep(0)
        token = call_clock(CallClock(None, None, queue_timeout=0.05))
        try:
            with pytest.raises(ToolBusy, match=r"lookup had no free thread for 0\.05s"):
                await threads.run(lambda: ran.append("late"))
        finally:
            reset_call_clock(token)
        gate.set()
        await holding
        assert await threads.run(lambda: "next") == "next"  # the thread is free again

    asyncio.run(body())
    assert ran == []
