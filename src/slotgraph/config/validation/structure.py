"""Pydantic validation errors turned into :class:`ConfigIssue` with a location and a fix.

Pydantic reports union branches as extra location segments (``source.str``, ``then.ThenCall.argz``); they
are removed by walking the raw data along the error location. When an input matches one branch
structurally (a mapping for ``then``), errors deeper in that branch win over "wrong type" errors of the
other branches at the same place.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from slotgraph.config.errors import ConfigIssue
from slotgraph.config.suggest import closest, did_you_mean

__all__ = ["format_location", "structure_issues"]

_TYPE_NAMES = {
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "float_type": "a number",
    "float_parsing": "a number",
    "none_required": "null",
}


def format_location(path: Sequence[str | int]) -> str:
    """``("tasks", 1, "inputs", 2)`` → ``tasks[1].inputs[2]``."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def _real_path(raw: Any, loc: Sequence[str | int], kind: str) -> tuple[list[str | int], Any, bool]:
    """Drop union tags from a pydantic location; return (path, value there, whether the value exists)."""
    path: list[str | int] = []
    current: Any = raw
    exists = True
    for position, part in enumerate(loc):
        in_mapping = isinstance(current, Mapping) and part in current
        if in_mapping or (isinstance(current, list) and isinstance(part, int) and 0 <= part < len(current)):
            current = current[part]
            path.append(part)
        elif isinstance(current, Mapping) and kind == "missing" and position == len(loc) - 1:
            path.append(part)  # the required key that is absent
            exists = False
            current = None
        else:
            continue  # a union tag such as 'str', 'list[str]', 'ThenCall'
    return path, current, exists


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    for arg in typing.get_args(annotation):
        found.extend(_models_in(arg))
    return found


def _step(annotation: Any, part: str | int) -> list[Any]:
    """The annotations reached from ``annotation`` by one path segment."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        field = annotation.model_fields.get(part) if isinstance(part, str) else None
        return [field.annotation] if field is not None else []
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return [a for arg in args for a in _step(arg, part)]
    if origin is typing.Annotated:
        return _step(args[0], part)
    if origin is list and isinstance(part, int) and args:
        return [args[0]]
    if origin is dict and isinstance(part, str) and len(args) == 2:
        return [args[1]]
    return []


def _fields_at(model: type[BaseModel], path: Sequence[str | int]) -> set[str]:
    annotations: list[Any] = [model]
    for part in path:
        annotations = [a for ann in annotations for a in _step(ann, part)]
    return {name for ann in annotations for m in _models_in(ann) for name in m.model_fields}


def _describe(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


def structure_issues(raw: Mapping[str, Any], model: type[BaseModel]) -> list[ConfigIssue]:
    """Validate ``raw`` against ``model`` and return every structural problem as an issue."""
    try:
        model.model_validate(raw)
    except ValidationError as err:
        errors = err.errors(include_url=False)
    else:
        return []

    located: list[tuple[list[str | int], Any, bool, Mapping[str, Any]]] = []
    for details in errors:
        path, value, exists = _real_path(raw, details["loc"], details["type"])
        located.append((path, value, exists, dict(details)))
    deepest = {tuple(p) for p, _, _, _ in located}

    type_errors: dict[tuple[str | int, ...], list[tuple[Any, str]]] = {}
    issues: list[ConfigIssue] = []
    for path, value, _exists, error in located:
        where = format_location(path)
        kind = error["type"]
        if kind == "extra_forbidden":
            key = str(path[-1]) if path else "?"
            known = _fields_at(model, path[:-1])
            hint = did_you_mean(key, known)
            match = closest(key, known)
            allowed = ", ".join(sorted(known))
            issues.append(
                ConfigIssue(
                    "unknown_key",
                    where,
                    f"unknown key {key!r}{hint}",
                    (f"rename it to {match!r}" if match else f"remove it (allowed keys: {allowed})")
                    + "; prefix a key with 'x-' to keep private data in the config",
                )
            )
        elif kind == "missing":
            issues.append(
                ConfigIssue(
                    "missing_field",
                    where,
                    f"required field {path[-1]!r} is missing",
                    f"add {path[-1]}: <value> here",
                )
            )
        elif kind in _TYPE_NAMES:
            at = tuple(path)
            if any(other[: len(at)] == at and len(other) > len(at) for other in deepest):
                continue  # the input matched another branch structurally; its deeper errors say more
            type_errors.setdefault(at, []).append((value, _TYPE_NAMES[kind]))
        elif kind == "literal_error":
            expected = error.get("ctx", {}).get("expected", "")
            issues.append(
                ConfigIssue(
                    "invalid_value",
                    where,
                    f"{_describe(value)} is not allowed{did_you_mean(str(value), _literals(expected))}",
                    f"use one of: {expected}",
                )
            )
        elif kind == "value_error":
            message = str(error["msg"]).removeprefix("Value error, ")
            issues.append(
                ConfigIssue("invalid_value", where, message, "change the config as the message says")
            )
        else:
            issues.append(
                ConfigIssue(
                    "invalid_value",
                    where,
                    f"{error['msg']} (got {_describe(value)})",
                    "correct the value as the message says",
                )
            )
    for at, entries in type_errors.items():
        value = entries[0][0]
        expected = " or ".join(dict.fromkeys(name for _, name in entries))
        issues.append(
            ConfigIssue(
                "wrong_type",
                format_location(at),
                f"expected {expected}, got {_describe(value)}",
                f"write this value as {expected}",
            )
        )
    return issues


def _literals(expected: str) -> list[str]:
    return [part.strip().strip("'\"") for part in expected.replace(" or ", ",").split(",") if part.strip()]
