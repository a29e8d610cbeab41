"""Reserved tool names: ``set_variables`` and ``transition_topic`` are built-ins the runtime runs itself, by
name, so an agent's own tool of that name would silently never run. It is refused instead — at load and by
``slotgraph validate`` — naming the tool, where it is defined and the fix; an app agent's own
``transfer_to_agent`` beside ``handoffs`` likewise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from slotgraph.apps import load_app
from slotgraph.cli.main import create_app
from slotgraph.config import ConfigValidationError, load_definition
from slotgraph.runtime import Agent
from slotgraph.runtime.errors import AgentLoadError

DAG = {"slots": [{"name": "size", "source": "user", "setter": "set_size", "ask": "How many?"}]}
TOOLS = '''
def set_size(size: int) -> dict:
    """Record the size."""
    return {"stored": True, "value": size}


def set_variables(name: str) -> dict:
    """The agent's own variable writer."""
    return {"stored": True}
'''


def _agent(path: Path, module: str = TOOLS, **extra: Any) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "agent.yaml").write_text(yaml.safe_dump({"name": path.name, "dag": DAG, **extra}))
    (path / "tools.py").write_text(module)
    return path


def test_a_tools_module_function_with_a_reserved_name_is_a_load_error(tmp_path: Path) -> None:
    agent = _agent(tmp_path / "shop")
    with pytest.raises(ConfigValidationError) as info:
        load_definition(agent)
    [issue] = [i for i in info.value.issues if i.code == "reserved_tool_name"]
    assert issue.location.startswith("tools")
    assert "tools.py defines 'set_variables'" in issue.message and "never run" in issue.message
    assert "rename the function" in issue.fix
    assert str(agent / "agent.yaml") in str(info.value)  # the file the problem is reported against


def test_slotgraph_validate_reports_it(tmp_path: Path) -> None:
    agent = _agent(tmp_path / "shop", TOOLS.replace("def set_variables", "def transition_topic"))
    result = CliRunner().invoke(create_app(), ["validate", str(agent)])
    assert result.exit_code != 0
    assert "reserved_tool_name" in result.output or "transition_topic" in result.output
    assert "rename the function" in " ".join(result.output.split())


def test_an_http_tool_with_a_reserved_name_is_a_load_error(tmp_path: Path) -> None:
    http = [{"name": "transition_topic", "url": "http://127.0.0.1:9/topic"}]
    tools = {"module": "tools.py", "http": http}
    agent = _agent(tmp_path / "shop", TOOLS.replace("def set_variables", "def other"), tools=tools)
    with pytest.raises(ConfigValidationError) as info:
        load_definition(agent)
    [issue] = [i for i in info.value.issues if i.code == "reserved_tool_name"]
    assert issue.location == "tools.http[0].name"
    assert "the HTTP call would never be made" in issue.message


def test_a_python_given_tool_with_a_reserved_name_is_refused() -> None:
    def transition_topic(topic: str) -> dict[str, Any]:
        """My own topic tool."""
        return {"topic": topic}

    with pytest.raises(AgentLoadError, match=r"'transition_topic'.*never run — rename"):
        Agent.from_config(DAG, tools=[transition_topic])


def test_other_built_ins_may_still_be_replaced() -> None:
    def end_session(reason: str = "") -> dict[str, Any]:
        """The agent's own ending."""
        return {"ended": True, "reason": reason}

    agent = Agent.from_config({"slots": [], "tasks": []}, tools=[end_session])
    assert agent.tools.get("end_session") is not None


def test_an_app_agents_own_transfer_tool_beside_handoffs_is_an_error(tmp_path: Path) -> None:
    own = 'def transfer_to_agent(agent: str) -> dict:\n    """Mine."""\n    return {}\n'
    _agent(tmp_path / "host", own, dag={"slots": [], "tasks": []})
    _agent(tmp_path / "desk", TOOLS.replace("def set_variables", "def other"))
    app = {
        "name": "team",
        "root": "host",
        "agents": [{"path": "host", "handoffs": ["desk"]}, {"path": "desk"}],
    }
    (tmp_path / "app.yaml").write_text(yaml.safe_dump(app))
    with pytest.raises(ConfigValidationError) as info:
        load_app(tmp_path)
    [issue] = [i for i in info.value.issues if i.code == "reserved_tool_name"]
    assert issue.location == "agents[0].handoffs"
    assert "routing:" in issue.fix
