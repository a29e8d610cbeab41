"""Agent definitions: agent.yaml, bare DAG files, tools discovered with ast (never imported)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from slotgraph.config import (
    AgentConfig,
    ConfigLoadError,
    ConfigValidationError,
    discover_tool_names,
    load_definition,
)

from .dags import spec_dag

TOOLS = """
import os

def set_num_guests(count: int) -> dict: ...
def set_date(date: str) -> dict: ...
async def set_chosen_time(time: str) -> dict: ...
def set_name(name: str) -> dict: ...
def check_availability(num_guests, date): ...
def make_reservation(**kw): ...
def escalate(): ...
class NotATool: ...
def _helper(): ...
raise SystemExit("tools must never be executed at load time")
"""


def _agent(tmp_path: Path, agent: dict[str, object], tools: str | None = TOOLS) -> Path:
    (tmp_path / "agent.yaml").write_text(yaml.safe_dump(agent))
    (tmp_path / "dag.yaml").write_text(yaml.safe_dump(spec_dag()))
    if tools is not None:
        (tmp_path / "tools.py").write_text(tools)
    return tmp_path


def test_discover_tool_names(tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(TOOLS)
    names = discover_tool_names(tmp_path / "tools.py")
    assert "set_chosen_time" in names and "_helper" in names
    assert "NotATool" not in names and "os" not in names


def test_discover_tool_names_syntax_error(tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text("def broken(:\n")
    with pytest.raises(ConfigLoadError, match=r"tools\.py:1:\d+: syntax error"):
        discover_tool_names(tmp_path / "tools.py")


def test_load_agent_directory(tmp_path: Path) -> None:
    (tmp_path / "instruction.md").write_text("You are Bella.")
    _agent(
        tmp_path, {"name": "bella", "dag": "dag.yaml", "instruction_file": "instruction.md", "x-team": "a"}
    )
    for target in (tmp_path, tmp_path / "agent.yaml"):
        definition = load_definition(target)
        assert definition.kind == "agent"
        assert definition.agent is not None and definition.agent.name == "bella"
        assert definition.agent.model == "offline"
        assert definition.instruction == "You are Bella."
        assert definition.tools_path == tmp_path / "tools.py"
        assert definition.base_dir == tmp_path
        assert definition.raw_dag == spec_dag()
        assert definition.dag.slots[0].name == "num_guests"
        assert definition.report.ok


def test_inline_dag_and_inline_instruction(tmp_path: Path) -> None:
    _agent(
        tmp_path, {"name": "bella", "dag": spec_dag(), "instruction": "Be kind.", "model": "openai:gpt-4o"}
    )
    definition = load_definition(tmp_path)
    assert definition.instruction == "Be kind."
    assert definition.agent is not None and definition.agent.model == "openai:gpt-4o"


def test_agent_reports_everything_at_once(tmp_path: Path) -> None:
    dag = spec_dag()
    dag["slots"][1]["setter"] = "set_dat"
    (tmp_path / "dag.yaml").write_text(yaml.safe_dump(dag))
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "agent.yaml").write_text(
        yaml.safe_dump({"name": "bella", "dag": "dag.yaml", "modle": "x", "instruction_file": "missing.md"})
    )
    with pytest.raises(ConfigValidationError) as info:
        load_definition(tmp_path)
    found = {(i.code, i.location) for i in info.value.issues}
    assert ("unknown_key", "modle") in found
    assert ("missing_file", "instruction_file") in found
    assert ("unknown_tool", "dag.slots[1].setter") in found
    assert "did you mean 'model'" in str(info.value)


def test_agent_structure_errors(tmp_path: Path) -> None:
    _agent(tmp_path, {"dag": "nowhere.yaml", "instruction": "a", "instruction_file": "b.md"})
    with pytest.raises(ConfigValidationError) as info:
        load_definition(tmp_path)
    found = {(i.code, i.location) for i in info.value.issues}
    assert ("missing_field", "name") in found
    assert ("missing_file", "dag") in found
    assert any("not both" in i.message for i in info.value.issues)


def test_missing_explicit_tools_module_is_an_error(tmp_path: Path) -> None:
    _agent(tmp_path, {"name": "a", "dag": "dag.yaml", "tools": "my_tools.py"}, tools=None)
    with pytest.raises(ConfigValidationError) as info:
        load_definition(tmp_path)
    assert ("missing_file", "tools") in {(i.code, i.location) for i in info.value.issues}


def test_absent_default_tools_module_is_a_warning(tmp_path: Path) -> None:
    _agent(tmp_path, {"name": "a", "dag": "dag.yaml"}, tools=None)
    definition = load_definition(tmp_path)
    assert definition.tools_path is None
    assert [w.code for w in definition.report.warnings] == ["no_tools_module"]


def test_bare_dag_file_with_and_without_sibling_tools(tmp_path: Path) -> None:
    (tmp_path / "dag.yaml").write_text(yaml.safe_dump(spec_dag()))
    definition = load_definition(tmp_path / "dag.yaml")
    assert definition.kind == "dag" and definition.agent is None and definition.tools_path is None
    (tmp_path / "tools.py").write_text("def set_num_guests(): ...\n")
    with pytest.raises(ConfigValidationError, match="set_date"):
        load_definition(tmp_path / "dag.yaml")


def test_unrecognised_files(tmp_path: Path) -> None:
    (tmp_path / "other.yaml").write_text("hello: world\n")
    with pytest.raises(ConfigLoadError, match="neither an agent file"):
        load_definition(tmp_path / "other.yaml")
    with pytest.raises(ConfigLoadError, match=r"no agent\.yaml"):
        load_definition(tmp_path)
    with pytest.raises(ConfigLoadError, match="no such file"):
        load_definition(tmp_path / "missing")


def test_agent_config_model() -> None:
    config = AgentConfig.model_validate({"name": "a", "dag": {"slots": []}, "x-anything": 1})
    assert config.tools == "tools.py" and config.channel is None
