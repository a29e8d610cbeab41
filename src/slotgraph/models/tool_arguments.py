"""Tool-call arguments a server sent as text: parse them, or turn bad ones into a refusable call.

OpenAI-style servers send a tool call's arguments as a JSON string, and models sometimes get it wrong. A
backend must never crash on that: :func:`parse_arguments` returns arguments whose single key reads
``arguments were not valid JSON (<why>)`` (:func:`unparsable_arguments`). No tool declares such a parameter
and every tool's validator forbids unknown ones, so the runtime refuses the call as ``bad_arguments`` with a
message the model can read — ``Invalid arguments for set_x: arguments were not valid JSON (Expecting ','
delimiter: line 1 column 20 (char 19)): Extra inputs are not permitted. Call it again ...`` — and the model
gets its next call, as with any other refusal.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = [
    "INVALID_ARGUMENTS_PREFIX",
    "MAX_DEPTH",
    "is_unparsable",
    "parse_arguments",
    "unparsable_arguments",
]

INVALID_ARGUMENTS_PREFIX = "arguments were not valid JSON"
_RAW_LIMIT = 500
MAX_DEPTH = 64
"""The deepest arguments accepted (the runtime's bound on any JSON value from outside: 64 levels). Deeper
ones — a model's 100,000 nested objects — are refused like text that is not JSON, never a crash."""


def unparsable_arguments(reason: str, raw: str) -> dict[str, Any]:
    """Arguments that carry why the server's text was refused, and (an excerpt of) that text."""
    excerpt = raw if len(raw) <= _RAW_LIMIT else raw[:_RAW_LIMIT] + "…"
    return {f"{INVALID_ARGUMENTS_PREFIX} ({reason})": excerpt}


def is_unparsable(args: Mapping[str, Any]) -> bool:
    """Whether ``args`` came from :func:`unparsable_arguments`."""
    return len(args) == 1 and next(iter(args)).startswith(INVALID_ARGUMENTS_PREFIX)


def parse_arguments(raw: Any) -> dict[str, Any]:
    """A tool call's arguments from the wire: a JSON object as text (or already decoded, or empty)."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    if isinstance(raw, Mapping):
        return dict(raw)
    if not isinstance(raw, str):
        return unparsable_arguments(f"expected a JSON object as text, got {type(raw).__name__}", repr(raw))
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as err:
        return unparsable_arguments(str(err), raw)
    except RecursionError:
        return unparsable_arguments(f"nested more than {MAX_DEPTH} levels deep", raw)
    if not isinstance(value, dict):
        return unparsable_arguments(f"expected a JSON object, got {type(value).__name__}", raw)
    if _depth(value) > MAX_DEPTH:
        return unparsable_arguments(f"nested more than {MAX_DEPTH} levels deep", raw)
    return value


def _depth(value: Any) -> int:
    """How deeply ``value`` nests (a scalar is 0), walked without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        if level <= MAX_DEPTH:  # past the limit nothing deeper changes the answer
            stack.extend((child, level + 1) for child in children)
    return deepest
