"""Bounded work for any input: tool timeouts, tool-call caps per response and per turn, bounded history."""

from __future__ import annotations

import asyncio
import datetime
import threading
from pathlib import Path
from typing import Any

import pytest

from slotgraph.config import ConfigValidationError
from slotgraph.models.protocol import (
    AssistantText,
    AssistantToolCalls,
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from slotgraph.runtime import (
    Agent,
    InMemoryStore,
    RefusalEvent,
    ToolResultEvent,
)
from slotgraph.runtime.errors import AgentLoadError
from slotgraph.runtime.history import bounded_history, message_from_json

DAG = {
    "slots": [
        {"name": "topic", "source": "user", "setter": "set_topic", "ask": "What is it about?"},
        {"name": "ref", "source": "task:Book"},
    ],
    "tasks": [
        {"name": "Book", "tool": "book", "inputs": ["topic"], "outputs": {"ref": "ref"},
         "success_check": "success", "then_say": "Booked: {ref}.",
         "on_failure": {"retry_say": "Trying again.", "max_retries": 2,
                        "on_exhaust": {"say": "Booking is down.",
                                       "then": {"tool": "escalate", "args": {"reason": "down"}}}}},
    ],
}  # fmt: skip
NOTES = {"slots": [{"name": "topic", "source": "user", "setter": "set_topic", "ask": "What is it about?"}]}


def clock() -> datetime.datetime:
    return datetime.datetime(2026, 7, 11, 12, 0, tzinfo=datetime.UTC)


def set_topic(topic: str) -> dict[str, Any]:
    """Record the topic."""
    return {"stored": True, "value": topic}


class Calls:
    """A model that answers every user message with ``n`` set_topic calls, then says "ok"."""

    def __init__(self, n: int, per_step: int | None = None, tool: str = "set_topic") -> None:
        self.n, self.per_step, self.steps, self.tool = n, per_step, 0, tool

    async def generate(self, request: ModelRequest) -> ModelResponse:
        self.steps += 1
        last = request.messages[-1]
        if isinstance(last, UserMessage) or (self.per_step is not None and self.steps <= 4):
            count = self.n if self.per_step is None else self.per_step
            base = len(request.messages)
            args = (
                (lambda i: {"topic": f"t{i}"}) if self.tool == "set_topic" else (lambda i: {"text": f"t{i}"})
            )
            calls = tuple(ToolCall(f"c{base}_{i}", self.tool, args(i)) for i in range(count))
            return ModelResponse(tool_calls=calls)
        return ModelResponse(text="ok")


def test_a_hung_sync_executor_is_pending_not_failed_and_its_late_result_is_routed() -> None:
    """An executor past its timeout may still book: its attempt is neither failed nor retried with a new key
    (that booked twice); the person is told it cannot be confirmed yet, the next message in the meantime
    neither asks nor re-sends anything, and once the call returns its result is routed."""
    release = threading.Event()
    calls: list[str] = []

    def book(topic: str) -> dict[str, Any]:
        """Book it (the backend is slow)."""
        calls.append(topic)
        release.wait(30)  # a slow backend, answering when the test says so
        return {"success": True, "ref": "late"}

    agent = Agent.from_config(DAG, tools=[set_topic, book], model=Calls(1), limits={"tool_timeout": 0.2})
    store = InMemoryStore()

    async def recorded() -> None:
        while (entry := await store.lookup("s1", "book:1")) is None or entry.status != "done":
            await asyncio.sleep(0.01)  # bounded below: wait on the ledger, an observable state

    async def body() -> tuple[Any, Any, Any]:
        first = await agent.session(session_id="s1", store=store, clock=clock).asend("cats")
        meanwhile = await agent.session(session_id="s1", store=store, clock=clock).asend("cats")
        release.set()
        await asyncio.wait_for(recorded(), 30)
        last = await agent.session(session_id="s1", store=store, clock=clock).asend("cats")
        return first, meanwhile, last

    try:
        first, meanwhile, last = asyncio.run(body())
    finally:
        release.set()
    for turn in (first, meanwhile):
        (pending,) = [e.result for e in turn.events if isinstance(e, ToolResultEvent) and e.name == "book"]
        assert pending["pending"] is True and pending["idempotency_key"] == "s1:book:1"
        assert [e.code for e in turn.events if e.kind == "error"] == ["execution_pending"]
        assert "can't confirm it yet" in turn.text and "Trying again." not in turn.text
        assert turn.status != "escalated"
    assert "did not answer within 0.2s" in first.events[-1].message
    assert "is still running" in meanwhile.events[-1].message
    assert calls == ["t0"]  # once: never retried, never re-sent
    assert "Booked: late." in last.text and calls == ["t0"]


def test_an_executor_without_a_ledger_that_times_out_fails_and_retries() -> None:
    """A store that keeps no ledger gives executors no keys: a timed-out call is a failure like a raise (its
    on_failure retries and on_exhaust apply), as any tool's."""
    release = threading.Event()
    calls: list[str] = []

    def book(topic: str) -> dict[str, Any]:
        """Book it (the backend hangs)."""
        calls.append(topic)
        release.wait(30)
        return {"success": True, "ref": "late"}

    agent = Agent.from_config(DAG, tools=[set_topic, book], model=Calls(1), limits={"tool_timeout": 0.2})

    async def body() -> Any:
        return await agent.session(session_id="s1", store=_NoLedger(), clock=clock).asend("cats")

    try:
        result = asyncio.run(body())
    finally:
        release.set()
    failures = [e.result for e in result.events if isinstance(e, ToolResultEvent) and e.name == "book"]
    assert len(failures) == 2 == len(calls)  # max_retries: 2 attempts, each timed out
    assert all(f == {"success": False, "error": "Timeout: book did not answer within 0.2s"} for f in failures)
    assert "Trying again." in result.text and "Booking is down." in result.text
    assert result.status == "escalated"


class _NoLedger:
    """A session store that keeps no execution ledger: an in-memory store without its ledger methods."""

    def __init__(self) -> None:
        self._inner = InMemoryStore()

    def __getattr__(self, name: str) -> Any:
        if name in ("reserve", "complete", "release", "lookup"):
            raise AttributeError(name)
        return getattr(self._inner, name)


def test_per_tool_timeouts_override_the_default_and_a_hung_async_tool_fails_for_the_model() -> None:
    async def set_topic(topic: str) -> dict[str, Any]:
        """Record the topic (hangs)."""
        await asyncio.Event().wait()
        return {}

    agent = Agent.from_config(
        NOTES,
        tools=[set_topic],
        model=Calls(1),
        limits={"tool_timeout": 60, "tool_timeouts": {"set_topic": 0.1}},
    )
    result = asyncio.run(agent.session(session_id="s", clock=clock).asend("cats"))
    (failed,) = [e for e in result.events if isinstance(e, ToolResultEvent)]
    assert failed.failed and failed.result["message"] == (
        "The tool set_topic failed (Timeout: set_topic did not answer within 0.1s)."
    )
    assert result.text == "ok"


def test_a_tool_that_raises_timeout_error_is_a_failed_call_not_a_timeout() -> None:
    def set_topic(topic: str) -> dict[str, Any]:
        """Record the topic (raises)."""
        raise TimeoutError

    agent = Agent.from_config(NOTES, tools=[set_topic], model=Calls(1))
    result = asyncio.run(agent.session(session_id="s", clock=clock).asend("cats"))
    (failed,) = [e for e in result.events if isinstance(e, ToolResultEvent)]
    assert failed.failed and "TimeoutError: the tool raised TimeoutError" in failed.result["message"]


def test_a_response_with_a_thousand_tool_calls_runs_only_the_cap() -> None:
    ran: list[str] = []

    def set_topic(topic: str) -> dict[str, Any]:
        """Record the topic."""
        ran.append(topic)
        return {"stored": True, "value": topic}

    agent = Agent.from_config(
        NOTES, tools=[set_topic], model=Calls(1000), limits={"tool_calls_per_response": 5}
    )
    session = agent.session(session_id="s", clock=clock)
    result = asyncio.run(session.asend("cats"))
    assert len(ran) == 5
    (refusal,) = [e for e in result.events if isinstance(e, RefusalEvent)]
    assert refusal.refused == "call_limit" and "this response made 1000" in refusal.message
    (calls,) = [m for m in session.history if isinstance(m, AssistantToolCalls)]
    assert len(calls.calls) == 6  # five run, one refused with the reason; the rest dropped
    results = [m for m in session.history if isinstance(m, ToolResultMessage)]
    assert [r.call_id for r in results] == [c.id for c in calls.calls]  # every kept call has its answer


def note(text: str) -> dict[str, Any]:
    """Note something down (a tool outside the DAG: always visible)."""
    return {"noted": text}


def test_tool_calls_per_turn_are_capped_with_a_refusal_the_model_reads() -> None:
    agent = Agent.from_config(
        NOTES,
        tools=[set_topic, note],
        model=Calls(0, per_step=2, tool="note"),
        limits={"tool_calls_per_turn": 3},
    )
    result = asyncio.run(agent.session(session_id="s", clock=clock).asend("cats"))
    ran = [e for e in result.events if isinstance(e, ToolResultEvent) and not e.failed]
    refused = [e for e in result.events if isinstance(e, RefusalEvent)]
    assert len(ran) == 3
    assert refused and all(r.refused == "call_limit" and "in one turn" in r.message for r in refused)


def test_the_stored_history_is_bounded_by_whole_turns() -> None:
    agent = Agent.from_config(NOTES, tools=[set_topic], model=Calls(1), limits={"history_messages": 10})
    store = InMemoryStore()

    async def body() -> list[Any]:
        session = agent.session(session_id="s", store=store, clock=clock)
        for n in range(12):
            await session.asend(f"topic {n}")
        record, _ = await store.load("s") or ({}, 0)
        return [message_from_json(message) for message in record["history"]]

    history = asyncio.run(body())
    assert len(history) <= 10 and isinstance(history[0], UserMessage)
    assert history[-4:][0] == UserMessage("topic 11")  # the last turn is whole: user, call, result, text
    assert [m.text for m in history if isinstance(m, UserMessage)] == ["topic 10", "topic 11"]


def test_bounded_history_keeps_the_last_turn_whole_even_when_it_alone_is_longer() -> None:
    turn = [UserMessage("hi"), *(AssistantText(str(i)) for i in range(20))]
    assert bounded_history([UserMessage("old"), AssistantText("x"), *turn], 10) == turn
    assert bounded_history(turn[:3], 10) == turn[:3]


def test_limits_are_validated_with_their_location(tmp_path: Path) -> None:
    with pytest.raises(AgentLoadError, match=r"limits\.tool_timeout: Input should be greater than 0"):
        Agent.from_config(NOTES, tools=[set_topic], limits={"tool_timeout": 0})
    (tmp_path / "tools.py").write_text("def set_topic(topic: str) -> dict:\n    return {}\n")
    (tmp_path / "agent.yaml").write_text(
        "name: a\ndag:\n  slots: [{name: topic, setter: set_topic, ask: 'What'}]\n"
        "limits:\n  tool_calls_per_turn: many\n"
    )
    with pytest.raises(
        ConfigValidationError, match=r"agent.yaml:5:3: limits.tool_calls_per_turn: expected an integer"
    ):
        Agent.load(tmp_path)
    (tmp_path / "agent.yaml").write_text(
        "name: a\ndag:\n  slots: [{name: topic, setter: set_topic, ask: 'What'}]\n"
        "limits: {tool_timeout: 5, tool_timeouts: {set_topic: 1}, history_messages: 50}\n"
    )
    loaded = Agent.load(tmp_path)
    assert loaded.limits.timeout_for("set_topic") == 1 and loaded.limits.timeout_for("other") == 5
