"""``slotgraph schema`` (DAG and agent.yaml JSON Schemas) and ``slotgraph version``; the entry points."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from pathlib import Path

from cli_support import REPO_ROOT, Invoke

from slotgraph import __version__
from slotgraph.config import agent_json_schema, dag_json_schema


def test_dag_schema(invoke: Invoke) -> None:
    result = invoke(["schema"])
    assert result.exit_code == 0, result.output
    schema = json.loads(result.stdout)
    assert schema == json.loads(json.dumps(dag_json_schema()))
    assert "slots" in schema["properties"] and "tasks" in schema["properties"]


def test_agent_schema(invoke: Invoke) -> None:
    result = invoke(["schema", "--agent"])
    assert result.exit_code == 0, result.output
    schema = json.loads(result.stdout)
    assert schema == json.loads(json.dumps(agent_json_schema()))
    assert {"name", "dag", "model"} <= set(schema["properties"])


def test_schema_to_file(invoke: Invoke, tmp_path: Path) -> None:
    target = tmp_path / "dag.schema.json"
    result = invoke(["schema", "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert json.loads(target.read_text(encoding="utf-8")) == json.loads(json.dumps(dag_json_schema()))
    assert "Wrote DAG config schema to" in result.stderr


def test_version(invoke: Invoke) -> None:
    result = invoke(["version"])
    assert result.exit_code == 0
    python = f"python {platform.python_version()} ({platform.python_implementation()})"
    assert result.stdout == f"slotgraph {__version__}\n{python}\n"


def test_no_command_shows_help(invoke: Invoke) -> None:
    result = invoke([])
    assert "validate" in result.output and "graph" in result.output and "schema" in result.output
    assert "Exit codes: 0 ok, 1 invalid config, 2 usage error" in result.output


def test_unknown_command_is_a_usage_error(invoke: Invoke) -> None:
    assert invoke(["frobnicate"]).exit_code == 2


def test_python_dash_m_slotgraph(tmp_path: Path) -> None:
    src = str(REPO_ROOT / "src")
    env = {"PYTHONPATH": src, "PATH": "", "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "slotgraph", "validate", str(REPO_ROOT / "examples" / "bella_notte")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "valid (9 slots, 2 tasks)" in done.stdout
