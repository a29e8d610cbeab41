"""YAML that would expand without bound (alias bombs), refer to itself or nest too deeply is refused, and so
is a config file too large to parse in reasonable time."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from slotgraph.config.errors import ConfigLoadError
from slotgraph.config.loader import read_document
from slotgraph.config.yaml_budget import MAX_CONFIG_BYTES, MAX_EXPANDED_NODES, bounded_safe_load
from slotgraph.evals.errors import ScenarioFormatError
from slotgraph.evals.loader import load_scenario
from slotgraph.evals.tool_tests import load_tool_tests
from slotgraph.logic import load_definition


def bomb(levels: int) -> str:
    """Each level is a list of nine aliases of the one before: 9**levels values from a few hundred bytes."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "name: bomb\n" + "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_before_it_is_expanded(tmp_path: Path) -> None:
    file = tmp_path / "agent.yaml"
    file.write_text(bomb(9))
    assert file.stat().st_size < 813  # the size of the bomb of issue 24
    with pytest.raises(ConfigLoadError, match=r"agent\.yaml: line \d+: the document expands to more than"):
        read_document(file)


def test_aliases_within_the_budget_still_load(tmp_path: Path) -> None:
    file = tmp_path / "agent.yaml"
    file.write_text(bomb(4))  # 9**4 = 6,561 values
    data = read_document(file)
    assert len(data["a3"]) == 9 and data["a3"][0][0][0] == ["x"] * 9
    assert MAX_EXPANDED_NODES > 9**4


def test_a_self_referencing_alias_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "agent.yaml"
    file.write_text("name: loop\nitems: &a [1, *a]\n")
    with pytest.raises(ConfigLoadError, match="refers to a node that contains it"):
        read_document(file)


def test_yaml_nested_thousands_of_levels_is_a_clear_error(tmp_path: Path) -> None:
    file = tmp_path / "agent.yaml"
    file.write_text("x: " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(ConfigLoadError, match="nested too deeply"):
        read_document(file)


def test_json_nested_too_deeply_is_a_clear_error(tmp_path: Path) -> None:
    file = tmp_path / "dag.json"
    file.write_text('{"x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ConfigLoadError, match="nested too deeply"):
        read_document(file)


def test_bounded_safe_load_refuses_a_bomb_as_invalid_yaml() -> None:
    with pytest.raises(yaml.YAMLError, match="expands to more than"):
        bounded_safe_load(bomb(9))
    assert bounded_safe_load("a: &x [1, 2]\nb: *x\n") == {"a": [1, 2], "b": [1, 2]}
    assert bounded_safe_load("") is None


def test_scenario_and_tool_test_files_are_bounded_too(tmp_path: Path) -> None:
    # every YAML a user hands Slotgraph goes through the same bounds as configs, not plain yaml.safe_load
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(bomb(9))
    with pytest.raises(ScenarioFormatError, match="expands to more than"):
        load_scenario(scenario)
    tool_tests = tmp_path / "tool_tests.yaml"
    tool_tests.write_text(bomb(9))
    with pytest.raises(ScenarioFormatError, match="expands to more than"):
        load_tool_tests(tool_tests)


@pytest.mark.parametrize("name", ["agent.yaml", "dag.json"])
def test_a_config_file_over_the_size_limit_is_refused_before_it_is_parsed(tmp_path: Path, name: str) -> None:
    """A 33 MB YAML took minutes of silence in ``slotgraph validate``; now it is refused at once, by its size
    (the file is not even valid YAML past its first line: nothing of it is parsed)."""
    file = tmp_path / name
    with file.open("w") as out:
        out.write("name: huge\n")
        out.write("x" * (MAX_CONFIG_BYTES + 1))
    with pytest.raises(ConfigLoadError, match=rf"{name}: the file is larger than 2 MB, the most a config"):
        read_document(file)
    if name == "agent.yaml":
        with pytest.raises(ConfigLoadError, match="larger than 2 MB"):
            load_definition(tmp_path)


def test_a_config_file_just_under_the_limit_is_read(tmp_path: Path) -> None:
    file = tmp_path / "dag.json"
    file.write_text('{"note": "' + "x" * (MAX_CONFIG_BYTES - 100) + '"}')
    assert len(read_document(file)["note"]) == MAX_CONFIG_BYTES - 100
