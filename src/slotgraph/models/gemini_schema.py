"""JSON Schema (as tools declare their parameters) → the Gemini API's schema subset (an OpenAPI 3.0 subset).

What changes:

- ``type`` is upper-case (``STRING``, ``INTEGER``, ``NUMBER``, ``BOOLEAN``, ``ARRAY``, ``OBJECT``); a type
  list with ``"null"`` (``["string", "null"]``) becomes the other type plus ``nullable: true``;
- ``anyOf: [X, {"type": "null"}]`` becomes ``X`` with ``nullable: true``; another ``anyOf`` stays, converted;
- ``$ref`` into ``$defs``/``definitions`` is inlined (depth-limited); ``const`` becomes a one-value ``enum``;
- ``enum`` stays when its values are strings; other values are listed in the description instead;
- ``format`` stays only where Gemini accepts it (``date-time``, ``enum``; ``int32``/``int64``;
  ``float``/``double``) — any other (``date``, ``time``, ``email``) is named in the description;
- dropped: ``additionalProperties``, ``default``, ``title``, ``examples``, ``$schema`` and anything else
  outside the subset; ``required`` keeps only declared properties.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["to_gemini_schema"]

_TYPES = {"string", "integer", "number", "boolean", "array", "object"}
_FORMATS = {"STRING": {"date-time", "enum"}, "INTEGER": {"int32", "int64"}, "NUMBER": {"float", "double"}}
_KEPT = ("minItems", "maxItems", "minimum", "maximum", "minLength", "maxLength", "pattern")
_MAX_REF_DEPTH = 8


def _note(description: str | None, note: str) -> str:
    return f"{description} ({note})" if description else note


def _resolve_ref(schema: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> Mapping[str, Any]:
    ref = schema.get("$ref")
    if not isinstance(ref, str) or depth > _MAX_REF_DEPTH:
        return schema
    node: Any = root
    for part in ref.removeprefix("#/").split("/"):
        node = node.get(part) if isinstance(node, Mapping) else None
    if not isinstance(node, Mapping):
        return {key: value for key, value in schema.items() if key != "$ref"}
    merged = {**node, **{key: value for key, value in schema.items() if key != "$ref"}}
    return _resolve_ref(merged, root, depth + 1)


def _split_nullable(schema: Mapping[str, Any]) -> tuple[Mapping[str, Any], bool]:
    """``X | null`` written as a type list or an ``anyOf``: (X, True); else (schema, False)."""
    kind = schema.get("type")
    if isinstance(kind, list):
        others = [t for t in kind if t != "null"]
        nullable = len(others) < len(kind)
        rest = {k: v for k, v in schema.items() if k != "type"}
        return ({**rest, "type": others[0]} if len(others) == 1 else rest), nullable
    options = schema.get("anyOf")
    if isinstance(options, list):
        others = [o for o in options if not (isinstance(o, Mapping) and o.get("type") == "null")]
        if len(others) < len(options) and len(others) == 1 and isinstance(others[0], Mapping):
            rest = {k: v for k, v in schema.items() if k != "anyOf"}
            return {**others[0], **rest}, True
        if len(others) < len(options):
            return {**schema, "anyOf": others}, True
    return schema, False


def _convert(schema: Any, root: Mapping[str, Any], depth: int) -> dict[str, Any]:
    if not isinstance(schema, Mapping):
        return {}
    schema, nullable = _split_nullable(_resolve_ref(schema, root, depth))
    out: dict[str, Any] = {}
    kind = schema.get("type")
    if isinstance(kind, str) and kind in _TYPES:
        out["type"] = kind.upper()
    description = schema.get("description") if isinstance(schema.get("description"), str) else None
    values = [schema["const"]] if "const" in schema else schema.get("enum")
    if isinstance(values, list) and values:
        if all(isinstance(v, str) for v in values):
            out["enum"] = list(values)
            out.setdefault("type", "STRING")
        else:
            description = _note(description, "one of: " + ", ".join(map(str, values)))
    fmt = schema.get("format")
    if isinstance(fmt, str):
        if fmt in _FORMATS.get(out.get("type", ""), set()):
            out["format"] = fmt
        else:
            description = _note(description, f"format: {fmt}")
    if description:
        out["description"] = description
    if nullable:
        out["nullable"] = True
    for key in _KEPT:
        if key in schema:
            out[key] = schema[key]
    if isinstance(schema.get("anyOf"), list):
        out["anyOf"] = [_convert(option, root, depth + 1) for option in schema["anyOf"]]
    if "items" in schema:
        out["items"] = _convert(schema["items"], root, depth + 1)
        out.setdefault("type", "ARRAY")
    properties = schema.get("properties")
    if isinstance(properties, Mapping) and properties:
        out["properties"] = {str(k): _convert(v, root, depth + 1) for k, v in properties.items()}
        out.setdefault("type", "OBJECT")
        required = [r for r in schema.get("required") or () if r in properties]
        if required:
            out["required"] = required
    return out


def to_gemini_schema(schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """A tool's parameter schema for a Gemini function declaration; None when it takes no parameters."""
    converted = _convert(schema, schema, 0)
    if converted.get("type", "OBJECT") == "OBJECT" and not converted.get("properties"):
        return None
    return converted
