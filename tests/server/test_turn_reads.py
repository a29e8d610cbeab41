"""A turn reads its session from the store once, under the session's lock; the service remembers which
agent a session belongs to, never its state."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from slotgraph.runtime import InMemoryStore
from slotgraph.server import SessionService
from slotgraph.server.errors import SessionEndedError, SessionNotFoundError

from .support import bella, clock


class CountingStore(InMemoryStore):
    """An in-memory store that counts its loads."""

    def __init__(self) -> None:
        super().__init__()
        self.loads = 0

    async def load(self, session_id: str) -> tuple[dict[str, Any], int] | None:
        self.loads += 1
        return await super().load(session_id)


def test_a_turn_of_a_session_this_service_knows_reads_the_store_once() -> None:
    async def scenario() -> list[int]:
        store = CountingStore()
        service = SessionService(bella(), store, clock=clock, seed=0)
        session_id = await service.create("bella_notte")
        reads = []
        for text in ("Hi", "A table for 4 people", "yes"):
            before = store.loads
            await service.turn(session_id, text)
            reads.append(store.loads - before)
        return reads

    assert asyncio.run(scenario()) == [1, 1, 1]


def test_another_workers_session_is_read_to_find_its_agent_then_remembered() -> None:
    async def scenario() -> tuple[int, int, int]:
        store = CountingStore()
        creator = SessionService(bella(), store, clock=clock, seed=0)
        session_id = await creator.create("bella_notte")
        other = SessionService(bella(), store, clock=clock, seed=0)  # a second worker on the same store
        before = store.loads
        await other.turn(session_id, "Hi")
        first = store.loads - before
        before = store.loads
        await other.turn(session_id, "A table for 4 people")
        second = store.loads - before
        (record, _) = await store.load(session_id) or ({}, 0)
        return first, second, int(record["turns"])

    assert asyncio.run(scenario()) == (2, 1, 2)


def test_a_session_deleted_behind_the_services_back_is_not_found_not_started_afresh() -> None:
    async def scenario() -> bool:
        store = InMemoryStore()
        service = SessionService(bella(), store, clock=clock, seed=0)
        session_id = await service.create("bella_notte")
        await service.turn(session_id, "Hi")
        await store.delete(session_id)
        with pytest.raises(SessionNotFoundError, match="no session"):
            await service.turn(session_id, "A table for 4 people")
        return await store.load(session_id) is None

    assert asyncio.run(scenario())


def test_an_ended_session_the_service_knows_still_refuses_a_turn() -> None:
    async def scenario() -> int:
        store = InMemoryStore()
        service = SessionService(bella(), store, clock=clock, seed=0)
        session_id = await service.create("bella_notte")
        await service.turn(session_id, "Hi")
        found = await store.load(session_id)
        assert found is not None
        record, version = found
        await store.save(session_id, {**record, "ended": True}, version)
        with pytest.raises(SessionEndedError, match="has ended"):
            await service.turn(session_id, "hello again")
        found = await store.load(session_id)
        assert found is not None
        return int(found[0]["turns"])

    assert asyncio.run(scenario()) == 1
