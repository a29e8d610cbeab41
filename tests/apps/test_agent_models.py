"""Per-agent models in a multi-agent app: an agent whose agent.yaml names its own model talks through it
when the conversation reaches it (its guard judge too); the session's model stays the default for the
root and for agents that name none; a model given at load (--model) plays every agent; a scripted or
replayed scenario's model plays every agent."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from slotgraph.apps import Member, build_app, load_app
from slotgraph.models.protocol import ModelRequest, ModelResponse
from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep, call
from slotgraph.server.errors import ServerConfigError
from slotgraph.server.hosting import load_hosted_agents


def clock() -> datetime.datetime:
    return datetime.datetime(2030, 4, 1, 12, 0)


COUNT_DAG = {"slots": [{"name": "count", "source": "user", "setter": "set_count", "ask": "How many?"}]}


def set_count(count: int) -> dict[str, Any]:
    """Record the count."""
    return {"stored": True, "value": count}


def test_an_agent_with_its_own_model_answers_through_it_after_a_transfer() -> None:
    host_model = ScriptedModel([ScriptedStep(tool_calls=(call("transfer_to_agent", agent="counter"),))])
    desk_model = ScriptedModel(
        [ScriptedStep(tool_calls=(call("set_count", count=3),)), ScriptedStep(text="Three it is.")]
    )
    host = Agent.from_config({"slots": [], "tasks": []}, name="host", model=host_model)
    counter = Agent.from_config(COUNT_DAG, tools=[set_count], name="counter", model=desk_model)
    root = build_app("team", "host", [Member(host, handoffs=("counter",)), Member(counter, "Counts.")])
    result = root.session(clock=clock).send("three")
    assert result.agent == "counter" and result.state["filled"] == {"count": 3}
    host_model.assert_complete()
    desk_model.assert_complete()


def test_without_agent_models_the_sessions_model_answers_for_every_agent() -> None:
    desk_model = ScriptedModel([])  # never called
    session_model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("transfer_to_agent", agent="counter"),)),
            ScriptedStep(tool_calls=(call("set_count", count=2),)),
            ScriptedStep(text="Two."),
        ]
    )
    host = Agent.from_config({"slots": [], "tasks": []}, name="host")
    counter = Agent.from_config(COUNT_DAG, tools=[set_count], name="counter", model=desk_model)
    root = build_app("team", "host", [Member(host, handoffs=("counter",)), Member(counter, "Counts.")])
    root.session(clock=clock, model=session_model, agent_models=False).send("two")
    session_model.assert_complete()
    assert desk_model.remaining == 0 and not desk_model.requests


class _Judge:
    """A model that only judges (ALLOW), counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    async def generate(self, request: ModelRequest) -> ModelResponse:
        self.calls += 1
        return ModelResponse(text="ALLOW")


def _write_app(tmp_path: Path, desk_model: str | None) -> Path:
    (tmp_path / "host").mkdir(parents=True)
    (tmp_path / "host" / "agent.yaml").write_text(
        yaml.safe_dump({"name": "host", "instruction": "Route.", "dag": {"slots": [], "tasks": []}})
    )
    (tmp_path / "desk").mkdir()
    desk: dict[str, Any] = {"name": "desk", "instruction": "Count.", "dag": COUNT_DAG}
    if desk_model is not None:
        desk["model"] = desk_model
    (tmp_path / "desk" / "agent.yaml").write_text(yaml.safe_dump(desk))
    tools = 'def set_count(count: int) -> dict:\n    """Record the count."""\n    return {"value": count}\n'
    (tmp_path / "desk" / "tools.py").write_text(tools)
    app = {
        "name": "team",
        "root": "host",
        "agents": [{"path": "host", "handoffs": ["desk"]}, {"path": "desk", "description": "Counts things."}],
    }
    (tmp_path / "app.yaml").write_text(yaml.safe_dump(app))
    return tmp_path


