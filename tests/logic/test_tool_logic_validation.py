"""Publish-time checks of ``tool_logic:`` and ``builtin_tools:``: every problem with its location, the keys in
``slotgraph schema --agent``."""

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


def _agent(tmp_path: Path, agent: str) -> Path:
    (tmp_path / "agent.yaml").write_text(agent)
    (tmp_path / "dag.yaml").write_text(DAG)
    (tmp_path / "tools.py").write_text(TOOLS)
    return tmp_path


BROKEN = dedent(
    """\
    name: broken
    dag: dag.yaml
    variables:
      - {name: caller, type: string, description: the caller's number, linked_to: caller_phone}
      - {name: verified, type: boolean, description: verified, default: false}
    tool_logic:
      lookup:
        available_when: "verified and"
        capture: {caller: $.phone, verified: "$.a["}
      no_such_tool:
        available_when: verified
      book:
        available_when: verified
      set_party_size:
        bind: {party_size: {kind: literal, value: 2}}
        merge_bind: {party_size: {kind: literal, value: {}}}
      end_session:
        bind: {reason: {kind: variable}}
    builtin_tools:
      end_session: {require_summary: maybe}
    """
)


def test_every_tool_logic_error_is_reported_with_its_location(tmp_path: Path) -> None:
    with pytest.raises(ConfigValidationError) as caught:
        load_definition(_agent(tmp_path, BROKEN))
    found = {(i.code, i.location, i.line) for i in caught.value.issues}
    expected = {
        ("bad_expression", "tool_logic.lookup.available_when", 8),
        ("linked_write", "tool_logic.lookup.capture.caller", 9),
        ("bad_path", "tool_logic.lookup.capture.verified", 9),
        ("unknown_tool", "tool_logic.no_such_tool", 10),
        ("executor_gate", "tool_logic.book", 12),
        ("bind_conflict", "tool_logic.set_party_size.merge_bind.party_size", 16),
    }
    assert expected <= found, sorted(expected - found)
    locations = {i.location for i in caught.value.issues}
    assert any(loc.startswith("tool_logic.end_session.bind.reason") for loc in locations), locations
    assert any(loc.startswith("builtin_tools.end_session.require_summary") for loc in locations), locations
    assert all(i.fix for i in caught.value.issues)


def test_a_valid_tool_logic_loads_and_reads_of_undeclared_bind_variables_warn(tmp_path: Path) -> None:
    agent = dedent(
        """\
        name: ok
        dag: dag.yaml
        variables:
          - {name: verified, type: boolean, description: verified, default: false}
        tool_logic:
          lookup:
            available_when: verified
            unavailable_message: Verify the caller first.
            bind: {id: {kind: variable, name: verified_id}}
            capture: {verified: $.ok}
            progress_message: One moment.
        builtin_tools:
          end_session: {require_summary: true}
        """
    )
    definition = load_definition(_agent(tmp_path, agent))
    assert definition.agent is not None
    assert definition.agent.builtin_tools.end_session.require_summary
    assert definition.agent.tool_logic["lookup"].progress_message == "One moment."
    warned = {(w.code, w.location) for w in definition.report.warnings}
    assert ("undeclared_name", "tool_logic.lookup.bind.id.name") in warned


def test_the_agent_schema_describes_tool_logic_and_builtin_tools() -> None:
    schema = agent_json_schema()
    assert {"tool_logic", "builtin_tools"} <= set(schema["properties"])
    tool_logic = schema["$defs"]["ToolLogicConfig"]["properties"]
    keys = {"available_when", "unavailable_message", "bind", "merge_bind", "capture", "progress_message"}
    assert keys <= set(tool_logic)
    assert all(prop.get("description") for prop in tool_logic.values())


def test_extraction_needs_an_extractor_the_agent_has(tmp_path: Path) -> None:
    agent = dedent(
        """\
        name: bad
        dag: dag.yaml
        variables:
          - {name: account, type: string, description: the account, extraction: true}
        """
    )
    with pytest.raises(ConfigValidationError) as caught:
        load_definition(_agent(tmp_path, agent))
    assert {(i.code, i.location, i.line) for i in caught.value.issues} == {
        ("no_extractor", "variables[0].extraction", 4)
    }
    unknown = agent + "extraction: {tool: nope}\n"
    with pytest.raises(ConfigValidationError) as caught:
        load_definition(_agent(tmp_path, unknown))
    assert {(i.code, i.location) for i in caught.value.issues} == {("unknown_tool", "extraction.tool")}
    unused = agent.replace(", extraction: true", "") + "extraction: {tool: lookup}\n"
    warned = load_definition(_agent(tmp_path, unused)).report.warnings
    assert [(w.code, w.location) for w in warned] == [("nothing_to_extract", "extraction")]


def test_an_expression_that_always_fails_by_the_declared_types_is_an_error(tmp_path: Path) -> None:
    """``verified + "x"`` parses but fails whenever it is evaluated (a boolean, or None, plus a string): the
    gate would stay closed for ever. Validation sees it from the declared types, in every expression of the
    agent; an operand of unknown type (``any``, linked, undeclared) is never reported."""
    agent = dedent(
        """\
        name: typed
        dag: dag.yaml
        instruction: |
          Hello.
          {{#when visits - "1"}}Welcome back.{{/when}}
        variables:
          - {name: verified, type: boolean, description: verified, default: false}
          - {name: visits, type: integer, description: visits, default: 0}
          - {name: tags, type: any, description: anything}
          - {name: phone, type: string, description: the number, linked_to: caller_phone}
        tool_logic:
          lookup:
            available_when: verified + "x"
        rules:
          - trigger: turn_start
            condition: "'vip' in visits"
            actions: [{set_variable: {variable: visits, value: "visits + 1 + tags + phone"}}]
        """
    )
    with pytest.raises(ConfigValidationError) as caught:
        load_definition(_agent(tmp_path, agent))
    found = {(i.code, i.location, i.line) for i in caught.value.issues}
    assert found == {
        ("expression_type_error", "instruction", 3),
        ("expression_type_error", "tool_logic.lookup.available_when", 13),
        ("expression_type_error", "rules[0].condition", 16),
    }
    section = next(i for i in caught.value.issues if i.location == "instruction")
    assert section.message.startswith("line 2, column 1 of the text:")
    gate = next(i for i in caught.value.issues if i.location == "tool_logic.lookup.available_when")
    assert "'+' cannot combine a boolean (verified) and a string" in gate.message
    assert "fails every time" in gate.message and gate.fix


def test_params_fields_names_and_descriptions_are_checked(tmp_path: Path) -> None:
    agent = dedent(
        """\
        name: ending
        dag: dag.yaml
        builtin_tools:
          end_session:
            params_fields:
              EscalationReason: Why a person must follow up.
              "callback number": The number to call back.
              Empty: ""
        """
    )
    with pytest.raises(ConfigValidationError) as caught:
        load_definition(_agent(tmp_path, agent))
    found = {(i.code, i.location, i.line) for i in caught.value.issues}
    assert ("bad_field_name", "builtin_tools.end_session.params_fields.callback number", 7) in found
    assert any(loc == "builtin_tools.end_session.params_fields.Empty" for _, loc, _ in found), found
    assert len(found) == 2 and all(i.fix for i in caught.value.issues)
