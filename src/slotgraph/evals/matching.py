"""Value matching for expectations: recursive subsets, numbers by value, dotted state paths.

The rules (documented in ``docs/evals.md``):

* a mapping matches when every expected key is present and matches (extra actual keys are fine); an empty
  mapping matches only an empty one (``pending: {}`` means nothing is pending) — except under the platform's
  golden rules (``empty_matches_any``), where an expected ``{}`` matches any mapping;
* a list matches a list of the same length whose items match pairwise;
* numbers match by value (``4 == 4.0``); booleans are not numbers (``True != 1``); a string never equals a
  number (``"4" != 4``: a tool that receives a string where the schema says integer is a real difference);
* everything else by equality.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["MISSING", "find_mismatch", "lookup_path", "render", "values_match"]


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def find_mismatch(
    expected: Any, actual: Any, where: str = "", *, empty_matches_any: bool = False
) -> str | None:
    """``None`` when ``actual`` matches ``expected``, else where and how they first differ."""
    at = f" at {where}" if where else ""
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return f"expected a mapping{at}, got {render(actual)}"
        if not expected and actual and not empty_matches_any:
            return f"expected an empty mapping{at}, got {render(actual)}"
        for key, value in expected.items():
            child = f"{where}.{key}" if where else str(key)
            if key not in actual:
                return f"missing key {child}"
            problem = find_mismatch(value, actual[key], child, empty_matches_any=empty_matches_any)
            if problem is not None:
                return problem
        return None
    if isinstance(expected, Sequence) and not isinstance(expected, str | bytes):
        if not isinstance(actual, Sequence) or isinstance(actual, str | bytes):
            return f"expected a list{at}, got {render(actual)}"
        if len(expected) != len(actual):
            return f"expected {len(expected)} items{at}, got {len(actual)}: {render(actual)}"
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            problem = find_mismatch(want, got, f"{where}[{index}]", empty_matches_any=empty_matches_any)
            if problem is not None:
                return problem
        return None
    if _is_number(expected) and _is_number(actual):
        return None if float(expected) == float(actual) else f"expected {render(expected)}{at}, got {actual}"
    if type(expected) is not type(actual) and (_is_number(expected) or _is_number(actual)):
        return f"expected {render(expected)}{at}, got {render(actual)}"
    if expected != actual:
        return f"expected {render(expected)}{at}, got {render(actual)}"
    return None


def values_match(expected: Any, actual: Any) -> bool:
    """True when ``actual`` matches ``expected`` under the module's rules."""
    return find_mismatch(expected, actual) is None


def lookup_path(data: Any, path: str) -> Any:
    """The value at a dotted path (``filled.party_size``, ``task_results.Book.0``) or :data:`MISSING`."""
    current = data
    for part in path.split("."):
        if isinstance(current, Mapping) and part in current:
            current = current[part]
        elif isinstance(current, Sequence) and not isinstance(current, str) and part.lstrip("-").isdigit():
            index = int(part)
            if -len(current) <= index < len(current):
                current = current[index]
            else:
                return MISSING
        else:
            return MISSING
    return current


def render(value: Any, limit: int = 200) -> str:
    """A short JSON-ish rendering for failure messages."""
    if value is MISSING:
        return "<missing>"
    try:
        text = json.dumps(value, default=str, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