def _desk_script(tmp_path: Path) -> Path:
    script = tmp_path / "desk_script.json"
    steps = [{"tool_calls": [{"name": "set_count", "args": {"count": 4}}]}, {"text": "Four, noted."}]
    script.write_text(json.dumps(steps))
    return script


def test_an_agent_yaml_model_is_used_for_that_agent_and_the_offline_default_for_the_rest(
    tmp_path: Path,
) -> None:
    script = _desk_script(tmp_path)
    root = load_app(_write_app(tmp_path / "app", f"scripted:{script}"))
    desk = root.team["desk"] if root.team is not None else None
    assert desk is not None and desk.own_model == f"scripted:{script}"
    assert root.own_model is None  # the host names none: the session's model (offline by default)
    session = root.session(clock=clock)
    result = session.send("I need to count things")  # the offline host routes by the desk's description
    assert result.agent == "desk"
    assert result.state["filled"] == {"count": 4}
    assert [e.text for e in result.events if e.kind == "text"] == ["Four, noted."]


def test_a_model_given_at_load_plays_every_agent(tmp_path: Path) -> None:
    script = _desk_script(tmp_path)
    root = load_app(_write_app(tmp_path / "app", f"scripted:{script}"), model="offline")
    assert root.team is not None and root.team["desk"].own_model is None
    result = root.session(clock=clock).send("I need to count 2 things")
    assert result.agent == "desk" and "Four, noted." not in [getattr(e, "text", "") for e in result.events]
    hosted = load_hosted_agents([tmp_path / "app"], model="offline")  # slotgraph serve --model offline
    (app,) = hosted
    assert app.agent.team is not None and all(a.model is not None for a in app.agent.team)
    assert all(a.own_model is None for a in app.agent.team)


def test_the_guard_judge_of_an_agent_defaults_to_that_agents_model() -> None:
    host_model = ScriptedModel([ScriptedStep(tool_calls=(call("transfer_to_agent", agent="counter"),))])
    guard = {"name": "polite", "check": {"llm": "Is the reply rude?"}, "on_violation": "suppress"}

    class _DeskModel(_Judge):
        async def generate(self, request: ModelRequest) -> ModelResponse:
            if request.metadata.get("judge"):
                return await super().generate(request)
            return ModelResponse(text="How many?")

    desk_model = _DeskModel()
    host = Agent.from_config({"slots": [], "tasks": []}, name="host", model=host_model)
    counter = Agent.from_config(
        COUNT_DAG, tools=[set_count], name="counter", model=desk_model, response_guards=[guard]
    )
    root = build_app("team", "host", [Member(host, handoffs=("counter",)), Member(counter, "Counts.")])
    result = root.session(clock=clock, model=host_model).send("count")
    assert result.agent == "counter"
    assert [e.text for e in result.events if e.kind == "text"] == ["How many?"]  # judged ALLOW
    assert desk_model.calls == 1  # the judge call went to the desk's own model
    host_model.assert_complete()  # the session's model was not asked to judge


def test_serve_builds_every_agents_own_model_at_start_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    app = _write_app(tmp_path / "app", "openai:gpt-4o-mini")
    with pytest.raises(ServerConfigError, match="OPENAI_API_KEY"):
        load_hosted_agents([app])


def test_a_model_spec_given_at_load_is_one_model_for_the_whole_app(tmp_path: Path) -> None:
    """`slotgraph chat --model scripted:FILE` on an app: one script plays every agent, in order."""
    script = tmp_path / "script.json"
    steps = [
        {"tool_calls": [{"name": "transfer_to_agent", "args": {"agent": "desk"}}]},
        {"tool_calls": [{"name": "set_count", "args": {"count": 5}}]},
        {"text": "Five."},
    ]
    script.write_text(json.dumps(steps))
    root = load_app(_write_app(tmp_path / "app", None), model=f"scripted:{script}")
    assert root.team is not None
    assert len({id(agent.model) for agent in root.team}) == 1
    assert {agent.model_spec for agent in root.team} == {f"scripted:{script}"}
    result = root.session(clock=clock).send("five")
    assert result.agent == "desk" and result.state["filled"] == {"count": 5}
