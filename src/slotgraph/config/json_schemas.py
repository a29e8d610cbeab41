"""JSON Schemas of HTTP bodies and structured outputs, compiled once into pydantic models.

Workflows write ``output_schema`` (what an LLM stage must return) and ``input_schema`` (what an HTTP stage's
body may carry), and agents' HTTP tools their ``input_schema``, as JSON Schema, the language every HTTP API
and model vendor already speaks. Slotgraph supports the subset that describes JSON objects — enough for
stage handoff, small enough to check fully at load time (an unsupported keyword is a located error, never
silently ignored):

- ``type``: ``object`` (``properties``, ``required``, ``additionalProperties``: bool), ``string``, ``number``,
  ``integer``, ``boolean``, ``array`` (``items``), ``null``, or a list of those;
- ``enum``; ``description``, ``title``, ``format``, ``default``, ``examples`` (documentation);
- ``minimum``, ``maximum``, ``minLength``, ``maxLength``, ``pattern``, ``minItems``, ``maxItems``.

:func:`compile_schema` returns a :class:`CompiledSchema`: the pydantic model that validates a value (the
structured-output check of LLM stages, the type check of HTTP bodies) plus the declared ``properties`` and
``required`` keys that drive payload assembly (:mod:`slotgraph.config.payloads`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

__all__ = ["CompiledSchema", "SchemaProblem", "compile_schema", "error_lines"]

_TYPES = ("object", "string", "number", "integer", "boolean", "array", "null")
_DOC_KEYS = {"description", "title", "format", "default", "examples", "$schema", "$comment"}
_CONSTRAINTS = {
    "minimum": "ge",
    "maximum": "le",
    "minLength": "min_length",
    "maxLength": "max_length",
    "pattern": "pattern",
    "minItems": "min_length",
    "maxItems": "max_length",
}
_KEYS = {"type", "properties", "required", "additionalProperties", "items", "enum", *_DOC_KEYS, *_CONSTRAINTS}
_SCALARS: dict[str, Any] = {
    "string": str,
    "number": float,
    "integer": int,
    "boolean": bool,
    "null": type(None),
}


@dataclass(frozen=True, slots=True)
class SchemaProblem:
    """One problem of a schema: ``location`` is relative to the schema (``properties.amount.type``)."""

    location: str
    message: str
    fix: str


@dataclass(frozen=True, slots=True)
class CompiledSchema:
    """A checked schema: its source, its declared keys and the model that validates values."""

    source: Mapping[str, Any]
    properties: tuple[str, ...]
    required: tuple[str, ...]
    model: type[BaseModel]

    def validate(self, value: Any) -> dict[str, Any]:
        """The value as validated JSON data; raises :class:`pydantic.ValidationError`."""
        return self.model.model_validate(value).model_dump(mode="json", exclude_unset=True)


def error_lines(err: ValidationError) -> list[str]:
    """One short line per problem of a validation error (``amount: Input should be a valid number``)."""
    lines = []
    for detail in err.errors(include_url=False):
        where = ".".join(str(part) for part in detail["loc"]) or "<value>"
        lines.append(f"{where}: {detail['msg']}")
    return lines


def _join(base: str, part: str) -> str:
    return f"{base}.{part}" if base else part


class _Builder:
    def __init__(self, name: str) -> None:
        self.name = name
        self.problems: list[SchemaProblem] = []
        self.count = 0

    def problem(self, where: str, message: str, fix: str) -> Any:
        self.problems.append(SchemaProblem(where, message, fix))
        return Any

    def annotation(self, schema: Any, where: str) -> Any:
        """The Python type a (sub)schema describes; records problems and returns ``Any`` on error."""
        if not isinstance(schema, Mapping):
            return self.problem(where, "a schema must be a mapping", "write it as {type: ...}")
        for key in schema:
            if key not in _KEYS:
                self.problem(
                    _join(where, str(key)),
                    f"unsupported JSON Schema keyword {key!r}",
                    f"use only: {', '.join(sorted(_KEYS))}",
                )
        if "enum" in schema:
            values = schema["enum"]
            if not isinstance(values, list) or not values:
                return self.problem(_join(where, "enum"), "enum must be a non-empty list", "list the values")
            if not all(isinstance(v, str | int | float | bool) or v is None for v in values):
                return self.problem(_join(where, "enum"), "enum values must be scalars", "list scalars")
            return Literal[tuple(values)]
        kinds = schema.get("type")
        names = kinds if isinstance(kinds, list) else [kinds] if kinds is not None else []
        if kinds is not None and (not names or not all(isinstance(n, str) and n in _TYPES for n in names)):
            return self.problem(
                _join(where, "type"), f"unknown type {kinds!r}", f"use one of: {', '.join(_TYPES)}"
            )
        if not names:
            return Any
        options = [self._one(name, schema, where) for name in names]
        result = options[0]
        for option in options[1:]:
            result = result | option
        return result

    def _one(self, kind: str, schema: Mapping[str, Any], where: str) -> Any:
        if kind == "object":
            if "properties" in schema or "required" in schema:
                return self.model(schema, where)
            return dict[str, Any]
        if kind == "array":
            items = schema.get("items")
            inner = self.annotation(items, _join(where, "items")) if items is not None else Any
            return list[inner]  # type: ignore[valid-type]
        return _SCALARS[kind]

    def model(self, schema: Mapping[str, Any], where: str) -> type[BaseModel]:
        properties = schema.get("properties", {})
        if not isinstance(properties, Mapping):
            self.problem(_join(where, "properties"), "properties must be a mapping", "map key: {type: ...}")
            properties = {}
        required = schema.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            self.problem(_join(where, "required"), "required must be a list of key names", "list the keys")
            required = []
        for key in required:
            if properties and key not in properties:
                self.problem(
                    _join(where, "required"),
                    f"required key {key!r} is not declared in properties",
                    f"add {key!r} under properties or remove it from required",
                )
        extra = schema.get("additionalProperties", True)
        if not isinstance(extra, bool):
            self.problem(_join(where, "additionalProperties"), "must be true or false", "write true or false")
            extra = True
        fields: dict[str, Any] = {}
        for key, sub in properties.items():
            if not isinstance(key, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
                self.problem(
                    _join(where, f"properties.{key}"),
                    f"property name {key!r} is not an identifier",
                    "use letters, digits and underscores (not starting with a digit)",
                )
                continue
            at = _join(where, f"properties.{key}")
            annotation = self.annotation(sub, at)
            constraints = {}
            if isinstance(sub, Mapping):
                constraints = {_CONSTRAINTS[c]: sub[c] for c in _CONSTRAINTS if c in sub}
            default: Any = ... if key in required else None
            if key not in required:
                annotation = annotation | None
            try:
                fields[key] = (annotation, Field(default, **constraints))
            except (TypeError, ValueError) as err:  # pragma: no cover - pydantic rejects a constraint
                self.problem(at, f"bad constraint: {err}", "correct the constraint")
        self.count += 1
        config = ConfigDict(extra="allow" if extra else "forbid")
        try:
            return create_model(f"{self.name}_{self.count}", __config__=config, **fields)
        except Exception as err:  # e.g. a pattern that is not a valid regular expression
            self.problem(where, f"cannot be compiled: {err}", "correct the schema")
            return create_model(f"{self.name}_{self.count}", __config__=ConfigDict(extra="allow"))


def compile_schema(schema: Any, *, name: str = "Schema") -> tuple[CompiledSchema | None, list[SchemaProblem]]:
    """Compile an object schema; returns ``(None, problems)`` when anything is wrong."""
    builder = _Builder(re.sub(r"\W", "_", name))
    if not isinstance(schema, Mapping):
        return None, [
            SchemaProblem("", "a schema must be a mapping", "write {type: object, properties: ...}")
        ]
    if schema.get("type", "object") != "object":
        return None, [
            SchemaProblem("type", "a stage schema describes a JSON object", "write type: object at its top")
        ]
    for key in schema:
        if key not in _KEYS:
            builder.problem(
                str(key), f"unsupported JSON Schema keyword {key!r}", f"use only: {', '.join(sorted(_KEYS))}"
            )
    model = builder.model(schema, "")
    if builder.problems:
        return None, builder.problems
    properties = tuple(str(k) for k in schema.get("properties", {}))
    required: Sequence[str] = schema.get("required", [])
    return CompiledSchema(schema, properties, tuple(required), model), []
