"""Every Python entry that takes a model accepts a ``provider:model`` string, and defaults like agent.yaml."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import slotgraph
from slotgraph import Agent
from slotgraph.models.offline import OfflineModel
from slotgraph.runtime.agent import DEFAULT_MODEL_SPEC
from slotgraph.server import hosted

ROOT = Path(__file__).resolve().parents[2]
DAG: dict[str, Any] = {
    "slots": [{"name": "city", "source": "user", "setter": "set_city", "ask": "Which city?"}],
    "tasks": [],
}


def set_city(city: str) -> dict[str, Any]:
    """Store the city."""
    return {"stored": True, "value": city}


def test_from_config_takes_a_model_string() -> None:
    agent = Agent.from_config(DAG, tools=[set_city], model="offline")
    assert agent.model_spec == "offline"
    session = agent.session()
    assert isinstance(session.model, OfflineModel)
    assert session.send("hello").text == "Which city?"


def test_from_config_without_a_model_uses_agent_yaml_s_default() -> None:
    assert DEFAULT_MODEL_SPEC == "offline"
    agent = Agent.from_config(DAG, tools=[set_city])
    assert agent.model_spec == DEFAULT_MODEL_SPEC
    assert agent.session().send("hello").text == "Which city?"


def test_a_bare_dag_file_gets_the_default_model_too() -> None:
    agent = Agent.load(ROOT / "examples" / "bella_notte" / "dag.yaml")
    assert agent.model_spec == DEFAULT_MODEL_SPEC
    assert agent.session().send("Hi").text


def test_hosted_takes_a_model_string() -> None:
    agent = Agent.from_config(DAG, tools=[set_city])
    assert isinstance(hosted(agent, "offline").model, OfflineModel)
    assert isinstance(hosted(agent).model, OfflineModel)


def test_dir_shows_the_public_api() -> None:
    names = [n for n in dir(slotgraph) if not n.startswith("_")]
    assert names == sorted(n for n in slotgraph.__all__ if not n.startswith("_"))
    assert "Agent" in names and "importlib" not in names and "TYPE_CHECKING" not in names
    for name in names:
        assert getattr(slotgraph, name) is not None
