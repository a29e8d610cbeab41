"""Whatever a tool raises is its call's failure, never the process's: ``SystemExit``, ``KeyboardInterrupt``
and a ``CancelledError`` of its own fail the call like any exception; only the turn's own cancellation goes
through. (The server side, a real ``slotgraph serve`` that keeps serving: tests/faults/test_tool_crashes.py.)
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest

from slotgraph.runtime import Agent, InMemoryStore, ToolResultEvent

from .test_limits import DAG, NOTES, Calls, clock, set_topic


def _raising(error: BaseException, *, asynchronous: bool) -> Callable[..., Any]:
    if asynchronous:

        async def set_topic(topic: str) -> dict[str, Any]:
            """Record the topic (raises)."""
            raise error

        return set_topic

    def set_topic_sync(topic: str) -> dict[str, Any]:
        """Record the topic (raises)."""
        raise error

    set_topic_sync.__name__ = "set_topic"
    return set_topic_sync


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(
    ("error", "said"),
    [
        (SystemExit(3), "SystemExit: 3"),
        (KeyboardInterrupt(), "KeyboardInterrupt"),
        (asyncio.CancelledError(), "CancelledError"),
    ],
    ids=["system-exit", "keyboard-interrupt", "own-cancellation"],
)
def test_a_tool_raising_a_base_exception_fails_its_call_and_the_turn_goes_on(
    error: BaseException, said: str, asynchronous: bool
) -> None:
    agent = Agent.from_config(NOTES, tools=[_raising(error, asynchronous=asynchronous)], model=Calls(1))
    session = agent.session(session_id="s", clock=clock)
    result = session.send("cats")  # the synchronous facade: nothing reaches the caller either
    (failed,) = [e for e in result.events if isinstance(e, ToolResultEvent)]
    assert failed.failed and failed.result["message"] == f"The tool set_topic failed ({said})."
    assert result.text == "ok"
    assert session.send("dogs").text == "ok"  # the session goes on


def test_an_executor_raising_system_exit_is_a_task_failure_with_its_retries() -> None:
    calls: list[str] = []

    def book(topic: str) -> dict[str, Any]:
        """Book it (exits)."""
        calls.append(topic)
        raise SystemExit("no")

    agent = Agent.from_config(DAG, tools=[set_topic, book], model=Calls(1))
    result = asyncio.run(agent.session(session_id="s", store=InMemoryStore(), clock=clock).asend("cats"))
    failures = [e.result for e in result.events if isinstance(e, ToolResultEvent) and e.name == "book"]
    assert failures == [{"success": False, "error": "SystemExit: no"}] * 2 and len(calls) == 2
    assert "Booking is down." in result.text and result.status == "escalated"


def test_a_status_hook_raising_keyboard_interrupt_leaves_the_attempt_pending(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An interrupted attempt's status hook that raises is that hook's failure, not the process's: the attempt
    cannot be confirmed yet, so it is neither failed nor run again (it is asked again on the next message)."""
    store = InMemoryStore()
    booked: list[str] = []

    def book(topic: str) -> dict[str, Any]:
        """Book it."""
        booked.append(topic)
        return {"success": True, "ref": "R-1"}

    def status(key: str) -> Any:
        raise KeyboardInterrupt

    book.idempotency_status = status  # type: ignore[attr-defined]
    agent = Agent.from_config(DAG, tools=[set_topic, book], model=Calls(1))

    async def body() -> Any:
        await store.reserve("s", "book:1", _fingerprint("t0"))  # an attempt interrupted after dispatch
        return await agent.session(session_id="s", store=store, clock=clock).asend("cats")

    result = asyncio.run(body())
    (first,) = [e.result for e in result.events if isinstance(e, ToolResultEvent) and e.name == "book"]
    assert first["pending"] is True and not booked
    assert [e.code for e in result.events if e.kind == "error"] == ["execution_pending"]
    assert "KeyboardInterrupt" in caplog.text


def _fingerprint(topic: str) -> str:
    from slotgraph.stores.ledger import fingerprint

    return fingerprint({"topic": topic})


def test_the_turns_own_cancellation_still_cancels_it() -> None:
    """A turn cancelled while its tool runs is cancelled (a stopping server, Ctrl-C): the cancellation is
    the turn's, not a failure of the tool."""
    started = threading.Event()

    async def set_topic(topic: str) -> dict[str, Any]:
        """Record the topic (waits)."""
        started.set()
        await asyncio.Event().wait()
        return {}

    agent = Agent.from_config(NOTES, tools=[set_topic], model=Calls(1))

    async def body() -> None:
        turn = asyncio.ensure_future(agent.session(session_id="s", clock=clock).asend("cats"))
        while not started.is_set():
            await asyncio.sleep(0)
        turn.cancel()
        with pytest.raises(asyncio.CancelledError):
            await turn

    asyncio.run(body())
