"""How the runtime uses a store: the session lock encloses load → turn → save; conflicts never clobber."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from slotgraph.runtime import ModelRequest, ModelResponse, ScriptedModel, ScriptedStep
from slotgraph.stores import StoreConflictError, StorePayloadError, open_store
from slotgraph.stores.memory import InMemoryStore

from . import agent_kit
from .test_conformance import GatedModel


class SpyStore:
    """An :class:`InMemoryStore` that logs every call with the caller's label; ``cooperative=False`` makes
    ``lock`` a no-op (a writer that does not take the lock)."""

    def __init__(self, *, cooperative: bool = True) -> None:
        self.inner = InMemoryStore()
        self.cooperative = cooperative
        self.log: list[str] = []
        self.label = ""

    async def load(self, session_id: str) -> tuple[dict[str, Any], int] | None:
        self.log.append(f"load {current()}")
        return await self.inner.load(session_id)

    async def save(self, session_id: str, record: dict[str, Any], expected_version: int) -> int:
        self.log.append(f"save {current()}")
        return await self.inner.save(session_id, record, expected_version)

    async def delete(self, session_id: str) -> bool:
        return await self.inner.delete(session_id)

    async def list_sessions(self) -> list[str]:
        return await self.inner.list_sessions()

    async def count(self) -> int:
        return await self.inner.count()

    def lock(self, session_id: str) -> AbstractAsyncContextManager[None]:
        return self._hold(session_id)

    @asynccontextmanager
    async def _hold(self, session_id: str) -> AsyncIterator[None]:
        if not self.cooperative:
            yield
            return
        async with self.inner.lock(session_id):
            self.log.append(f"lock {current()}")
            try:
                yield
            finally:
                self.log.append(f"unlock {current()}")

    async def close(self) -> None:
        await self.inner.close()


def current() -> str:
    task = asyncio.current_task()
    return task.get_name() if task else "?"


def test_the_lock_encloses_load_turn_and_save_of_each_turn() -> None:
    async def scenario() -> list[str]:
        store = SpyStore()
        gated = GatedModel("one", gate=True)
        a = agent_kit.agent().session(session_id="s", store=store, clock=agent_kit.clock, model=gated)
        b = agent_kit.agent().session(
            session_id="s",
            store=store,
            clock=agent_kit.clock,
            model=ScriptedModel([ScriptedStep(text="two")]),
        )
        one = asyncio.create_task(a.asend("A"), name="A")
        await gated.entered.wait()
        two = asyncio.create_task(b.asend("B"), name="B")
        await asyncio.wait({two}, timeout=0.1)
        gated.release.set()
        await asyncio.gather(one, two)
        return store.log

    assert asyncio.run(scenario()) == [
        "lock A",
        "load A",
        "save A",
        "unlock A",
        "lock B",
        "load B",
        "save B",
        "unlock B",
    ]


def test_a_writer_that_skips_the_lock_gets_a_conflict_and_overwrites_nothing() -> None:
    async def scenario() -> None:
        store = SpyStore(cooperative=False)
        gated = GatedModel("late", gate=True)
        slow = agent_kit.agent().session(session_id="s", store=store, clock=agent_kit.clock, model=gated)
        fast = agent_kit.agent().session(
            session_id="s",
            store=store,
            clock=agent_kit.clock,
            model=ScriptedModel([ScriptedStep(text="first")]),
        )
        late = asyncio.create_task(slow.asend("slow"))
        await gated.entered.wait()  # the slow turn loaded version 0 ...
        await fast.asend("fast")  # ... and this one saved version 1 meanwhile
        gated.release.set()
        with pytest.raises(StoreConflictError, match=r"stored version is 1, this turn started from 0"):
            await late
        stored, version = await store.load("s") or ({}, 0)
        assert version == 1 and agent_kit.user_texts(stored) == ["fast"]
        assert slow.turns == 0 and slow.history == ()  # the loser keeps its last completed state

    asyncio.run(scenario())


class ExplodingModel:
    async def generate(self, request: ModelRequest) -> ModelResponse:
        raise RuntimeError("model backend down")


def test_a_failed_turn_releases_the_lock_and_saves_nothing() -> None:
    async def scenario() -> None:
        store = InMemoryStore(lock_timeout=5)
        agent = agent_kit.agent()
        await agent.session(
            session_id="s", store=store, clock=agent_kit.clock, model=ScriptedModel([ScriptedStep(text="ok")])
        ).asend("one")
        with pytest.raises(RuntimeError, match="model backend down"):
            await agent.session(
                session_id="s", store=store, clock=agent_kit.clock, model=ExplodingModel()
            ).asend("x")
        again = agent.session(
            session_id="s",
            store=store,
            clock=agent_kit.clock,
            model=ScriptedModel([ScriptedStep(text="two")]),
        )
        assert (await again.asend("two")).text == "two"
        assert again.turns == 2

    asyncio.run(scenario())


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_the_sync_facade_works_with_a_store_across_event_loops(kind: str, tmp_path: Path) -> None:
    """``Session.send`` runs every turn on the facade's loop; the store is closed from another loop (the
    network stores too: see test_conformance)."""
    store = open_store("memory://" if kind == "memory" else f"sqlite:///{tmp_path}/s.db")
    agent = agent_kit.agent()
    for n, text in enumerate(["one", "two", "three"], start=1):
        session = agent.session(
            session_id="s", store=store, clock=agent_kit.clock, model=ScriptedModel([ScriptedStep(text=text)])
        )
        assert session.send(text).text == text and session.turns == n
    asyncio.run(store.close())


@pytest.mark.parametrize(
    ("planted", "says"),
    [
        ({"history": [], "ended": False, "turns": 3}, "'sm' is missing"),
        ({"sm": ["x"], "history": [], "ended": False, "turns": 3}, "'sm' is not a mapping"),
        ({"sm": {}, "history": [], "ended": "no", "turns": 3}, "'ended' is not a boolean"),
        ({"sm": {}, "history": [], "ended": False, "turns": "3"}, "'turns' is not a count"),
    ],
)
@pytest.mark.scripted_leftover("the turn is refused before the model is called")
def test_a_stored_record_the_turn_cannot_play_on_is_refused_and_left_alone(
    planted: dict[str, Any], says: str
) -> None:
    """Any store (here one that does not check payloads): a missing ``sm`` is not a fresh start."""

    async def scenario() -> None:
        store = InMemoryStore()
        await store.save("s1", planted, 0)
        session = agent_kit.agent().session(
            session_id="s1",
            store=store,
            clock=agent_kit.clock,
            model=ScriptedModel([ScriptedStep(text="Hi")]),
        )
        with pytest.raises(StorePayloadError, match=says):
            await session.asend("hello")
        assert await store.load("s1") == (planted, 1)

    asyncio.run(scenario())
