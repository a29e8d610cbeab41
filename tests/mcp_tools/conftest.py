"""Fixtures for the MCP tool-source tests: a Bella Notte agent whose executors live on a real MCP server."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

pytest.importorskip("mcp", reason="the MCP tests need the 'mcp' SDK (pip install 'slotgraph[mcp]')")

ROOT = Path(__file__).resolve().parents[2]
BELLA = ROOT / "examples" / "bella_notte"
SERVER = Path(__file__).with_name("bella_mcp_server.py")
SERVED = ("find_available_times", "book_reservation", "set_selected_time")
"""Bella's tools the MCP server serves (two executors and a setter); the agent's module keeps the rest."""


@dataclass(frozen=True)
class McpAgentDir:
    """An agent directory whose executors come from the MCP server; files steering the server."""

    path: Path
    control: Path
    log: Path

    def ran(self) -> list[str]:
        return self.log.read_text(encoding="utf-8").split() if self.log.exists() else []


def write_agent(tmp_path: Path, mcp: object) -> Path:
    """A copy of Bella Notte with the served tools removed from tools.py and ``tools.mcp`` set to ``mcp``."""
    agent = tmp_path / "agent"
    shutil.copytree(BELLA, agent, ignore=shutil.ignore_patterns("evaluations", "scenarios"))
    tools = (agent / "tools.py").read_text(encoding="utf-8")
    for name in SERVED:
        tools = tools.replace(f'    "{name}",\n', "")
    (agent / "setters.py").write_text(tools, encoding="utf-8")
    (agent / "tools.py").unlink()
    config = yaml.safe_load((agent / "agent.yaml").read_text(encoding="utf-8"))
    config["tools"] = {"module": "setters.py", "mcp": mcp}
    (agent / "agent.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return agent


@pytest.fixture
def stdio_agent(tmp_path: Path) -> Iterator[McpAgentDir]:
    control, log = tmp_path / "control", tmp_path / "server.log"
    mcp = {
        "command": sys.executable,
        "args": [str(SERVER)],
        "env": {"BELLA_MCP_CONTROL": str(control), "BELLA_MCP_LOG": str(log)},
        "timeout": 5,
    }
    yield McpAgentDir(write_agent(tmp_path, mcp), control, log)
