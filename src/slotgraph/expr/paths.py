"""``extract_output_path``: the deliberately minimal ``$.order.items[0].sku`` projection.

Grammar: ``$`` followed by any number of segments — ``.name`` (a Python identifier), ``[index]`` (a
non-negative decimal integer) or ``["key"]`` / ``['key']`` (any characters but the quote and backslash).
Keys are read only from mappings and indices only from lists and tuples; anything missing or of the
wrong shape yields ``None``. A malformed path raises ExpressionSyntaxError (``bad_path``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from slotgraph.expr.errors import BAD_PATH, INVALID_SOURCE, ExpressionSyntaxError, Position
from slotgraph.expr.limits import check_source_length

_SEGMENT: Final = re.compile(
    r"\.(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|\[(?P<index>0|[1-9][0-9]{0,17})\]"
    r"|\[\"(?P<dq>[^\"\\]*)\"\]"
    r"|\['(?P<sq>[^'\\]*)'\]",
    re.ASCII,
)


def parse_output_path(path: str) -> tuple[str | int, ...]:
    """The path's steps (keys as str, indices as int); raises ExpressionSyntaxError on a malformed path
    (and on a ``path`` that is not a string, as an untyped config may hold)."""
    if not isinstance(path, str):
        raise ExpressionSyntaxError(INVALID_SOURCE, f"path must be a str, not {type(path).__name__}")
    check_source_length(path)
    if not path.startswith("$"):
        raise ExpressionSyntaxError(BAD_PATH, "a path starts with '$'", position=Position(1, 0), source=path)
    steps: list[str | int] = []
    at = 1
    while at < len(path):
        match = _SEGMENT.match(path, at)
        if match is None:
            raise ExpressionSyntaxError(
                BAD_PATH,
                "expected '.name', '[index]' or '[\"key\"]'",
                position=Position(1, at),
                source=path,
            )
        index = match.group("index")
        if index is not None:
            steps.append(int(index))
        else:
            key = match.group("name") or match.group("dq") or match.group("sq") or ""
            steps.append(key)
        at = match.end()
    return tuple(steps)


def extract_output_path(value: Any, path: str) -> Any:
    """Project ``value`` along ``path``; missing keys, bad indices or wrong shapes give ``None``."""
    current = value
    for step in parse_output_path(path):
        if isinstance(step, str):
            if not isinstance(current, Mapping):
                return None
            try:
                current = current.get(step)
            except Exception:  # a caller's exotic mapping must not break capture
                return None
        else:
            if not isinstance(current, list | tuple) or step >= len(current):
                return None
            current = current[step]
    return current
