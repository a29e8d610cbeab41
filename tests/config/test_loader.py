"""Reading YAML/JSON files and mappings: syntax errors with file and line, duplicate keys, non-mappings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from slotgraph.config import ConfigError, ConfigLoadError, ConfigValidationError, load_dag
from slotgraph.config.loader import read_mapping

from .dags import spec_dag


def test_yaml_and_json_files_load(tmp_path: Path) -> None:
    (tmp_path / "dag.json").write_text(json.dumps(spec_dag()))
    assert load_dag(tmp_path / "dag.json").slots[0].name == "num_guests"
    (tmp_path / "dag.yaml").write_text("slots:\n  - {name: a, setter: set_a, ask: A}\ntasks: []\n")
    assert load_dag(str(tmp_path / "dag.yaml")).slots[0].name == "a"


def test_yaml_syntax_error_has_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "dag.yaml"
    path.write_text("slots:\n  - name: a\n    ask: [unclosed\ntasks: []\n")
    with pytest.raises(ConfigLoadError) as info:
        load_dag(path)
    assert f"{path}:" in str(info.value)
    assert "invalid YAML" in str(info.value)
    assert info.value.code == "load_error"
    assert isinstance(info.value, ConfigError)


def test_json_syntax_error_has_line(tmp_path: Path) -> None:
    path = tmp_path / "dag.json"
    path.write_text('{"slots": [\n  {"name": "a",}\n]}')
    with pytest.raises(ConfigLoadError, match=r"dag\.json:2:\d+: invalid JSON"):
        load_dag(path)


def test_duplicate_yaml_keys_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "dag.yaml"
    path.write_text("slots:\n  - name: a\n    ask: first\n    ask: second\ntasks: []\n")
    with pytest.raises(ConfigLoadError, match=r"duplicate key 'ask' \(first defined at line 3\)"):
        read_mapping(path)


def test_missing_file_and_non_mapping(tmp_path: Path) -> None:
    with pytest.raises(ConfigLoadError, match="file not found"):
        load_dag(tmp_path / "nope.yaml")
    (tmp_path / "list.yaml").write_text("- a\n- b\n")
    with pytest.raises(ConfigLoadError, match="must be a mapping"):
        load_dag(tmp_path / "list.yaml")
    (tmp_path / "empty.yaml").write_text("")
    with pytest.raises(ConfigLoadError, match="empty"):
        load_dag(tmp_path / "empty.yaml")


def test_mapping_is_not_mutated_and_x_keys_are_ignored() -> None:
    raw = spec_dag() | {"x-owner": "team", "x-notes": {"anything": [1, 2]}}
    raw["slots"][0]["x-comment"] = "private"
    load_dag(raw)
    assert raw["slots"][0]["x-comment"] == "private"


def test_load_dag_raises_validation_error_with_all_issues() -> None:
    with pytest.raises(ConfigValidationError) as info:
        load_dag({"slots": [{"name": "a", "sorce": "user"}], "tasks": [{"name": "T"}]})
    codes = sorted(i.code for i in info.value.issues)
    assert codes == ["missing_field", "missing_setter", "unknown_key"]
