"""One suite, every store (memory, SQLite, Redis, PostgreSQL): what the runtime and the server rely on."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from slotgraph.models.protocol import (
    AssistantText,
    AssistantToolCalls,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from slotgraph.runtime import ModelRequest, ModelResponse, ScriptedModel, ScriptedStep
from slotgraph.runtime.history import message_from_json, message_to_json
from slotgraph.stores import (
    CURRENT_SCHEMA,
    StoreConflictError,
    StoreLockTimeoutError,
    StorePayloadError,
)

from . import agent_kit
from .conftest import Backend
from .fixtures import FIXTURES, expected_record

NEGATIVE_WAIT = 0.3
"""Seconds a test waits to see that something does NOT happen (a wait that can only under-report)."""


def record(text: str = "hello", *, turns: int = 1, sm: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "sm": sm if sm is not None else {"filled": {"topic": text}, "status": "in_progress", "_retries": {}},
        "history": [
            message_to_json(message)
            for message in (
                UserMessage(text),
                AssistantToolCalls(
                    (ToolCall("c1", "set_topic", {"topic": text, "n": [1, 2.5, None, True]}),)
                ),
                ToolResultMessage("c1", "set_topic", {"stored": True, "value": text}),
                AssistantText(f"Noted: {text}"),
                UserMessage("", event="welcome"),
            )
        ],
        "ended": False,
        "turns": turns,
    }


def test_round_trip_and_versions(backend: Backend) -> None:
    async def scenario() -> None:
        store = backend.open()
        assert await store.load("s1") is None
        assert await store.save("s1", record("one"), 0) == 1
        assert await store.load("s1") == (record("one"), 1)
        assert await store.save("s1", record("two", turns=2), 1) == 2
        assert await store.load("s1") == (record("two", turns=2), 2)
        if backend.durable:  # another handle (another process) sees the same data
            assert await backend.again(store).load("s1") == (record("two", turns=2), 2)

    backend.run(scenario)


def test_a_stale_save_conflicts_and_overwrites_nothing(backend: Backend) -> None:
    async def scenario() -> None:
        store = backend.open()
        await store.save("s1", record("first"), 0)
        with pytest.raises(StoreConflictError, match=r"stored version is 1, this turn started from 0"):
            await store.save("s1", record("stale"), 0)
        await store.save("s1", record("second"), 1)
        with pytest.raises(StoreConflictError, match=r"stored version is 2, this turn started from 1"):
            await backend.again(store).save("s1", record("stale"), 1)
        assert await store.load("s1") == (record("second"), 2)

    backend.run(scenario)


def test_a_load_under_the_lock_sees_what_is_stored_and_then_what_this_holder_saved(backend: Backend) -> None:
    """What the runtime does each turn: lock, load, save, and (in a longer turn) load again. Stores that read
    the session while taking the lock (SQLite, Redis) hand that read to the first load, never a stale one."""

    async def scenario() -> None:
        store = backend.open()
        other = backend.again(store) if backend.durable else store
        async with store.lock("fresh"):
            assert await store.load("fresh") is None
            assert await store.save("fresh", record("born"), 0) == 1
            assert await store.load("fresh") == (record("born"), 1)
        await other.save("s1", record("one"), 0)
        async with store.lock("s1"):
            assert await store.load("s1") == (record("one"), 1)
            assert await store.save("s1", record("two", turns=2), 1) == 2
            assert await store.load("s1") == (record("two", turns=2), 2)
        await other.save("s1", record("three", turns=3), 2)  # between two holds: the next one sees it
        async with store.lock("s1"):
            assert await store.load("s1") == (record("three", turns=3), 3)
        async with store.lock("s1"):
            pass  # a hold that never loads leaves nothing behind for a later reader
        await other.save("s1", record("four", turns=4), 3)
        assert await store.load("s1") == (record("four", turns=4), 4)

    backend.run(scenario)


def test_delete_and_list(backend: Backend) -> None:
    async def scenario() -> None:
        store = backend.open()
        assert await store.list_sessions() == []
        for name in ("b", "a", "c"):
            await store.save(name, record(name), 0)
        assert await store.list_sessions() == ["a", "b", "c"]
        assert len(await store.list_sessions()) == 3
        assert await store.delete("b") is True
        assert await store.delete("b") is False
        assert await store.delete("never") is False
        assert await store.load("b") is None
        assert await store.list_sessions() == ["a", "c"]
        assert await store.save("b", record("again"), 0) == 1  # a deleted session starts afresh

    backend.run(scenario)


def test_large_state(backend: Backend) -> None:
    big = {
        "filled": {f"slot_{i}": {"value": "x" * 100, "i": i} for i in range(5000)},
        "blob": "y" * 1_000_000,
    }
    history_len = 2000

    async def scenario() -> None:
        store = backend.open()
        rec = record(sm=big)
        rec["history"] = [message_to_json(UserMessage(f"message {i}")) for i in range(history_len)]
        await store.save("big", rec, 0)
        loaded, version = await store.load("big") or ({}, 0)
        assert version == 1 and loaded["sm"] == big and len(loaded["history"]) == history_len
        assert message_from_json(loaded["history"][-1]) == UserMessage(f"message {history_len - 1}")

    backend.run(scenario)


def test_unicode_ids_and_text(backend: Backend) -> None:
    session_id = "会话-ü-🙂 x/y:z"
    text = "مرحبا — שלום — こんにちは 🙂 \u2028 \\ \" ' \x00end"

    async def scenario() -> None:
        store = backend.open()
        await store.save(session_id, record(text), 0)
        assert await store.load(session_id) == (record(text), 1)
        assert await store.list_sessions() == [session_id]

    backend.run(scenario)


def test_older_payloads_are_migrated_on_load(durable_backend: Backend) -> None:
    backend = durable_backend
    assert backend.raw is not None
    raw = backend.raw

    async def scenario() -> None:
        store = backend.open()
        await store.list_sessions()  # tables exist
        for schema, payload in FIXTURES.items():
            raw.put(f"old-{schema}", payload, 3)
            assert await store.load(f"old-{schema}") == (expected_record(), 3)
            await store.save(f"old-{schema}", expected_record(), 3)
            rewritten = json.loads(raw.get(f"old-{schema}") or "{}")
            assert rewritten["schema"] == CURRENT_SCHEMA

    backend.run(scenario)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ("{not json", r"not valid JSON"),
        ('{"schema": 99, "record": {}}', r"schema 99, written by a newer slotgraph; .*Upgrade slotgraph"),
        ('{"record": {}}', r"is not \{\"schema\": N"),
        ('{"schema": 2, "record": []}', r"'record' must be an object"),
    ],
    ids=["corrupted-json", "newer-schema", "no-schema", "record-list"],
)
def test_unreadable_payloads_raise_and_stay_in_the_store(
    durable_backend: Backend, payload: str, message: str
) -> None:
    backend = durable_backend
    assert backend.raw is not None
    raw = backend.raw

    async def scenario() -> None:
        store = backend.open()
        await store.list_sessions()
        raw.put("bad", payload, 4)
        with pytest.raises(StorePayloadError, match=message) as caught:
            await store.load("bad")
        assert "'bad'" in str(caught.value) and store.where in str(caught.value)  # type: ignore[attr-defined]
        assert raw.get("bad") == payload  # nothing lost
        with pytest.raises(StoreConflictError):  # and nothing overwrites it blindly
            await store.save("bad", record(), 0)
        assert raw.get("bad") == payload

    backend.run(scenario)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ('{"schema": 2, "record": {"sm": {}, "history": [{"kind": "shout"}]}}', r"unknown message kind"),
        ('{"schema": 2, "record": {"history": [], "turns": 3, "ended": false}}', r"'sm' is missing"),
        ('{"schema": 2, "record": {"sm": [], "history": []}}', r"'sm' is not a mapping"),
        ('{"schema": 2, "record": {"sm": {}, "history": [], "ended": "no"}}', r"'ended' is not a boolean"),
    ],
    ids=["bad-message", "no-sm", "sm-list", "ended-str"],
)
def test_a_record_no_turn_can_play_on_is_refused_and_stays_in_the_store(
    durable_backend: Backend, payload: str, message: str
) -> None:
    """The store reads it (it is JSON); the turn refuses it before playing (the runtime checks the record)."""
    backend = durable_backend
    assert backend.raw is not None
    raw = backend.raw

    async def scenario() -> None:
        store = backend.open()
        await store.list_sessions()
        raw.put("bad", payload, 4)
        session = agent_kit.agent(ScriptedModel([])).session(
            session_id="bad", store=store, clock=agent_kit.clock
        )
        with pytest.raises(StorePayloadError, match=message) as caught:
            await session.asend("hello")
        assert "'bad'" in str(caught.value)
        assert raw.get("bad") == payload  # nothing lost, nothing played

    backend.run(scenario)


def test_the_lock_excludes_a_second_holder_who_waits(backend: Backend) -> None:
    async def scenario() -> list[str]:
        store = backend.open()
        other = backend.again(store)
        log: list[str] = []
        held, release = asyncio.Event(), asyncio.Event()

        async def first() -> None:
            async with store.lock("s1"):
                log.append("first in")
                held.set()
                await release.wait()
                log.append("first out")

        async def second() -> None:
            async with other.lock("s1"):
                log.append("second in")

        one = asyncio.create_task(first())
        await held.wait()
        two = asyncio.create_task(second())
        done, _ = await asyncio.wait({two}, timeout=NEGATIVE_WAIT)
        assert not done, "the second holder got the lock while the first held it"
        async with store.lock("another session"):  # other sessions are not blocked
            log.append("another session")
        release.set()
        await asyncio.gather(one, two)
        return log

    assert backend.run(scenario) == ["first in", "another session", "first out", "second in"]


@pytest.mark.parametrize("timeout", [0.2, 0])
def test_a_lock_wait_is_bounded(backend: Backend, timeout: float) -> None:
    """``lock_timeout`` bounds the wait; 0 means: take the lock if it is free, else fail at once."""

    async def scenario() -> None:
        store = backend.open(lock_timeout=timeout)
        other = backend.again(store, lock_timeout=timeout)
        async with store.lock("s1"):
            with pytest.raises(StoreLockTimeoutError, match=r"'s1'.* is busy"):
                async with other.lock("s1"):
                    raise AssertionError("got a held lock")
        async with other.lock("s1"):  # free again
            pass

    backend.run(scenario)


class GatedModel:
    """Answers once; the first call waits for ``release``. Records the user texts each call saw."""

    def __init__(self, text: str, gate: bool) -> None:
        self.text, self.gate = text, gate
        self.entered, self.release = asyncio.Event(), asyncio.Event()
        self.seen: list[str] = []
        self.inner = ScriptedModel([ScriptedStep(text=text)])

    async def generate(self, request: ModelRequest) -> ModelResponse:
        self.seen = [m.text for m in request.messages if isinstance(m, UserMessage)]
        self.entered.set()
        if self.gate:
            await self.release.wait()
        return await self.inner.generate(request)


def test_two_writers_on_one_session_through_the_runtime_lose_nothing(backend: Backend) -> None:
    async def scenario() -> None:
        store = backend.open()
        first_model, second_model = GatedModel("one", gate=True), GatedModel("two", gate=False)
        first = agent_kit.agent().session(
            session_id="s", store=store, clock=agent_kit.clock, model=first_model
        )
        second = agent_kit.agent().session(
            session_id="s", store=backend.again(store), clock=agent_kit.clock, model=second_model
        )
        one = asyncio.create_task(first.asend("from A"))
        await first_model.entered.wait()
        two = asyncio.create_task(second.asend("from B"))
        done, _ = await asyncio.wait({two}, timeout=NEGATIVE_WAIT)
        assert not done and not second_model.entered.is_set(), "B's turn ran while A's held the session"
        first_model.release.set()
        assert (await one).text == "one" and (await two).text == "two"
        assert second_model.seen == ["from A", "from B"]  # B played on the state A saved
        stored, version = await store.load("s") or ({}, 0)
        assert stored["turns"] == 2 and version == 2
        assert agent_kit.user_texts(stored) == ["from A", "from B"]

    backend.run(scenario)


@pytest.mark.scripted_leftover("GatedModel's own one-step script is replaced by a two-step one")
def test_the_same_session_object_queues_a_second_message(backend: Backend) -> None:
    async def scenario() -> None:
        store = backend.open()
        model = GatedModel("x", gate=True)
        model.inner = ScriptedModel([ScriptedStep(text="one"), ScriptedStep(text="two")])
        session = agent_kit.agent().session(session_id="s", store=store, clock=agent_kit.clock, model=model)
        one = asyncio.create_task(session.asend("first"))
        await model.entered.wait()
        two = asyncio.create_task(session.asend("second"))
        model.release.set()
        assert [(await one).text, (await two).text] == ["one", "two"]
        assert session.turns == 2
        stored, _ = await store.load("s") or ({}, 0)
        assert agent_kit.user_texts(stored) == ["first", "second"]

    backend.run(scenario)


def test_a_closed_store_says_so(durable_backend: Backend) -> None:
    backend = durable_backend

    async def scenario() -> None:
        store = backend.open()
        await store.list_sessions()
        await store.close()
        await store.close()  # idempotent
        with pytest.raises(Exception, match="the store was closed; open a new one"):
            await store.load("s")

    backend.run(scenario)


def test_the_sync_facade_works_on_network_stores_across_calls(network_backend: Backend) -> None:
    """``Session.send`` runs every turn on the facade's one long-lived loop, so Redis and PostgreSQL serve one
    sync call after another, and ``close()`` works from another loop."""
    store = network_backend.open()
    network_backend.opened.remove(store)  # closed below, outside any particular turn's loop
    agent = agent_kit.agent()
    for n, text in enumerate(["one", "two", "three"], start=1):
        session = agent.session(
            session_id="s", store=store, clock=agent_kit.clock, model=ScriptedModel([ScriptedStep(text=text)])
        )
        assert session.send(text).text == text and session.turns == n
    asyncio.run(store.close())


def test_network_stores_refuse_a_second_event_loop_clearly(network_backend: Backend) -> None:
    """(Memory and SQLite stores work from any loop: see test_the_sync_facade_works_with_a_store...)"""
    backend = network_backend
    store = backend.open()

    async def first() -> None:
        await store.save("s", record(), 0)

    async def second() -> None:
        with pytest.raises(Exception, match=r"connected on another event loop; use one store per event loop"):
            await store.load("s")

    async def reopen() -> None:
        other = backend.open()
        assert await other.load("s") == (record(), 1)  # a store per loop works, and the data is there

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(first())
        backend.opened.remove(store)
        backend.run(second)
        backend.run(reopen)
        loop.run_until_complete(store.close())
    finally:
        loop.close()
