"""``tools: {mcp: ...}`` in agent.yaml: what is accepted, and clear errors for what is not."""

from __future__ import annotations

import builtins
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from slotgraph.config import load_definition
from slotgraph.config.errors import ConfigValidationError
from slotgraph.config.tool_sources import McpServerConfig
from slotgraph.mcp_tools import McpToolError, result_value
from slotgraph.mcp_tools.source import McpToolSource
from slotgraph.runtime import Agent
from slotgraph.runtime.errors import AgentLoadError

from .conftest import SERVER, write_agent


def _retool(agent: Path, mcp: Any, **extra: Any) -> None:
    config = yaml.safe_load((agent / "agent.yaml").read_text(encoding="utf-8"))
    config["tools"] = {"module": "setters.py", "mcp": mcp, **extra}
    (agent / "agent.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


def test_the_mapping_forms_parse(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, "http://127.0.0.1:9/mcp")
    definition = load_definition(agent)
    assert definition.mcp_servers == (McpServerConfig(url="http://127.0.0.1:9/mcp"),)
    assert definition.tools_path == agent / "setters.py"
    _retool(agent, [{"command": "python", "args": ["s.py"], "tools": ["book_reservation"]}, "https://h/mcp"])
    servers = load_definition(agent).mcp_servers
    assert [s.label for s in servers] == ["python s.py", "https://h/mcp"]
    assert servers[0].tools == ("book_reservation",) and servers[0].timeout == 30


@pytest.mark.parametrize(
    ("mcp", "expected"),
    [
        ({"command": "python", "url": "http://h/mcp"}, "exactly one of 'command'"),
        ({"args": ["x"]}, "exactly one of 'command'"),
        ("localhost:8000/mcp", "not an http:// or https:// URL"),
        ({"command": "python", "timeout": 0}, "greater than 0"),
        ({"command": "python", "colour": "red"}, "colour"),
    ],
)
def test_bad_mcp_entries_are_located_errors(tmp_path: Path, mcp: Any, expected: str) -> None:
    agent = write_agent(tmp_path, mcp)
    with pytest.raises(ConfigValidationError) as info:
        load_definition(agent)
    message = str(info.value)
    assert expected in message and "tools.mcp" in message and "agent.yaml" in message


def test_a_missing_module_is_named(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, "http://127.0.0.1:9/mcp")
    (agent / "setters.py").unlink()
    with pytest.raises(ConfigValidationError, match=r"tools\.module.*'setters\.py' not found"):
        load_definition(agent)


def _stdio(tmp_path: Path, **extra: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(SERVER)], **extra}


def test_a_dag_tool_no_source_provides_fails_the_load(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, _stdio(tmp_path, tools=["find_available_times"]))
    with pytest.raises(ConfigValidationError, match="book_reservation"):
        Agent.load(agent)


def test_a_tool_the_server_lacks_is_named_with_what_it_has(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, _stdio(tmp_path, tools=["book_reservation", "cancel_booking"]))
    with pytest.raises(AgentLoadError, match=r"no tool 'cancel_booking'; it lists book_reservation, fail"):
        Agent.load(agent)


def test_a_name_clash_with_the_tools_module(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, _stdio(tmp_path))
    setters = agent / "setters.py"
    setters.write_text(
        setters.read_text(encoding="utf-8").replace("__all__ = [\n", '__all__ = [\n    "fail_loudly",\n')
        + "\n\ndef fail_loudly(reason: str) -> str:\n    return reason\n",
        encoding="utf-8",
    )
    with pytest.raises(AgentLoadError, match=r"'fail_loudly' of MCP server .* clashes with the tools module"):
        Agent.load(agent)


def test_a_command_that_is_not_an_mcp_server(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, {"command": sys.executable, "args": ["-c", "pass"], "timeout": 5})
    with pytest.raises(AgentLoadError, match=r"cannot list its tools .* run the server by hand"):
        Agent.load(agent)


def test_without_the_sdk_the_error_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_mcp(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "mcp" or name.startswith("mcp."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_mcp)
    agent = write_agent(tmp_path, _stdio(tmp_path))
    with pytest.raises(AgentLoadError, match=r"pip install 'slotgraph\[mcp\]'"):
        Agent.load(agent)


def test_an_error_result_and_its_arguments_check(tmp_path: Path) -> None:
    source = McpToolSource(McpServerConfig(command=sys.executable, args=(str(SERVER),), timeout=5))
    try:
        tools = {tool.name: tool for tool in source.load_tools()}
        fail = tools["fail_loudly"]
        assert fail.check_args({"reason": 3}) == (None, "reason: 3 is not of type 'string'")
        assert fail.check_args({}) == (None, "(arguments): 'reason' is a required property")
        import asyncio

        with pytest.raises(McpToolError, match="reported an error"):
            asyncio.run(fail.invoke({"reason": "closed"}, None))  # type: ignore[arg-type]
    finally:
        source.close()
    with pytest.raises(McpToolError, match="closed"):
        source.load_tools()


@pytest.mark.parametrize(
    ("result", "value"),
    [
        ({"content": [{"type": "text", "text": "{}"}], "structuredContent": {"a": 1}}, {"a": 1}),
        ({"content": [{"type": "text", "text": "[1, 2]"}]}, [1, 2]),
        ({"content": [{"type": "text", "text": "hello"}]}, {"content": "hello"}),
        (
            {"content": [{"type": "text", "text": "a"}, {"type": "image", "mimeType": "image/png"}]},
            {"content": "a\n[image image/png]"},
        ),
    ],
)
def test_result_values(result: dict[str, Any], value: Any) -> None:
    assert result_value("t", result) == value
