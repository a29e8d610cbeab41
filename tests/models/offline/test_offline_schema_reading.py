"""Reading a tool's schema: everything a plan needs of a parameter (kind, words, stems, what it counts) is
read once with it, so a model object that keeps the setters it read (``ToolViews``) never reads a schema
twice; ``read_setters`` itself keeps nothing."""

from __future__ import annotations

import copy
from typing import Any

from slotgraph.models.offline.schema import read_setters

TOOL: dict[str, Any] = {
    "name": "set_guests",
    "description": "Record the party size.",
    "parameters": {
        "type": "object",
        "properties": {"party_size": {"type": "integer", "description": "How many guests (1-12)."}},
        "required": ["party_size"],
    },
}


def test_the_same_schema_reads_to_an_equal_setter_and_nothing_is_kept() -> None:
    (first,) = read_setters([TOOL])
    (again,) = read_setters([copy.deepcopy(TOOL)])
    assert again == first and again is not first
    assert first.name == "set_guests" and [p.name for p in first.params] == ["party_size"]
    assert first.params[0].kind == "integer" and first.params[0].scale_max == 12


def test_a_parameters_words_are_read_with_it() -> None:
    (setter,) = read_setters([TOOL])
    (param,) = setter.params
    assert param.name_stems == {"party", "size"}
    assert {"guest", "many"} <= param.described_stems and not param.described_stems & param.name_stems
    assert param.unit_classes == {"person"}  # "party", "size" and "guests" all count people
    goal = {"type": "string", "enum": ["FindRestaurants", "ReserveRestaurant"], "description": "What to do."}
    (choice,) = read_setters([{**TOOL, "parameters": {"type": "object", "properties": {"goal": goal}}}])
    assert {"find", "restaurant", "reserve"} <= choice.params[0].value_stems


def test_a_changed_schema_reads_differently() -> None:
    (before,) = read_setters([TOOL])
    changed = copy.deepcopy(TOOL)
    changed["parameters"]["properties"]["party_size"] = {"type": "string", "description": "The guest's name."}
    (after,) = read_setters([changed])
    assert after != before and after.params[0].kind != "integer"


def test_a_schema_that_is_not_json_is_still_read() -> None:
    when = {"type": "string", "default": {1}}  # a set: not JSON
    odd = {**TOOL, "parameters": {"type": "object", "properties": {"when": when}}}
    (setter,) = read_setters([odd])
    assert [p.name for p in setter.params] == ["when"]
