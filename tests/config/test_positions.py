"""File positions of validation issues: YAML and JSON files, agent.yaml (inline or separate DAG), mappings."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from slotgraph.config import ConfigIssue, ConfigValidationError, load_dag, load_definition, validate_dag
from slotgraph.config.loader import read_located_mapping, read_mapping
from slotgraph.config.positions import SourceMap, json_positions

BROKEN = sorted((Path(__file__).parent / "broken").glob("*.yaml"))

DAG = """\
# a DAG with four mistakes
slots:
  - name: party_size
    setter: set_party_size
    ask: How many guests?
    requires_readbak: true
  - name: date
    setter: set_date
    ask: What date?
    validation:
      errors: {not_available: Sorry.}
      on_exhaust:
        say: Giving up.
        then: {args: {}}
tasks:
  - name: Book
    tool: book
    inputs: [party_size, dat]
    success_check: ok
  - name: Notify
    inputs:
      - party_size
"""


def _errors(path: Path) -> dict[str, ConfigIssue]:
    with pytest.raises(ConfigValidationError) as info:
        load_dag(path)
    return {issue.location: issue for issue in info.value.issues}


def _at(issue: ConfigIssue) -> tuple[str | None, int | None, int | None]:
    return issue.file, issue.line, issue.column


@pytest.fixture
def dag_file(tmp_path: Path) -> Path:
    path = tmp_path / "dag.yaml"
    path.write_text(DAG, encoding="utf-8")
    return path


def test_unknown_key_is_located_at_the_key(dag_file: Path) -> None:
    issue = _errors(dag_file)["slots[0].requires_readbak"]
    assert issue.code == "unknown_key"
    assert _at(issue) == (str(dag_file), 6, 5)


def test_wrong_list_item_is_located_at_the_item(dag_file: Path) -> None:
    issue = _errors(dag_file)["tasks[0].inputs[1]"]
    assert issue.code == "unknown_slot"
    assert _at(issue) == (str(dag_file), 18, 26)  # 'dat' inside the flow list


def test_missing_field_is_located_at_the_mapping_that_lacks_it(dag_file: Path) -> None:
    issue = _errors(dag_file)["tasks[1].tool"]
    assert issue.code == "missing_field"
    assert _at(issue) == (str(dag_file), 20, 5)  # the task's first key, where its mapping starts


def test_nested_error_is_located_deep_inside(dag_file: Path) -> None:
    issue = _errors(dag_file)["slots[1].validation.on_exhaust.then.tool"]
    assert issue.code == "missing_field"
    # 'then' (the mapping that lacks 'tool') is a mapping entry: located at its key
    assert _at(issue) == (str(dag_file), 14, 9)


def test_str_shows_file_line_column_then_the_path(dag_file: Path) -> None:
    issue = _errors(dag_file)["tasks[0].inputs[1]"]
    assert str(issue).startswith(f"{dag_file}:18:26: tasks[0].inputs[1]: unknown slot 'dat'")
    assert " — fix: " in str(issue)
    with pytest.raises(ConfigValidationError) as info:
        load_dag(dag_file)
    assert f"  {dag_file}:6:5: slots[0].requires_readbak: unknown key" in str(info.value)


def test_mappings_have_no_positions(dag_file: Path) -> None:
    raw = read_mapping(dag_file)
    for issue in validate_dag(raw).issues:
        assert _at(issue) == (None, None, None)
        assert not str(issue).startswith(str(dag_file))
    with pytest.raises(ConfigValidationError) as info:
        load_dag(raw)
    assert all(issue.line is None for issue in info.value.issues)
    second = str(info.value).splitlines()[1]
    assert second.startswith("  slots[0].requires_readbak: unknown key 'requires_readbak' (did you mean")


def test_bare_dag_file_through_load_definition(dag_file: Path) -> None:
    with pytest.raises(ConfigValidationError) as info:
        load_definition(dag_file)
    issues = {i.location: i for i in info.value.issues}
    assert _at(issues["tasks[0].inputs[1]"]) == (str(dag_file), 18, 26)


def test_warnings_of_a_valid_file_have_positions(tmp_path: Path) -> None:
    path = tmp_path / "dag.yaml"
    path.write_text(
        "slots:\n  - name: size\n    setter: set_size\n"
        "tasks:\n  - name: T\n    tool: t\n    inputs: [size]\n",
        encoding="utf-8",
    )
    warnings = {w.code: w for w in load_definition(path).report.warnings}
    assert _at(warnings["missing_ask"]) == (str(path), 2, 5)  # slots[0].ask is missing: the slot
    assert _at(warnings["no_success_check"]) == (str(path), 5, 5)


def test_inline_dag_positions_are_in_agent_yaml(tmp_path: Path) -> None:
    agent = tmp_path / "agent.yaml"
    agent.write_text(
        "name: inline\nmodle: offline\ndag:\n  slots:\n    - name: size\n      setter: set_size\n"
        "      ask: How many?\n  tasks:\n    - name: T\n      tool: t\n      inputs: [size, sise]\n"
        "      success_check: ok\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigValidationError) as info:
        load_definition(tmp_path)
    issues = {i.location: i for i in info.value.issues}
    assert _at(issues["modle"]) == (str(agent), 2, 1)
    assert _at(issues["dag.tasks[0].inputs[1]"]) == (str(agent), 11, 22)
    assert str(issues["dag.tasks[0].inputs[1]"]).startswith(f"{agent}:11:22: dag.tasks[0].inputs[1]: ")


def test_separate_dag_file_positions_are_in_that_file(tmp_path: Path) -> None:
    agent = tmp_path / "agent.yaml"
    agent.write_text("name: split\ndag: flow.json\n", encoding="utf-8")
    flow = tmp_path / "flow.json"
    flow.write_text(
        json.dumps(
            {"slots": [{"name": "size", "setter": "set_size", "ask": "How many?"}],
             "tasks": [{"name": "T", "tool": "t", "inputs": ["size", "sise"], "success_check": "ok"}]},
            indent=2,
        ),
        encoding="utf-8",
    )  # fmt: skip
    with pytest.raises(ConfigValidationError) as info:
        load_definition(agent)
    (issue,) = info.value.issues
    assert issue.location == "dag.tasks[0].inputs[1]"
    line = flow.read_text(encoding="utf-8").splitlines().index('        "sise"') + 1
    assert _at(issue) == (str(flow), line, 9)


def test_missing_dag_file_points_at_the_dag_key(tmp_path: Path) -> None:
    agent = tmp_path / "agent.yaml"
    agent.write_text("name: gone\n\ndag: nowhere.yaml\n", encoding="utf-8")
    with pytest.raises(ConfigValidationError) as info:
        load_definition(agent)
    (issue,) = info.value.issues
    assert (issue.code, _at(issue)) == ("missing_file", (str(agent), 3, 1))


def test_json_file_positions(tmp_path: Path) -> None:
    path = tmp_path / "dag.json"
    path.write_text(
        '{"slots": [\n'
        '  {"name": "s\\u00e9", "setter": "set_s", "ask": "\\"Quoted\\" {x}", "sourse": "user"}\n'
        '], "tasks": []}\n',
        encoding="utf-8",
    )
    issues = _errors(path)
    line = path.read_text(encoding="utf-8").splitlines()[1]
    assert _at(issues["slots[0].sourse"]) == (str(path), 2, line.index('"sourse"') + 1)
    assert _at(issues["slots[0].ask"]) == (str(path), 2, line.index('"ask"') + 1)


def test_json_scanner_matches_the_parsed_document() -> None:
    text = '{"a": [1, -2.5e3, true, null, {"b\\"c": "x\\\\"}], "a": {"d": []}, "e": {}}'
    positions = json_positions(text)
    assert positions["a"] == (1, text.index('"a": {') + 1)  # the last duplicate wins, as in json.loads
    assert "a[0]" not in positions and positions["a.d"] == (1, text.index('"d"') + 1)
    assert positions["e"] == (1, text.index('"e"') + 1)
    nested = json_positions('[1, [2, {"k": 3}]]')
    assert nested["[1][1].k"] == (1, 10)
    assert json_positions("{") == {}  # not valid JSON: no positions rather than wrong ones


def test_yaml_anchor_merge_and_alias(tmp_path: Path) -> None:
    path = tmp_path / "dag.yaml"
    path.write_text(
        "x-base: &base\n"  # 1
        "  setter: set_s\n"  # 2
        "  requires_readbak: true\n"  # 3
        "slots:\n"  # 4
        "  - <<: *base\n"  # 5
        "    name: s\n"  # 6
        "    ask: Which?\n"  # 7
        "tasks:\n"  # 8
        "  - {name: T, tool: t, inputs: [s, q], success_check: ok}\n",  # 9
        encoding="utf-8",
    )
    issues = _errors(path)
    # the merged key is located where it is written, in the anchored mapping
    assert _at(issues["slots[0].requires_readbak"]) == (str(path), 3, 3)
    assert _at(issues["tasks[0].inputs[1]"]) == (str(path), 9, 36)


def test_source_map_falls_back_to_the_nearest_ancestor() -> None:
    source_map = SourceMap("f.yaml", {"": (1, 1), "tasks": (2, 1), "tasks[0]": (3, 5)})
    assert source_map.position("tasks[0].outputs.times") == (3, 5)
    assert source_map.position("tasks[4]") == (2, 1)
    assert source_map.position("nothing.here") == (1, 1)
    assert SourceMap("f.yaml").position("tasks") is None
    located = SourceMap("f.yaml").locate(ConfigIssue("c", "tasks", "m", "f"))
    assert _at(located) == ("f.yaml", None, None)
    assert str(located) == "tasks: m — fix: f"  # no position known: the path alone
    other = ConfigIssue("c", "x", "m", "f", file="g.yaml", line=4, column=2)
    assert source_map.locate(other) is other  # already located in another file


def test_prefixed_keeps_the_position() -> None:
    issue = ConfigIssue("c", "slots[0]", "m", "f", file="d.yaml", line=3, column=5).prefixed("dag")
    assert (issue.location, _at(issue)) == ("dag.slots[0]", ("d.yaml", 3, 5))
    assert str(issue) == "d.yaml:3:5: dag.slots[0]: m — fix: f"


_SEGMENT = re.compile(r"\[(\d+)\]|\.?([^.\[\]]+)")


def _deepest(raw: Any, location: str) -> str | int | None:
    """The last segment of ``location`` that exists in ``raw`` (None: the root)."""
    last: str | int | None = None
    current = raw
    for index, key in _SEGMENT.findall(location):
        part: str | int = int(index) if index else key
        in_list = isinstance(part, int) and isinstance(current, list) and part < len(current)
        if not (in_list or (isinstance(part, str) and isinstance(current, dict) and part in current)):
            break
        current = current[part]
        last = part
    return last


@pytest.mark.parametrize("path", BROKEN, ids=lambda p: p.stem)
def test_every_corpus_issue_points_at_its_node(path: Path) -> None:
    """Every issue of the broken corpus read from its file has a position, and a position that is on a
    mapping entry is on that entry's key."""
    raw, source_map = read_located_mapping(path)
    report = validate_dag(raw, tool_names=raw.get("x-tools"))
    lines = path.read_text(encoding="utf-8").splitlines()
    assert report.issues
    for issue in (source_map.locate(i) for i in report.issues):
        assert issue.file == str(path) and issue.line is not None and issue.column is not None, issue
        assert str(issue).startswith(f"{path}:{issue.line}:{issue.column}: {issue.location}")
        last = _deepest(raw, issue.location)
        if isinstance(last, str):
            text = lines[issue.line - 1][issue.column - 1 :]
            assert text.lstrip("\"'").startswith(last), f"{issue}: {text!r}"
