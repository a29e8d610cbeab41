"""JSON Schemas of the DAG config and ``agent.yaml``, generated from the pydantic models.

Editors use them to autocomplete and check YAML. Field descriptions come from the models' attribute docstrings
(:mod:`slotgraph.config.docstrings`). Every object that refuses unknown keys also accepts keys
matching ``^x-`` (extension keys, ignored by the loader) through ``patternProperties``.
"""

from __future__ import annotations

from typing import Any

from slotgraph.config.agent import AgentConfig
from slotgraph.config.docstrings import DocumentedJsonSchema
from slotgraph.config.nodes import DagConfig

__all__ = ["agent_json_schema", "dag_json_schema"]

_EXTENSION = {"^x-": {"description": "Extension key: ignored by Slotgraph."}}


def _allow_extensions(node: Any) -> None:
    if isinstance(node, dict):
        if node.get("additionalProperties") is False:
            node.setdefault("patternProperties", {}).update(_EXTENSION)
        for value in node.values():
            _allow_extensions(value)
    elif isinstance(node, list):
        for item in node:
            _allow_extensions(item)


def _allow_platform_spelling(node: Any) -> None:
    """``channel_response`` (the original platform's spelling) beside every ``channel_responses``."""
    if isinstance(node, dict):
        properties = node.get("properties")
        if isinstance(properties, dict) and "channel_responses" in properties:
            properties.setdefault("channel_response", properties["channel_responses"])
        for value in node.values():
            _allow_platform_spelling(value)
    elif isinstance(node, list):
        for item in node:
            _allow_platform_spelling(item)


def _schema(model: type[DagConfig] | type[AgentConfig], title: str) -> dict[str, Any]:
    schema = model.model_json_schema(schema_generator=DocumentedJsonSchema)
    _allow_extensions(schema)
    _allow_platform_spelling(schema)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = title
    return schema


def dag_json_schema() -> dict[str, Any]:
    """The JSON Schema of a DAG config (``slots``, ``tasks``, ``steer_back``, ...)."""
    return _schema(DagConfig, "Slotgraph DAG config")


def agent_json_schema() -> dict[str, Any]:
    """The JSON Schema of ``agent.yaml``."""
    return _schema(AgentConfig, "Slotgraph agent")
