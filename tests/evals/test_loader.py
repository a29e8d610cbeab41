"""Loading scenarios: discovery, validation with located errors and fixes, the published JSON Schema."""

from __future__ import annotations

from pathlib import Path

import pytest

from slotgraph.evals import (
    Case,
    LoadFailure,
    ScenarioFormatError,
    discover,
    load_cases,
    load_scenario,
    scenario_json_schema,
)

from .conftest import TOY, WriteScenario


def _error(write_scenario: WriteScenario, text: str) -> ScenarioFormatError:
    path = write_scenario(text)
    with pytest.raises(ScenarioFormatError) as info:
        load_scenario(path)
    assert info.value.file == path
    return info.value


def test_a_valid_scenario_loads(write_scenario: WriteScenario) -> None:
    path = write_scenario(
        f"""
agent: {TOY}
now: 2026-07-10T18:00:00
turns:
  - user: Hi
    expect:
      text: hello
      state: {{filled.num_guests: 4}}
  - event: welcome
    event_data: {{party_size: 2}}
  - variables: {{event_data: {{party_size: 3}}}}
"""
    )
    scenario = load_scenario(path)
    assert [turn.kind for turn in scenario.turns] == ["user", "event", "variables"]
    assert scenario.turns[0].expect.text == "hello"
    assert scenario.turns[2].injected_event_data() == {"party_size": 3}
    assert scenario.now is not None and scenario.now.hour == 18


def test_unknown_key_is_located_with_a_suggestion(write_scenario: WriteScenario) -> None:
    err = _error(
        write_scenario,
        f"""
agent: {TOY}
turns:
  - user: Hi
  - user: 4 people
    expect:
      tool_calls:
        - {{name: set_num_guests, argz: {{num_guests: 4}}}}
""",
    )
    assert err.location == "turns[1].expect.tool_calls[0].argz"
    assert err.message == "unknown key 'argz'"
    assert err.fix == "rename it to 'args'"


def test_wrong_type_is_located(write_scenario: WriteScenario) -> None:
    err = _error(
        write_scenario,
        f"""
agent: {TOY}
turns:
  - user: Hi
    expect:
      tool_calls:
        - {{name: set_num_guests, args: [4]}}
""",
    )
    assert err.location == "turns[0].expect.tool_calls[0].args"
    assert "valid dictionary" in err.message
    assert err.fix == "write a mapping (key: value)"


def test_unquoted_yes_gets_a_yaml_hint(write_scenario: WriteScenario) -> None:
    err = _error(write_scenario, f"agent: {TOY}\nturns:\n  - user: yes\n")
    assert err.location == "turns[0].user"
    assert "quote it" in err.fix and "yes/no" in err.fix


def test_text_expectation_branches_are_not_in_the_location(write_scenario: WriteScenario) -> None:
    err = _error(
        write_scenario, f"agent: {TOY}\nturns:\n  - user: Hi\n    expect:\n      text: {{contain: x}}\n"
    )
    assert err.location == "turns[0].expect.text.contain"
    assert err.fix == "rename it to 'contains'"


@pytest.mark.parametrize(
    ("text", "location", "message"),
    [
        ("turns:\n  - user: Hi\n", "agent", "Field required"),
        ("agent: x\n", "<top>", "a scenario needs 'turns'"),
        (
            "agent: x\nturns:\n  - user: Hi\n    event: welcome\n",
            "turns[0]",
            "either 'user' text or an 'event'",
        ),
        ("agent: x\nturns:\n  - expect: {}\n", "turns[0]", "a turn needs 'user' text"),
        ("agent: x\nturns:\n  - variables: {sm: {}}\n", "turns[0]", "cannot inject variables ['sm']"),
        (
            "agent: x\nturns:\n  - user: Hi\nexpect:\n  tasks: [{args: {}}]\n",
            "expect.tasks[0]",
            "exactly one",
        ),
        ("agent: x\nnow: soon\nturns:\n  - user: Hi\n", "now", "valid datetime"),
        (
            "agent: x\nturns:\n  - user: Hi\n    expect: {preempted: maybe}\n",
            "turns[0].expect.preempted",
            "boolean",
        ),
    ],
)
def test_structural_problems_are_located(
    write_scenario: WriteScenario, text: str, location: str, message: str
) -> None:
    err = _error(write_scenario, text)
    assert err.location == location
    assert message in err.message


