"""Loading workflow files: every problem located (file:line:column), at once, with a fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from slotgraph.config import ConfigLoadError, ConfigValidationError
from slotgraph.workflow import load_workflow, validate_workflow

from .conftest import EXAMPLE


def _codes(raw: dict[str, Any]) -> dict[str, str]:
    _, report = validate_workflow(raw)
    return {i.code: f"{i.location}: {i.message}" for i in report.issues}


def _wf(*stages: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"workflow": "w", "stages": list(stages), **top}


def test_the_example_loads_with_its_producers() -> None:
    workflow = load_workflow(EXAMPLE / "workflow.yaml")
    assert list(workflow.stages) == ["extract_fields", "match_purchase", "purchase_found", "issue_refund"]
    assert workflow.producers[("match_purchase", "amount")] == ("extract_fields",)
    assert workflow.producers[("issue_refund", "purchase_id")] == ("match_purchase",)
    assert workflow.producers[("match_purchase", "account_id")] == ()


def test_an_unknown_stage_id_is_named_with_a_suggestion() -> None:
    codes = _codes(_wf({"id": "extract", "kind": "gate", "when": "True", "next": "extrct"}))
    assert "unknown_stage" in codes
    assert codes["unknown_stage"].startswith("stages[0].next:")
    assert "did you mean 'extract'" in codes["unknown_stage"]


def test_a_cycle_is_refused_with_its_path() -> None:
    codes = _codes(
        _wf(
            {"id": "a", "kind": "gate", "when": "True", "next": "b"},
            {"id": "b", "kind": "branch", "branches": [{"when": "goal.x", "next": "a"}]},
        )
    )
    assert "a -> b -> a" in codes["cycle"] or "b -> a -> b" in codes["cycle"]


def test_schema_problems_are_located_inside_the_schema() -> None:
    codes = _codes(
        _wf(
            {
                "id": "call",
                "kind": "http",
                "url": "http://127.0.0.1:1/x",
                "input_schema": {
                    "type": "object",
                    "properties": {"amount": {"type": "money"}, "a": {"oneOf": []}},
                    "required": ["amount", "nope"],
                },
            }
        )
    )
    _, report = validate_workflow(
        _wf(
            {
                "id": "call",
                "kind": "http",
                "url": "http://127.0.0.1:1/x",
                "input_schema": {
                    "type": "object",
                    "properties": {"amount": {"type": "money"}, "a": {"oneOf": []}},
                    "required": ["amount", "nope"],
                },
            }
        )
    )
    where = {i.location for i in report.errors}
    assert where >= {
        "stages[0].input_schema.properties.amount.type",
        "stages[0].input_schema.properties.a.oneOf",
        "stages[0].input_schema.required",
    }
    assert codes["invalid_schema"]


def test_expression_problems_and_unknown_names() -> None:
    _, report = validate_workflow(
        _wf(
            {"id": "g", "kind": "gate", "when": "slots.a.b == true"},
            {"id": "h", "kind": "gate", "when": "slots.a.b ==", "next": "end"},
            {"id": "i", "kind": "gate", "when": "slot.a"},
        )
    )
    by_location = {i.location: i for i in report.errors}
    assert by_location["stages[0].when"].code == "unknown_name"
    assert "did you mean True" in by_location["stages[0].when"].message
    assert by_location["stages[1].when"].code == "invalid_expression"
    assert "did you mean 'slots'" in by_location["stages[2].when"].message


def test_a_condition_that_always_fails_by_the_channels_types_is_an_error() -> None:
    _, report = validate_workflow(
        _wf(
            {"id": "g", "kind": "gate", "when": "len_notes > 0 or notes + 1 > 0"},
            {"id": "h", "kind": "gate", "when": "slots.a.count + 1 > 2 and 'x' in goal", "next": "end"},
        )
    )
    typed = [i for i in report.errors if i.code == "expression_type_error"]
    assert [i.location for i in typed] == ["stages[0].when"]  # values inside a channel are unknown
    assert "'+' cannot combine a list (notes) and an integer" in typed[0].message


def test_structure_errors_use_the_config_reporting() -> None:
    codes = _codes(_wf({"id": "x", "kind": "llm", "role": "clasify"}, {"id": "y", "kind": "http"}))
    assert "invalid_value" in codes and "clasify" in codes["invalid_value"]
    assert "missing_field" in codes and "url" in codes["missing_field"]
    assert "unknown_key" in _codes(_wf({"id": "x", "kind": "gate", "when": "True", "whenn": "x"}))


def test_duplicate_ids_extract_without_schema_and_unproduced_keys() -> None:
    codes = _codes(
        _wf(
            {"id": "a", "kind": "llm", "role": "extract"},
            {"id": "a", "kind": "gate", "when": "True"},
        )
    )
    assert {"duplicate_stage", "missing_output_schema"} <= set(codes)
    codes = _codes(
        _wf(
            {
                "id": "call",
                "kind": "http",
                "url": "http://127.0.0.1:1/x",
                "input_schema": {"type": "object", "properties": {"k": {}}, "required": ["k"]},
            },
            goal_schema={"type": "object", "properties": {"other": {"type": "string"}}},
        )
    )
    assert "unproduced_key" in codes and "'k'" in codes["unproduced_key"]


def test_issues_from_a_file_carry_line_and_column(tmp_path: Path) -> None:
    file = tmp_path / "wf.yaml"
    file.write_text(
        "workflow: w\nstages:\n  - id: a\n    kind: gate\n    when: 'True'\n    next: nowhere\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigValidationError) as caught:
        load_workflow(file)
    (issue,) = caught.value.issues
    assert (issue.file, issue.line, issue.column, issue.code) == (str(file), 6, 5, "unknown_stage")


def test_an_unreadable_file_is_a_load_error(tmp_path: Path) -> None:
    file = tmp_path / "wf.yaml"
    file.write_text("workflow: [unclosed\n", encoding="utf-8")
    with pytest.raises(ConfigLoadError):
        load_workflow(file)


def test_warnings_do_not_block_loading() -> None:
    workflow, report = validate_workflow(
        _wf(
            {"id": "a", "kind": "http", "url": "/relative", "args": {"x": 1},
             "input_schema": {"type": "object", "properties": {"y": {}}}},
            {"id": "b", "kind": "gate", "when": "True"},
            {"id": "c", "kind": "gate", "when": "True"},
        )
    )  # fmt: skip
    assert workflow is not None
    assert {w.code for w in report.warnings} == {"relative_url", "undeclared_arg"}
