"""``slotgraph validate``: valid example, broken configs, unusable paths, ``--json``, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from cli_support import Invoke


def test_valid_agent_directory(invoke: Invoke, bella_notte: Path) -> None:
    result = invoke(["validate", str(bella_notte)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"✓ {bella_notte}: valid (9 slots, 2 tasks)"


def test_agent_file_and_bare_dag_file(invoke: Invoke, bella_notte: Path) -> None:
    result = invoke(["validate", str(bella_notte / "agent.yaml"), str(bella_notte / "dag.yaml")])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        f"✓ {bella_notte / 'agent.yaml'}: valid (9 slots, 2 tasks)",
        f"✓ {bella_notte / 'dag.yaml'}: valid (9 slots, 2 tasks)",
    ]


def test_broken_file_lists_every_issue_with_location_and_fix(invoke: Invoke, broken_dag: Path) -> None:
    result = invoke(["validate", str(broken_dag)])
    assert result.exit_code == 1
    out = result.stdout
    assert f"✗ {broken_dag}: invalid — 4 problems" in out
    # Square brackets in locations are printed, not swallowed as rich markup.
    assert "slots[0].requires_readbak: unknown key 'requires_readbak'" in out
    assert "did you mean 'requires_readback'?" in out
    assert "tasks[0].inputs[1]: unknown slot 'preferred_date'" in out
    # each issue starts with file:line:column of the node its location points to
    assert f"    error    {broken_dag}:5:5: slots[0].requires_readbak: unknown key" in out
    assert f"    error    {broken_dag}:11:26: tasks[0].inputs[1]: unknown slot 'preferred_date'" in out
    assert out.count("fix: ") == 4
    assert "Traceback" not in result.output


def test_yaml_syntax_error_is_an_invalid_config(invoke: Invoke, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("slots: [\n  - name: x\n", encoding="utf-8")
    result = invoke(["validate", str(bad)])
    assert result.exit_code == 1
    assert f"✗ {bad}: invalid" in result.stdout
    assert ":2:" in result.stdout  # the line of the syntax error
    assert "Traceback" not in result.output


def test_agent_pointing_at_a_missing_dag(invoke: Invoke, tmp_path: Path) -> None:
    (tmp_path / "agent.yaml").write_text("name: x\ndag: nowhere.yaml\n", encoding="utf-8")
    result = invoke(["validate", str(tmp_path)])
    assert result.exit_code == 1
    assert "dag: DAG file 'nowhere.yaml' not found" in result.stdout


def test_missing_path_is_a_usage_error(invoke: Invoke, tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    result = invoke(["validate", str(missing)])
    assert result.exit_code == 2
    assert f"✗ {missing}: no such file or directory" in result.stdout
    assert "fix: pass an agent directory, an agent.yaml, or a DAG YAML/JSON file" in result.stdout


def test_directory_without_agent_yaml_is_a_usage_error(invoke: Invoke, tmp_path: Path) -> None:
    result = invoke(["validate", str(tmp_path)])
    assert result.exit_code == 2
    assert "no agent.yaml in this directory" in result.stdout


def test_every_path_is_checked_and_the_worst_exit_code_wins(
    invoke: Invoke, bella_notte: Path, broken_dag: Path, tmp_path: Path
) -> None:
    invalid_only = invoke(["validate", str(bella_notte), str(broken_dag)])
    assert invalid_only.exit_code == 1
    assert "valid (9 slots, 2 tasks)" in invalid_only.stdout
    assert "invalid — 4 problems" in invalid_only.stdout
    with_missing = invoke(["validate", str(broken_dag), str(tmp_path / "nope"), str(bella_notte)])
    assert with_missing.exit_code == 2
    assert len([line for line in with_missing.stdout.splitlines() if line[:1] in "✓✗"]) == 3


def test_warnings_are_shown_and_do_not_fail(invoke: Invoke, tmp_path: Path) -> None:
    dag = tmp_path / "dag.yaml"  # a user slot without 'ask': valid, with a warning
    dag.write_text(
        "slots:\n  - name: size\n    setter: set_size\n"
        "tasks:\n  - name: T\n    tool: t\n    inputs: [size]\n    success_check: ok\n",
        encoding="utf-8",
    )
    text = invoke(["validate", str(dag)])
    assert text.exit_code == 0, text.output
    assert text.stdout.startswith(f"✓ {dag}: valid (1 slot, 1 task)")
    # a missing key is located at the mapping that lacks it: the slot, line 2 column 5
    assert f"    warning  {dag}:2:5: slots[0].ask: " in text.stdout
    document = json.loads(invoke(["validate", "--json", str(dag)]).stdout)
    assert document["ok"] is True
    warning = document["results"][0]["warnings"][0]
    assert warning["severity"] == "warning" and warning["location"] == "slots[0].ask"
    assert (warning["file"], warning["line"], warning["column"]) == (str(dag), 2, 5)


def test_json_output(invoke: Invoke, bella_notte: Path, broken_dag: Path, tmp_path: Path) -> None:
    result = invoke(["validate", "--json", str(bella_notte), str(broken_dag), str(tmp_path / "nope")])
    assert result.exit_code == 2
    document = json.loads(result.stdout)
    assert document["ok"] is False and document["exit_code"] == 2
    valid, invalid, missing = document["results"]
    assert valid == {
        "path": str(bella_notte),
        "status": "valid",
        "ok": True,
        "kind": "agent",
        "slots": 9,
        "tasks": 2,
        "errors": [],
        "warnings": [],
        "message": "",
        "fix": "",
    }
    assert invalid["status"] == "invalid" and invalid["ok"] is False
    assert len(invalid["errors"]) == 4
    first = invalid["errors"][0]
    # the original fields are unchanged; file, line and column were added
    assert set(first) == {"code", "severity", "location", "message", "fix", "file", "line", "column"}
    assert first["location"] == "slots[0].requires_readbak"
    assert (first["file"], first["line"], first["column"]) == (str(broken_dag), 5, 5)
    assert first["severity"] == "error"
    assert missing["status"] == "unusable"
    assert "no such file or directory" in missing["message"]


def test_json_output_all_valid(invoke: Invoke, bella_notte: Path) -> None:
    result = invoke(["validate", "--json", str(bella_notte)])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["ok"] is True


def test_no_path_is_a_usage_error(invoke: Invoke) -> None:
    result = invoke(["validate"])
    assert result.exit_code == 2
    assert "Missing argument" in result.output


def test_bare_json_dag_file(invoke: Invoke, bella_notte: Path, tmp_path: Path) -> None:

    dag = yaml.safe_load((bella_notte / "dag.yaml").read_text(encoding="utf-8"))
    target = tmp_path / "dag.json"
    target.write_text(json.dumps(dag), encoding="utf-8")
    result = invoke(["validate", str(target)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"✓ {target}: valid (9 slots, 2 tasks)"


def test_agent_with_inline_dag_points_into_agent_yaml(invoke: Invoke, tmp_path: Path) -> None:
    agent = tmp_path / "agent.yaml"
    agent.write_text(
        "name: inline\n"  # line 1
        "dag:\n"  # line 2
        "  slots:\n"  # line 3
        "    - name: size\n"  # line 4
        "      setter: set_size\n"  # line 5
        "      ask: How many?\n"  # line 6
        "  tasks:\n"  # line 7
        "    - name: T\n"  # line 8
        "      tool: t\n"  # line 9
        "      inputs: [size, sise]\n"  # line 10
        "      success_check: ok\n",
        encoding="utf-8",
    )
    result = invoke(["validate", str(tmp_path)])
    assert result.exit_code == 1
    assert f"    error    {agent}:10:22: dag.tasks[0].inputs[1]: unknown slot 'sise'" in result.stdout


def test_agent_with_dag_file_points_into_the_dag_file(invoke: Invoke, tmp_path: Path) -> None:
    (tmp_path / "agent.yaml").write_text("name: split\ndag: flow.yaml\nmodell: offline\n", encoding="utf-8")
    flow = tmp_path / "flow.yaml"
    flow.write_text(
        "slots:\n  - name: size\n    setter: set_size\n    ask: How many?\n"
        "tasks:\n  - name: T\n    tool: t\n    inputs:\n      - size\n      - sise\n    success_check: ok\n",
        encoding="utf-8",
    )
    result = invoke(["validate", "--json", str(tmp_path)])
    errors = {e["location"]: e for e in json.loads(result.stdout)["results"][0]["errors"]}
    assert (errors["modell"]["file"], errors["modell"]["line"], errors["modell"]["column"]) == (
        str(tmp_path / "agent.yaml"),
        3,
        1,
    )
    typo = errors["dag.tasks[0].inputs[1]"]
    assert (typo["file"], typo["line"], typo["column"]) == (str(flow), 10, 9)


def test_json_dag_file_issues_have_positions(invoke: Invoke, tmp_path: Path) -> None:
    target = tmp_path / "dag.json"
    slot = '    {"name": "size", "setter": "set_size", "ask": "How many?", "requirez": []}'
    target.write_text(
        f'{{\n  "slots": [\n{slot}\n  ],\n'
        '  "tasks": [{"name": "T", "tool": "t", "inputs": ["size"], "success_check": "ok"}]\n}\n',
        encoding="utf-8",
    )
    result = invoke(["validate", str(target)])
    assert result.exit_code == 1
    column = slot.index('"requirez"') + 1
    assert f"    error    {target}:3:{column}: slots[0].requirez: unknown key 'requirez'" in result.stdout


def test_python_mapping_issues_have_no_position(invoke: Invoke) -> None:
    from slotgraph.cli.output import issue_as_dict
    from slotgraph.config import validate_dag

    issue = validate_dag({"slots": [{"name": "a", "sorce": "user"}]}).errors[0]
    assert issue_as_dict(issue)["line"] is None and issue_as_dict(issue)["file"] is None
