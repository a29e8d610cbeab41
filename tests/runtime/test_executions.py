"""Exactly-once task executors: idempotency keys recorded before dispatch, reconciled after interruptions."""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from slotgraph.models.protocol import ModelRequest, ModelResponse, ToolCall, UserMessage
from slotgraph.runtime import Agent, ErrorEvent, InMemoryStore, SessionStore, ToolContext
from slotgraph.runtime.executions import attempt_key, executions_from_record
from slotgraph.runtime.tool_execution import UNCONFIRMED_REPLY
from slotgraph.stores import SQLiteStore

DAG = {
    "slots": [
        {"name": "topic", "source": "user", "setter": "set_topic", "ask": "What is it about?"},
        {"name": "ref", "source": "task:Book"},
    ],
    "tasks": [
        {"name": "Book", "tool": "book", "inputs": ["topic"], "outputs": {"ref": "ref"},
         "success_check": "success", "then_say": "Booked: {ref}.",
         "on_failure": {"retry_say": "Trying again.", "max_retries": 3}},
    ],
}  # fmt: skip


def set_topic(topic: str) -> dict[str, Any]:
    """Record the topic."""
    return {"stored": True, "value": topic}


def clock() -> datetime.datetime:
    return datetime.datetime(2026, 7, 11, 12, 0, tzinfo=datetime.UTC)


class TopicModel:
    """Sets the topic named by the user's text; says "ok" after tool results."""

    async def generate(self, request: ModelRequest) -> ModelResponse:
        last = request.messages[-1]
        if isinstance(last, UserMessage) and last.text:
            return ModelResponse(
                tool_calls=(ToolCall(f"c{len(request.messages)}", "set_topic", {"topic": last.text}),)
            )
        return ModelResponse(text="ok")


class Booker:
    """A booking backend: records every call; ``block`` makes the next call hang (an interrupted turn)."""

    def __init__(self, *, fail_first: int = 0) -> None:
        self.calls: list[tuple[str, str | None]] = []
        self.fail_first = fail_first
        self.block = False
        self.started = asyncio.Event()

    async def book(self, topic: str, context: ToolContext) -> dict[str, Any]:
        """Book it."""
        self.calls.append((topic, context.idempotency_key))
        self.started.set()
        if self.block:
            await asyncio.Event().wait()
        if len(self.calls) <= self.fail_first:
            return {"success": False, "error": "backend busy"}
        return {"success": True, "ref": f"R{len(self.calls)}"}


def agent_with(book: Callable[..., Any]) -> Agent:
    return Agent.from_config(DAG, tools=[set_topic, book], instruction="Book things.", model=TopicModel())


async def interrupted_turn(agent: Agent, store: SessionStore, booker: Booker, text: str) -> None:
    """A turn cancelled while the executor runs (as a killed process or a lost lease leaves it)."""
    booker.block = True
    booker.started.clear()
    turn = asyncio.create_task(agent.session(session_id="s1", store=store, clock=clock).asend(text))
    await booker.started.wait()
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    booker.block = False


def test_every_executor_call_gets_a_key_derived_from_session_task_and_attempt() -> None:
    async def body() -> None:
        booker = Booker(fail_first=1)
        store = InMemoryStore()
        session = agent_with(booker.book).session(session_id="s1", store=store, clock=clock)
        result = await session.asend("cats")
        assert booker.calls == [("cats", "s1:book:1"), ("cats", "s1:book:2")]  # a retry is a new attempt
        assert "Booked: R2." in result.text
        record, _ = await store.load("s1") or ({}, 0)
        assert record["executions"] == {"book": 2}
        entry = await store.lookup("s1", "book:2")
        assert entry is not None and entry.status == "done" and entry.result == {"success": True, "ref": "R2"}

    asyncio.run(body())


def test_the_key_is_a_parameter_an_executor_may_declare() -> None:
    seen: list[str] = []

    def book(topic: str, idempotency_key: str) -> dict[str, Any]:
        """Book it."""
        seen.append(idempotency_key)
        return {"success": True, "ref": "R1"}

    async def body() -> None:
        session = agent_with(book).session(session_id="s9", store=InMemoryStore(), clock=clock)
        await session.asend("cats")

    asyncio.run(body())
    assert seen == [attempt_key("s9", "book", 1)] == ["s9:book:1"]


class SaveFailsOnce(InMemoryStore):
    """The process "dies" after the executor answered and before the turn was saved."""

    def __init__(self) -> None:
        super().__init__()
        self.fail = True

    async def save(self, session_id: str, record: dict[str, Any], expected_version: int) -> int:
        if self.fail:
            self.fail = False
            raise ConnectionError("killed before the save")
        return await super().save(session_id, record, expected_version)


