"""Turning a plain Python function into the JSON Schema a model sees.

The tool's name is the function's name; its description is the docstring's prose before the first
Google-style section (``Args:``, ``Returns:``, ...) — the first paragraph says what the tool does, the
following ones how to prepare arguments (docs/tools.md#what-the-model-sees), and both belong in front of the
model. Each parameter becomes a property whose type comes from its annotation and whose description comes from
the ``Args:`` section; a parameter without a default is required.

Supported annotations: ``int``, ``float``, ``str``, ``bool``, ``Optional[X]`` / ``X | None``,
``Literal[...]`` (an enum), ``list[X]`` / ``tuple[X, ...]``, ``dict[str, X]``, ``datetime.date`` /
``datetime.datetime`` (strings with a format), ``Any``. Parameters that the runtime injects — annotated
:class:`~slotgraph.runtime.tools.ToolContext` or named ``context``, ``today`` or ``now`` — never appear in the
schema. Anything else is a :class:`~slotgraph.runtime.errors.ToolDefinitionError` naming the function, the
parameter and the fix.
"""

from __future__ import annotations

import datetime
import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from slotgraph.runtime.errors import ToolDefinitionError

__all__ = ["INJECTABLE_NAMES", "ParsedDocstring", "ParsedSignature", "parse_docstring", "parse_signature"]

INJECTABLE_NAMES = frozenset({"context", "today", "now", "idempotency_key"})
"""Parameter names the runtime fills from the session, never the model."""

_SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Returns|Return|Yields|Raises|Examples?|Notes?|Attributes)\s*:\s*$"
)
_ARG_LINE = re.compile(r"^(\*{0,2}\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")


@dataclass(frozen=True, slots=True)
class ParsedDocstring:
    description: str
    params: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class ParsedSignature:
    """A function's schema plus what the runtime must inject: ``{parameter: "context" | "today" | "now" |
    "idempotency_key"}``."""

    parameters: Mapping[str, Any]
    injected: Mapping[str, str]
    annotations: Mapping[str, Any]
    defaults: Mapping[str, Any]


def parse_docstring(doc: str | None) -> ParsedDocstring:
    """Split a Google-style docstring into its description and ``Args:`` descriptions."""
    if not doc:
        return ParsedDocstring("", {})
    lines = inspect.cleandoc(doc).splitlines()
    prose: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    base_indent: int | None = None
    for line in lines:
        match = _SECTION.match(line)
        if match:
            section = match.group(1).lower()
            current, base_indent = None, None
            continue
        if section is None:
            prose.append(line)
            continue
        if section not in {"args", "arguments", "parameters", "params"} or not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if base_indent is None:
            base_indent = indent
        arg = _ARG_LINE.match(line.strip())
        if indent <= base_indent and arg:
            current = arg.group(1).lstrip("*")
            params[current] = arg.group(3).strip()
        elif current is not None:
            params[current] = f"{params[current]} {line.strip()}".strip()
    paragraphs = "\n".join(prose).strip().split("\n\n")
    description = "\n\n".join(" ".join(p.split()) for p in paragraphs if p.strip())
    return ParsedDocstring(description, params)


def _fail(fn: Callable[..., Any], message: str) -> ToolDefinitionError:
    return ToolDefinitionError(f"tool {fn.__name__!r} ({_where(fn)}): {message}")


def _where(fn: Callable[..., Any]) -> str:
    code = getattr(fn, "__code__", None)
    if code is None:
        return getattr(fn, "__module__", "?")
    return f"{code.co_filename}:{code.co_firstlineno}"


def _json_type_of_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string"


def annotation_schema(annotation: Any, fn: Callable[..., Any], param: str) -> dict[str, Any]:
    """The JSON Schema of one annotation (raises ToolDefinitionError for unsupported ones)."""
    simple: dict[Any, str] = {int: "integer", float: "number", str: "string", bool: "boolean"}
    if annotation in simple:
        return {"type": simple[annotation]}
    if annotation is Any or annotation is inspect.Parameter.empty:
        return {}
    if annotation is datetime.date:
        return {"type": "string", "format": "date"}
    if annotation is datetime.datetime:
        return {"type": "string", "format": "date-time"}
    if annotation is type(None):
        return {"type": "null"}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Literal:
        kinds = sorted({_json_type_of_literal(v) for v in args})
        return {"type": kinds[0] if len(kinds) == 1 else kinds, "enum": list(args)}
    if origin in (typing.Union, types.UnionType):
        members = [a for a in args if a is not type(None)]
        nullable = len(members) < len(args)
        schemas = [annotation_schema(a, fn, param) for a in members]
        if len(schemas) == 1:
            schema = dict(schemas[0])
            if nullable and isinstance(schema.get("type"), str) and "enum" not in schema:
                schema["type"] = [schema["type"], "null"]
            elif nullable:
                schema = {"anyOf": [schema, {"type": "null"}]}
            return schema
        return {"anyOf": [*schemas, *([{"type": "null"}] if nullable else [])]}
    if origin in (list, tuple, set, frozenset) or annotation in (list, tuple):
        item = args[0] if args else Any
        return {"type": "array", "items": annotation_schema(item, fn, param)}
    if origin is dict or annotation is dict:
        value = args[1] if len(args) == 2 else Any
        return {"type": "object", "additionalProperties": annotation_schema(value, fn, param)}
    raise _fail(
        fn,
        f"parameter {param!r} has an unsupported annotation {annotation!r} — fix: use int, float, str, bool, "
        "Optional[...], Literal[...], list[...], dict[str, ...], datetime.date or Any",
    )


def _is_context_annotation(annotation: Any) -> bool:
    name = getattr(annotation, "__name__", None) or (annotation if isinstance(annotation, str) else "")
    return name == "ToolContext" or (isinstance(name, str) and name.endswith(".ToolContext"))


def parse_signature(fn: Callable[..., Any], docs: ParsedDocstring) -> ParsedSignature:
    """Build the parameters schema of ``fn`` and find the parameters the runtime injects."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as err:
        raise _fail(fn, f"its signature cannot be read ({err})") from None
    try:
        hints = typing.get_type_hints(fn)
    except Exception as err:
        raise _fail(fn, f"its type hints cannot be resolved ({type(err).__name__}: {err})") from None
    properties: dict[str, Any] = {}
    required: list[str] = []
    injected: dict[str, str] = {}
    annotations: dict[str, Any] = {}
    defaults: dict[str, Any] = {}
    for name, parameter in signature.parameters.items():
        if parameter.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise _fail(fn, f"parameter {name!r} is *args/**kwargs — fix: declare each argument by name")
        annotation = hints.get(name, parameter.annotation)
        if _is_context_annotation(annotation) or name == "context":
            injected[name] = "context"
            continue
        if name in INJECTABLE_NAMES:
            injected[name] = name
            continue
        schema = annotation_schema(annotation, fn, name)
        if docs.params.get(name):
            schema["description"] = docs.params[name]
        properties[name] = schema
        annotations[name] = Any if annotation is inspect.Parameter.empty else annotation
        if parameter.default is inspect.Parameter.empty:
            required.append(name)
        else:
            defaults[name] = parameter.default
    parameters: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        parameters["required"] = required
    return ParsedSignature(parameters, injected, annotations, defaults)
