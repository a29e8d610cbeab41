"""Reading the tools' schemas once: an agent offers the same tools on every call, so a tool's setter is read
from its schema the first time and reused while the schema is the same."""

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


def test_the_same_schema_gives_the_same_setter_without_reading_it_again() -> None:
    (first,) = read_setters([TOOL])
    (again,) = read_setters([copy.deepcopy(TOOL)])  # an equal schema, as the next model call sends it
    assert again is first
    assert first.name == "set_guests" and [p.name for p in first.params] == ["party_size"]
    assert first.params[0].kind == "integer" and first.params[0].scale_max == 12


def test_a_changed_schema_is_read_afresh() -> None:
    (before,) = read_setters([TOOL])
    changed = copy.deepcopy(TOOL)
    changed["parameters"]["properties"]["party_size"] = {"type": "string", "description": "The guest's name."}
    (after,) = read_setters([changed])
    assert after is not before and after.params[0].kind != "integer"
    (back,) = read_setters([TOOL])
    assert back is before


def test_a_schema_that_is_not_json_is_still_read() -> None:
    when = {"type": "string", "default": {1}}  # a set: json.dumps refuses it
    odd = {**TOOL, "parameters": {"type": "object", "properties": {"when": when}}}
    (setter,) = read_setters([odd])
    assert [p.name for p in setter.params] == ["when"]