def test_a_finished_attempt_interrupted_before_the_save_is_reused_not_rerun() -> None:
    async def body() -> None:
        booker = Booker()
        store = SaveFailsOnce()
        agent = agent_with(booker.book)
        with pytest.raises(ConnectionError):
            await agent.session(session_id="s1", store=store, clock=clock).asend("cats")
        assert len(booker.calls) == 1 and await store.load("s1") is None
        again = await agent.session(session_id="s1", store=store, clock=clock).asend("cats")
        assert len(booker.calls) == 1  # not booked twice
        assert "Booked: R1." in again.text  # the recorded confirmation is not lost
        record, _ = await store.load("s1") or ({}, 0)
        assert record["sm"]["filled"]["ref"] == "R1" and record["executions"] == {"book": 1}

    asyncio.run(body())


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_an_attempt_interrupted_during_dispatch_is_never_blindly_rerun(kind: str, tmp_path: Path) -> None:
    async def body() -> None:
        booker = Booker()
        store: Any = InMemoryStore() if kind == "memory" else SQLiteStore(tmp_path / "s.db")
        agent = agent_with(booker.book)
        await interrupted_turn(agent, store, booker, "cats")
        assert await store.load("s1") is None  # the interrupted turn saved nothing
        entry = await store.lookup("s1", "book:1")
        assert entry is not None and entry.status == "pending"
        result = await agent.session(session_id="s1", store=store, clock=clock).asend("cats")
        assert len(booker.calls) == 1  # the executor was not called again
        errors = [e for e in result.events if isinstance(e, ErrorEvent)]
        assert [e.code for e in errors] == ["execution_unconfirmed"]
        assert "s1:book:1" in errors[0].message and "release it" in errors[0].message
        assert result.text == UNCONFIRMED_REPLY  # the person hears something human, not the instructions
        assert result.state["status"] != "complete" and "ref" not in result.state.get("filled", {})
        # the operator settles the key with the backend's answer: the next access routes it
        await store.complete("s1", "book:1", {"success": True, "ref": "R-operator"})
        settled = await agent.session(session_id="s1", store=store, clock=clock).asend("cats")
        assert len(booker.calls) == 1 and "Booked: R-operator." in settled.text
        await store.close()

    asyncio.run(body())


def test_a_status_hook_settles_an_interrupted_attempt() -> None:
    async def body() -> None:
        booker = Booker()
        asked: list[str] = []

        def status(key: str) -> dict[str, Any] | None:
            asked.append(key)
            return {"success": True, "ref": "R-found"}

        book = booker.book
        booker_fn: Any = lambda topic, context: book(topic, context)  # noqa: E731
        booker_fn.__name__ = "book"
        booker_fn.__doc__ = "Book it."
        booker_fn.__annotations__ = {"topic": str, "context": ToolContext, "return": dict}
        booker_fn.idempotency_status = status
        store = InMemoryStore()
        agent = agent_with(booker_fn)
        await interrupted_turn(agent, store, booker, "cats")
        result = await agent.session(session_id="s1", store=store, clock=clock).asend("cats")
        assert asked == ["s1:book:1"] and len(booker.calls) == 1
        assert "Booked: R-found." in result.text

    asyncio.run(body())


def test_an_executor_that_takes_the_key_is_asked_again_with_the_same_key() -> None:
    async def body() -> None:
        done: dict[str, dict[str, Any]] = {}
        started = asyncio.Event()
        hang = [True]

        async def book(topic: str, idempotency_key: str) -> dict[str, Any]:
            """Book it (deduplicating by key, as a payment API does)."""
            started.set()
            if hang[0]:
                done[idempotency_key] = {"success": True, "ref": "R1"}  # booked, then the turn died
                await asyncio.Event().wait()
            return done.setdefault(idempotency_key, {"success": True, "ref": f"R{len(done) + 1}"})

        store = InMemoryStore()
        agent = agent_with(book)
        turn = asyncio.create_task(agent.session(session_id="s1", store=store, clock=clock).asend("cats"))
        await started.wait()
        turn.cancel()
        with pytest.raises(asyncio.CancelledError):
            await turn
        hang[0] = False
        result = await agent.session(session_id="s1", store=store, clock=clock).asend("cats")
        assert list(done) == ["s1:book:1"] and "Booked: R1." in result.text

    asyncio.run(body())


def test_an_interrupted_attempt_with_other_inputs_is_left_and_the_next_number_used() -> None:
    async def body() -> None:
        booker = Booker()
        store = InMemoryStore()
        agent = agent_with(booker.book)
        await interrupted_turn(agent, store, booker, "cats")
        result = await agent.session(session_id="s1", store=store, clock=clock).asend("dogs")
        assert booker.calls[-1] == ("dogs", "s1:book:2")
        assert "Booked: R2." in result.text
        first = await store.lookup("s1", "book:1")
        assert first is not None and first.status == "pending"  # still for an operator to see

    asyncio.run(body())


def test_stored_attempt_counts_are_validated() -> None:
    assert executions_from_record("s", None) == {}
    assert executions_from_record("s", {"book": 2}) == {"book": 2}
    for bad in ([1], {"book": -1}, {"book": "2"}, {"book": True}):
        with pytest.raises(ValueError, match="executions"):
            executions_from_record("s", bad)
