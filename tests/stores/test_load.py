"""200 concurrent sessions on each durable store, through the service's session core: 0 errors.

One process, one store object shared by every request (as a server has), 200 sessions each booking in two
turns, all at once. Before issue 24 the Redis client's pool refused connections past its size ("too many
connections") and PostgreSQL opened a connection per turn past the server's ``max_connections``; now both
pools *wait*. The pools are made smaller than the load on purpose (Redis 20, PostgreSQL 5 statement and 20
lock connections), so waiting — not a large pool — is what is tested. Every booking must have run exactly
once, and every session must be saved and free (its lock released) at the end.
"""

from __future__ import annotations

import asyncio
import datetime
from pathlib import Path
from typing import Any

import pytest

from slotgraph.runtime import Agent, ModelRequest, ModelResponse, ToolCall, UserMessage
from slotgraph.server import HostedAgent
from slotgraph.server.sessions import SessionService

from .conftest import make_backend

SESSIONS = 200
DAG = {
    "slots": [
        {"name": "topic", "source": "user", "setter": "set_topic", "ask": "What is it about?"},
        {"name": "ref", "source": "task:Book"},
    ],
    "tasks": [{"name": "Book", "tool": "book", "inputs": ["topic"], "outputs": {"ref": "ref"},
               "success_check": "success", "then_say": "Booked: {ref}.", "terminal": True}],
}  # fmt: skip
POOLS = {"redis": {"pool_size": 20}, "postgresql": {"pool_size": 5, "lock_pool_size": 20}, "sqlite": {}}


class TopicModel:
    async def generate(self, request: ModelRequest) -> ModelResponse:
        last = request.messages[-1]
        if isinstance(last, UserMessage) and last.text and last.text != "hello":
            call = ToolCall(f"c{len(request.messages)}", "set_topic", {"topic": last.text})
            return ModelResponse(tool_calls=(call,))
        return ModelResponse(text="What is it about?")


def clock() -> datetime.datetime:
    return datetime.datetime(2026, 7, 11, 12, 0, tzinfo=datetime.UTC)


@pytest.mark.parametrize("kind", ["sqlite", "redis", "postgresql"])
def test_200_concurrent_sessions_with_no_error(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    backend = make_backend(kind, request, tmp_path, lock_ttl=30.0)
    booked: list[str] = []

    def set_topic(topic: str) -> dict[str, Any]:
        """Record the topic."""
        return {"stored": True, "value": topic}

    async def book(topic: str, idempotency_key: str) -> dict[str, Any]:
        """Book it."""
        booked.append(idempotency_key)
        await asyncio.sleep(0)  # let the other sessions interleave here
        return {"success": True, "ref": f"R-{topic}"}

    agent = Agent.from_config(DAG, tools=[set_topic, book], name="booker")

    async def scenario() -> None:
        store = backend.open(**POOLS[kind])
        service = SessionService([HostedAgent(agent, TopicModel())], store, clock=clock)
        ids = await asyncio.gather(*(service.create("booker") for _ in range(SESSIONS)))

        async def converse(index: int, session_id: str) -> str:
            await service.turn(session_id, "hello")
            outcome = await service.turn(session_id, f"t{index}")
            return outcome.result.text

        replies = await asyncio.gather(
            *(converse(i, sid) for i, sid in enumerate(ids)), return_exceptions=True
        )
        errors = [r for r in replies if isinstance(r, BaseException)]
        assert errors == [], f"{len(errors)} of {SESSIONS} sessions failed, e.g. {errors[0]!r}"
        assert replies == [f"Booked: R-t{i}." for i in range(SESSIONS)]
        assert sorted(booked) == sorted(f"{sid}:book:1" for sid in ids)  # each booking exactly once
        for sid in ids[:: SESSIONS // 10]:  # saved, and free: a lock held now would time out
            found = await store.load(sid)
            assert found is not None and found[0]["turns"] == 2
            async with asyncio.timeout(5):
                async with store.lock(sid):
                    pass

    backend.run(scenario)
