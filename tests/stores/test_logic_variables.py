"""Agent-logic variables persist with the session in every store (memory, SQLite, Redis, PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep

from .conftest import Backend

CLINIC = Path(__file__).resolve().parents[2] / "examples" / "clinic"


def test_variables_survive_a_new_session_object_on_every_store(backend: Backend) -> None:
    async def scenario() -> None:
        store = backend.open()
        model = ScriptedModel([ScriptedStep(text="Hello"), ScriptedStep(text="Again")])
        agent = Agent.load(CLINIC, model=model)
        first = agent.session(session_id="s", store=store, metadata={"caller_phone": "+15550100"})
        await first.asend("hi")
        second = agent.session(session_id="s", store=backend.again(store))  # a fresh object, same store
        result = await second.asend("still me")
        assert result.variables["known_name"] == "Ada Lovelace"
        assert result.variables["messages"] == 2  # counted across the two session objects
        stored, _ = await store.load("s") or ({}, 0)
        assert stored["logic"]["started"] is True
        assert stored["logic"]["variables"]["patient_id"] == "P-1"
        assert "caller_phone" not in stored["logic"]["variables"]  # linked: read through, never stored

    backend.run(scenario)
