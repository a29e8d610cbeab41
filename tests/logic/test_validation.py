"""Publish-time validation (spec: "Publish validation ... errors block publish (unparseable expressions,
writes to linked variables — including {{set}} targets and {{run}} captures — ..., unbalanced #when
blocks, malformed prompt-program statements, output_path outside a tool_result trigger); warnings
don't (references to undeclared names ...)")."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from slotgraph.config import ConfigValidationError, agent_json_schema
from slotgraph.logic import load_definition

DAG = (
    'slots:\n  - {name: party_size, source: user, ask: "How many?", setter: set_party_size}\n'
    "  - {name: ref, source: 'task:Book'}\n"
    "tasks:\n  - {name: Book, tool: book, inputs: [party_size], outputs: {ref: ref}, success_check: ok}\n"
)
TOOLS = (
    "def set_party_size(party_size: int) -> dict:\n    return {'ok': True}\n\n\n"
    "def lookup(id: str) -> dict:\n    return {}\n\n\n"
    "def book(party_size: int) -> dict:\n    return {'ok': True, 'ref': 'R'}\n"
)

BROKEN = dedent(
    """\
    name: broken
    dag: dag.yaml
    instruction_file: instruction.md
    variables:
      - {name: caller, type: string, description: the caller's number, linked_to: caller_phone}
      - {name: tier, type: string, description: loyalty tier, default: basic}
    rules:
      - trigger: turn_start
        condition: "tier =="
        actions:
          - set_variable: {variable: caller, value: "'x'"}
      - trigger: user_message
        actions:
          - set_variable: {variable: tier, output_path: $.tier}
      - trigger: tool_result
        tool: lookup
        actions:
          - run_tool: {tool: lookup, args: {id: "f("}, capture: {caller: $.phone}}
          - inject_instruction: "Say {{tier}} {{unknown_thing}}"
    """
)

INSTRUCTION = dedent(
    """\
    You are a clinic receptionist.
    {{#when tier == "gold"}}Be extra warm.
    {{set caller = "x"}}
    {{run lookup with id = tier set caller = $.phone}}
    {{run lookup with id}}
    {{#when visits > }}x{{/when}}
    """
)


def _agent(tmp_path: Path, agent: str, instruction: str = "") -> Path:
    (tmp_path / "agent.yaml").write_text(agent)
    (tmp_path / "dag.yaml").write_text(DAG)
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "instruction.md").write_text(instruction)
    return tmp_path


def test_every_error_class_is_reported_with_its_location(tmp_path: Path) -> None:
    with pytest.raises(ConfigValidationError) as caught:
        load_definition(_agent(tmp_path, BROKEN, INSTRUCTION))
    found = {(i.code, i.location, i.line) for i in caught.value.issues}
    agent_file = str(tmp_path / "agent.yaml")
    instruction_file = str(tmp_path / "instruction.md")
    expected = {
        ("bad_expression", "rules[0].condition", 9),
        ("linked_write", "rules[0].actions[0].set_variable.variable", 11),
        ("output_path_outside_tool_result", "rules[1].actions[0].set_variable.output_path", 14),
        ("bad_expression", "rules[2].actions[0].run_tool.args.id", 18),
        ("linked_write", "rules[2].actions[0].run_tool.capture.caller", 18),
        ("linked_write", "instruction_file", 3),  # {{set caller = ...}}
        ("linked_write", "instruction_file", 4),  # {{run ... set caller = ...}}
        ("malformed_statement", "instruction_file", 5),
        ("bad_expression", "instruction_file", 6),
        ("unbalanced_when", "instruction_file", 2),
    }
    assert expected <= found, sorted(expected - found)
    by_code = {i.code: i for i in caught.value.issues}
    assert by_code["bad_expression"].file in (agent_file, instruction_file)
    assert all(i.fix for i in caught.value.issues)
    assert all(i.file is not None and i.line is not None for i in caught.value.issues)


def test_undeclared_names_are_warnings_and_the_agent_loads(tmp_path: Path) -> None:
    agent = dedent(
        """\
        name: ok
        dag: dag.yaml
        instruction: "Hello {{who}}. {{#when filled.party_size > 4}}Big group.{{/when}} {{channel}}"
        rules:
          - trigger: turn_end
            condition: is_vip
            actions:
              - set_variable: {variable: greeted, value: "True"}
        """
    )
    definition = load_definition(_agent(tmp_path, agent))
    warned = {(w.code, w.location) for w in definition.report.warnings}
    assert ("undeclared_name", "instruction") in warned
    assert ("undeclared_name", "rules[0].condition") in warned
    assert ("undeclared_name", "rules[0].actions[0].set_variable.variable") in warned
    assert not any("filled" in w.message or "channel" in w.message for w in definition.report.warnings)


def test_misplaced_filters_unknown_tools_and_duplicate_variables_are_errors(tmp_path: Path) -> None:
    agent = dedent(
        """\
        name: bad
        dag: dag.yaml
        variables:
          - {name: a, type: string, description: x}
          - {name: a, type: integer, description: y}
        rules:
          - trigger: turn_end
            tool: lookup
            variable: a
            actions:
              - run_tool: {tool: no_such_tool}
              - run_tool: {tool: book}
              - inject_instruction: "{{set a = 1}}"
        """
    )
    with pytest.raises(ConfigValidationError) as caught:
        load_definition(_agent(tmp_path, agent))
    codes = {(i.code, i.location) for i in caught.value.issues}
    assert {
        ("duplicate_variable", "variables[1].name"),
        ("misplaced_key", "rules[0].tool"),
        ("misplaced_key", "rules[0].variable"),
        ("unknown_tool", "rules[0].actions[0].run_tool.tool"),
        ("executor_run", "rules[0].actions[1].run_tool.tool"),
        ("statement_not_allowed", "rules[0].actions[2].inject_instruction.text"),
    } <= codes


def test_shapes_are_checked_with_locations(tmp_path: Path) -> None:
    agent = dedent(
        """\
        name: bad
        dag: dag.yaml
        variables:
          - {name: a, type: strng, description: x}
          - {name: b, type: integer, default: "x", description: y}
          - {name: c, type: string}
        rules:
          - trigger: on_hangup
            actions: [{set_variable: {variable: a}}]
          - trigger: turn_end
            actions: [{end_session: {}, escalate: {}}]
        """
    )
    with pytest.raises(ConfigValidationError) as caught:
        load_definition(_agent(tmp_path, agent))
    located = {i.location for i in caught.value.issues}
    assert {"variables[0].type", "variables[1]", "variables[2].description", "rules[0].trigger"} <= located
    assert any(i.location.startswith("rules[1].actions[0]") for i in caught.value.issues)


def test_the_json_schema_covers_the_new_keys() -> None:
    """Spec "Config shapes": "config.variables[] (agent-level): typed declarations (mutable w/ default,
    linked → alias of a runtime fact)" and "rules[] (trigger → optional condition → ordered actions; triggers
    session_start | user_message | turn_start | turn_end | tool_result | variable_changed)", "described
    field-by-field in the generated agent-config.schema.json"."""
    schema = agent_json_schema()
    assert {"variables", "rules"} <= set(schema["properties"])
    text = str(schema)
    for key in ("linked_to", "output_path", "inject_instruction", "variable_changed", "capture"):
        assert key in text


def test_slotgraph_validate_reports_the_broken_example_with_positions(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from slotgraph.cli.main import create_app

    path = _agent(tmp_path, BROKEN, INSTRUCTION)
    result = CliRunner().invoke(create_app(), ["validate", str(path)])
    assert result.exit_code == 1
    out = " ".join(result.output.split())
    for code_text in (
        "tier ==",
        "linked to 'caller_phone'",
        "output_path reads a tool result",
        "never closed",
        "expected 'name = expression'",
    ):
        assert code_text in out, code_text
    assert "instruction.md:3:1" in out and "agent.yaml:9:" in out
