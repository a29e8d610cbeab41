"""``slotgraph graph``: Mermaid and DOT on stdout or to a file; invalid and missing inputs."""

from __future__ import annotations

from pathlib import Path

from cli_support import Invoke
from diagram_checks import assert_dot_is_sane, assert_mermaid_is_sane, mermaid_nodes


def test_mermaid_is_the_default(invoke: Invoke, bella_notte: Path) -> None:
    result = invoke(["graph", str(bella_notte)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("flowchart LR\n")
    assert_mermaid_is_sane(result.stdout)
    assert "task_BookReservation" in mermaid_nodes(result.stdout)


def test_dot_format(invoke: Invoke, bella_notte: Path) -> None:
    result = invoke(["graph", str(bella_notte), "--format", "dot"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("digraph slotgraph {")
    assert_dot_is_sane(result.stdout)


def test_bare_dag_file(invoke: Invoke, bella_notte: Path) -> None:
    from_dir = invoke(["graph", str(bella_notte)]).stdout
    from_file = invoke(["graph", str(bella_notte / "dag.yaml")]).stdout
    assert from_dir == from_file


def test_output_file(invoke: Invoke, bella_notte: Path, tmp_path: Path) -> None:
    target = tmp_path / "bella.dot"
    result = invoke(["graph", str(bella_notte), "-f", "dot", "--output", str(target)])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert f"Wrote dot diagram to {target}" in result.stderr
    assert_dot_is_sane(target.read_text(encoding="utf-8"))


def test_unwritable_output_is_a_usage_error(invoke: Invoke, bella_notte: Path, tmp_path: Path) -> None:
    result = invoke(["graph", str(bella_notte), "--output", str(tmp_path / "no" / "such" / "dir.mmd")])
    assert result.exit_code == 2
    assert "cannot write" in result.stderr
    assert "Traceback" not in result.output


def test_invalid_config_is_not_drawn(invoke: Invoke, broken_dag: Path) -> None:
    result = invoke(["graph", str(broken_dag)])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "invalid — cannot draw it" in result.stderr
    assert "tasks[0].inputs[1]: unknown slot 'preferred_date'" in result.stderr


def test_missing_path(invoke: Invoke, tmp_path: Path) -> None:
    result = invoke(["graph", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "error: " in result.stderr and "no such file or directory" in result.stderr
    assert "fix: pass an agent directory" in result.stderr


def test_unknown_format_is_a_usage_error(invoke: Invoke, bella_notte: Path) -> None:
    result = invoke(["graph", str(bella_notte), "--format", "svg"])
    assert result.exit_code == 2
    assert "svg" in result.output
