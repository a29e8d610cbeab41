"""The published JSON Schemas: titles and descriptions for editors, extension keys accepted."""

from __future__ import annotations

from typing import Any

from slotgraph.config import agent_json_schema, dag_json_schema


def _objects(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        if node.get("additionalProperties") is False:
            found.append(node)
        for value in node.values():
            found.extend(_objects(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_objects(item))
    return found


def test_dag_schema_shape() -> None:
    schema = dag_json_schema()
    assert schema["title"] == "Slotgraph DAG config"
    assert {"slots", "tasks", "steer_back", "gate_slot"} <= set(schema["properties"])
    slot = schema["$defs"]["SlotConfig"]
    assert "requires_readback" in slot["properties"]
    assert slot.get("description")


def test_every_closed_object_accepts_extension_keys() -> None:
    for schema in (dag_json_schema(), agent_json_schema()):
        closed = _objects(schema)
        assert closed
        assert all("^x-" in obj["patternProperties"] for obj in closed)


def test_agent_schema_has_descriptions() -> None:
    schema = agent_json_schema()
    assert schema["required"] == ["name", "dag"]
    assert "provider:model" in schema["properties"]["model"]["description"]


def test_schemas_are_fresh_copies() -> None:
    first = dag_json_schema()
    first["title"] = "changed"
    assert dag_json_schema()["title"] == "Slotgraph DAG config"


def test_fields_have_descriptions_for_editors() -> None:
    slot = dag_json_schema()["$defs"]["SlotConfig"]["properties"]
    assert "task:<TaskName>" in slot["source"]["description"]
    assert slot["requires_readback"]["description"]