def test_yaml_syntax_errors_give_the_line(write_scenario: WriteScenario) -> None:
    err = _error(write_scenario, "agent: x\nturns:\n  - user: [unclosed\n")
    assert err.location.startswith("line ")
    assert err.message.startswith("invalid YAML")


def test_a_non_mapping_file_is_refused(write_scenario: WriteScenario) -> None:
    err = _error(write_scenario, "- just\n- a list\n")
    assert err.location == "<top>" and "a scenario is a mapping" in err.message


def test_the_error_message_names_file_location_and_fix(write_scenario: WriteScenario) -> None:
    err = _error(write_scenario, "turns:\n  - user: Hi\n")
    assert str(err) == f"{err.file}: agent: Field required (fix: add it)"


def test_discovery_finds_scenarios_and_goldens_only(tmp_path: Path) -> None:
    (tmp_path / "agent" / "scenarios" / "deep").mkdir(parents=True)
    (tmp_path / "agent" / "evaluations" / "One").mkdir(parents=True)
    (tmp_path / "agent" / ".hidden" / "scenarios").mkdir(parents=True)
    files = {
        "agent/agent.yaml": "",
        "agent/dag.yaml": "",
        "agent/scenarios/a.yaml": "",
        "agent/scenarios/deep/b.yml": "",
        "agent/scenarios/notes.md": "",
        "agent/evaluations/One/One.json": "{}",
        "agent/evaluations/One/other.json": "{}",
        "agent/evaluations/slotgraph.yaml": "",
        "agent/.hidden/scenarios/c.yaml": "",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    found = [p.relative_to(tmp_path).as_posix() for p in discover([tmp_path])]
    assert sorted(found) == [
        "agent/evaluations/One/One.json",
        "agent/evaluations/One/other.json",  # older exports: a golden in a folder with a shorter name
        "agent/scenarios/a.yaml",
        "agent/scenarios/deep/b.yml",
    ]
    explicit = tmp_path / "agent" / "dag.yaml"
    assert discover([explicit, explicit]) == [explicit]
    assert discover([tmp_path / "agent" / "scenarios"])[0].name == "a.yaml"
    with pytest.raises(FileNotFoundError):
        discover([tmp_path / "missing"])


def test_discovery_from_a_directory_inside_an_agents_scenarios(tmp_path: Path) -> None:
    """``slotgraph test my_agent/scenarios/simulated`` runs the scenarios there; a directory that is not
    inside an agent's ``scenarios`` (even below a folder of that name higher up) finds only scenarios."""
    agent = tmp_path / "scenarios" / "project" / "agent"  # a workspace that happens to be called scenarios
    (agent / "scenarios" / "simulated" / "deep").mkdir(parents=True)
    (agent / "tools").mkdir()
    for name in ("agent.yaml", "dag.yaml", "tools/extra.yaml", "scenarios/simulated/a.yaml"):
        (agent / name).write_text("")
    (agent / "scenarios" / "simulated" / "deep" / "b.yaml").write_text("")
    inside = agent / "scenarios" / "simulated"
    assert [p.name for p in discover([inside])] == ["a.yaml", "b.yaml"]
    assert [p.name for p in discover([inside / "deep"])] == ["b.yaml"]
    assert discover([agent / "tools"]) == []
    assert [p.name for p in discover([tmp_path / "scenarios" / "project"])] == ["a.yaml", "b.yaml"]


def test_load_cases_keeps_going_after_a_bad_file(write_scenario: WriteScenario) -> None:
    bad = write_scenario("agent: x\n", name="bad")
    good = write_scenario(f"agent: {TOY}\nturns:\n  - user: Hi\n", name="good")
    loaded = load_cases([bad, good])
    assert isinstance(loaded[0], LoadFailure) and loaded[0].error.file == bad
    assert isinstance(loaded[1], Case) and loaded[1].name == "good"
    assert loaded[1].agent_path == TOY.resolve()


def test_the_json_schema_is_published() -> None:
    schema = scenario_json_schema()
    assert schema["title"] == "Slotgraph scenario"
    assert {"agent", "turns", "expect", "user_sim", "now", "event_data", "env"} <= set(schema["properties"])
    turn_expect = schema["$defs"]["TurnExpect"]["properties"]
    assert {"tool_calls", "state", "text", "preempted", "visible_tools", "hidden_tools", "transfer"} <= set(
        turn_expect
    )
    assert schema["$defs"]["ToolCallExpect"]["additionalProperties"] is False
