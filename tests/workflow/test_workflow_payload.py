"""HTTP body assembly: goal base, declared keys only, undeclared dropped, fail closed, never a dump."""

from __future__ import annotations

from typing import Any

import pytest

from slotgraph.workflow import MissingRequiredKeyError, PayloadSchemaError, assemble_payload, compile_schema
from slotgraph.workflow.schemas import CompiledSchema

GOAL = {"doc_id": "D-1", "account_id": "A-7", "message": "refund my coffee please"}
SLOTS = {"extract_fields": {"merchant": "Blue Bottle", "amount": 4.5, "date": "2026-11-20", "mood": "calm"}}


def _schema(properties: dict[str, Any], required: list[str] | None = None) -> CompiledSchema:
    compiled, problems = compile_schema(
        {"type": "object", "properties": properties, "required": required or []}
    )
    assert compiled is not None, problems
    return compiled


MATCH = _schema(
    {"doc_id": {"type": "string"}, "account_id": {"type": "string"}, "merchant": {"type": "string"},
     "amount": {"type": "number"}, "date": {"type": "string"}},
    ["account_id", "merchant", "amount", "date"],
)  # fmt: skip


def test_goal_plus_declared_slot_keys_and_nothing_else() -> None:
    body = assemble_payload(stage_id="match", goal=GOAL, slots=SLOTS, schema=MATCH)
    assert body == {
        "doc_id": "D-1",
        "account_id": "A-7",
        "merchant": "Blue Bottle",
        "amount": 4.5,
        "date": "2026-11-20",
    }  # the utterance ("message") and the undeclared slot key ("mood") are dropped


def test_a_missing_required_key_fails_closed_naming_the_key_and_its_producer() -> None:
    slots = {"extract_fields": {"merchant": "Blue Bottle", "date": "2026-11-20"}}
    with pytest.raises(MissingRequiredKeyError) as caught:
        assemble_payload(
            stage_id="match", goal=GOAL, slots=slots, schema=MATCH, producers={"amount": ("extract_fields",)}
        )
    err = caught.value
    assert (err.stage_id, err.key, err.producers, err.code) == (
        "match",
        "amount",
        ("extract_fields",),
        "missing_required_key",
    )
    assert "'amount'" in str(err) and "'extract_fields' should have produced it" in str(err)


def test_a_required_key_nobody_produces_points_at_the_goal() -> None:
    with pytest.raises(MissingRequiredKeyError, match="start payload"):
        assemble_payload(stage_id="match", goal={}, slots=SLOTS, schema=MATCH)


def test_a_null_required_value_counts_as_missing() -> None:
    slots = {"extract_fields": {**SLOTS["extract_fields"], "amount": None}}
    with pytest.raises(MissingRequiredKeyError):
        assemble_payload(stage_id="match", goal=GOAL, slots=slots, schema=MATCH)


def test_later_stages_win_and_call_arguments_merge_only_when_declared() -> None:
    slots = {"a": {"merchant": "first"}, "b": {"merchant": "second"}}
    body = assemble_payload(
        stage_id="m",
        goal={"account_id": "A", "amount": 1, "date": "d"},
        slots=slots,
        schema=MATCH,
        args={"doc_id": "from-args", "secret": "never sent"},
    )
    assert body["merchant"] == "second" and body["doc_id"] == "from-args" and "secret" not in body


def test_without_properties_slots_and_notes_are_never_dumped() -> None:
    body = assemble_payload(stage_id="m", goal=GOAL, slots=SLOTS, schema=None, args={"page": 2})
    assert body == {**GOAL, "page": 2}
    schemaless = _schema({})
    assert assemble_payload(stage_id="m", goal=GOAL, slots=SLOTS, schema=schemaless) == GOAL


def test_notes_go_out_only_when_asked_and_declared() -> None:
    notes = ["extract_fields: coffee"]
    with_notes = _schema({"account_id": {}, "notes": {"type": "array", "items": {"type": "string"}}})
    assert assemble_payload(stage_id="m", goal=GOAL, slots={}, schema=with_notes, notes=notes) == {
        "account_id": "A-7",
        "notes": notes,
    }
    without = _schema({"account_id": {}})
    assert assemble_payload(stage_id="m", goal=GOAL, slots={}, schema=without, notes=notes) == {
        "account_id": "A-7"
    }


def test_a_value_of_the_wrong_type_is_refused_before_the_call() -> None:
    slots = {"extract_fields": {**SLOTS["extract_fields"], "amount": "a lot"}}
    with pytest.raises(PayloadSchemaError, match="amount"):
        assemble_payload(stage_id="match", goal=GOAL, slots=slots, schema=MATCH)


def test_the_goal_is_not_modified() -> None:
    goal = dict(GOAL)
    assemble_payload(stage_id="match", goal=goal, slots=SLOTS, schema=MATCH)
    assert goal == GOAL
