"""Loading agents, models and stores for a server; the worker handoff; what views show."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from slotgraph.models.offline import OfflineModel
from slotgraph.runtime import (
    AssistantText,
    AssistantToolCalls,
    InMemoryStore,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from slotgraph.runtime.history import message_from_json
from slotgraph.server import (
    ServerConfigError,
    WorkerConfig,
    load_hosted_agents,
    open_session_store,
    resolve_server_model,
)
from slotgraph.server.factory import app_from_env
from slotgraph.server.settings import API_KEY_ENV, CONFIG_ENV
from slotgraph.server.views import TOOL_FAILED_MESSAGE, public_state, transcript

from .support import BELLA, write_crashy_agent


def test_agents_load_with_description_model_and_mermaid() -> None:
    (hosted,) = load_hosted_agents([BELLA])
    assert hosted.name == "bella_notte"
    assert isinstance(hosted.model, OfflineModel)  # the agent's own `model: offline`
    assert hosted.description.startswith("Takes table reservations")
    assert hosted.mermaid.startswith("flowchart LR")


def test_bad_agent_lists_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ServerConfigError, match="no agents"):
        load_hosted_agents([])
    with pytest.raises(ServerConfigError, match="two agents are named"):
        load_hosted_agents([BELLA, BELLA])
    with pytest.raises(ServerConfigError, match="cannot load"):
        load_hosted_agents([tmp_path / "missing"])
    broken = write_crashy_agent(tmp_path)
    (broken / "agent.yaml").write_text(
        "name: broken\ndag: {slots: [{name: a, source: nowhere}], tasks: []}\n"
    )
    with pytest.raises(ServerConfigError) as caught:
        load_hosted_agents([broken])
    assert "slotgraph validate" in caught.value.fix


def test_model_specs_resolve_or_explain() -> None:
    assert isinstance(resolve_server_model("offline"), OfflineModel)
    with pytest.raises(ServerConfigError, match="nonexistent-provider") as caught:
        load_hosted_agents([BELLA], model="nonexistent-provider:x")
    assert "--model" in caught.value.fix


def test_stores_open_by_url(tmp_path: Path) -> None:
    assert isinstance(open_session_store("memory://"), InMemoryStore)
    sqlite = open_session_store(f"sqlite:///{tmp_path / 'sessions.db'}")
    assert type(sqlite).__name__ == "SQLiteStore"
    with pytest.raises(ServerConfigError, match="unknown store scheme 'carrier-pigeon'") as caught:
        open_session_store("carrier-pigeon://coop")
    assert "memory, sqlite, redis" in str(caught.value) and "--store" in caught.value.fix


def test_worker_config_round_trips_through_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    config = WorkerConfig(
        agent_paths=(str(BELLA),), store_url="memory://", model="offline", max_body_bytes=4096
    )
    env = config.to_env()
    assert WorkerConfig.from_env(env) == config
    assert "k-1" not in env[CONFIG_ENV]
    with pytest.raises(ServerConfigError, match=CONFIG_ENV):
        WorkerConfig.from_env({})
    with pytest.raises(ServerConfigError, match="not valid"):
        WorkerConfig.from_env({CONFIG_ENV: "{"})
    monkeypatch.setenv(CONFIG_ENV, env[CONFIG_ENV])
    monkeypatch.setenv(API_KEY_ENV, "k-1")
    app = app_from_env()
    assert set(app.state.service.agents) == {"bella_notte"}


def test_public_state_replaces_exception_texts_only() -> None:
    sm = {
        "task_results": {
            "A": {"success": False, "error": "ValueError: secret"},
            "B": {"success": False, "error": "fully_booked"},
        }
    }
    state = public_state(sm)
    assert state["task_results"]["A"]["error"] == TOOL_FAILED_MESSAGE
    assert state["task_results"]["B"]["error"] == "fully_booked"
    assert sm["task_results"]["A"]["error"] == "ValueError: secret"  # the input is not touched


def test_transcript_reads_messages_and_plain_dicts() -> None:
    history = [
        UserMessage("hi"),
        AssistantToolCalls((ToolCall("1", "set_city", {"city": "Oslo"}),)),
        ToolResultMessage("1", "set_city", {"error": "RuntimeError: secret"}),
        AssistantText("Which code?"),
        {"role": "user", "text": "", "event": "welcome"},
    ]
    assert transcript(history) == [
        {"role": "user", "text": "hi"},
        {"role": "tool_call", "name": "set_city", "args": {"city": "Oslo"}},
        {"role": "agent", "text": "Which code?"},
        {"role": "user", "text": "", "event": "welcome"},
    ]


def test_agents_built_in_python_can_be_hosted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the default store is a SQLite file in the working directory
    from slotgraph.runtime import Agent
    from slotgraph.server import create_app, hosted

    dag = {
        "slots": [{"name": "city", "source": "user", "setter": "set_city", "ask": "Which city?"}],
        "tasks": [],
    }

    def set_city(city: str) -> dict[str, str]:
        """Store the city."""
        return {"city": city}

    agent = Agent.from_config(dag, tools=[set_city], name="cities")
    item = hosted(agent, OfflineModel(), description="Asks for a city.")
    from fastapi.testclient import TestClient

    with TestClient(create_app([item])) as c:
        listed = c.get("/v1/agents").json()["agents"]
        session_id = c.post("/v1/sessions", json={"agent": "cities"}).json()["session_id"]
        reply = c.post(f"/v1/sessions/{session_id}/messages", json={"text": "Hello"}).json()
        graph = c.get("/v1/agents/cities/graph").json()
    assert listed == [
        {
            "name": "cities",
            "description": "Asks for a city.",
            "slots": 1,
            "tasks": 0,
            "tools": sorted(agent.tools.names),
        }
    ]
    assert reply["view"]["asking"] == "city"
    assert [n["id"] for n in graph["nodes"]] == ["slot:city"] and graph["mermaid"] == ""
    # The embedded default store is SQLite, in the working directory: the session is in its file.
    database = tmp_path / ".slotgraph" / "sessions.db"

    async def stored() -> Any:
        store = open_session_store(f"sqlite:///{database}")
        try:
            return await store.load(session_id)
        finally:
            await store.close()

    record, _version = asyncio.run(stored())
    assert record["turns"] == 1 and transcript(map(message_from_json, record["history"]))[0] == {
        "role": "user",
        "text": "Hello",
    }


def test_a_server_without_agents_is_not_ready(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fastapi.testclient import TestClient

    from slotgraph.server import create_app

    monkeypatch.chdir(tmp_path)

    with TestClient(create_app([])) as c:
        response = c.get("/readyz")
    assert response.status_code == 503 and response.json()["code"] == "not_ready"
