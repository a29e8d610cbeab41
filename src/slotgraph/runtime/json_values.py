"""Keeping the session state JSON: what a tool returns and what a model passes must survive a durable store.

The state (``sm``) and the history are saved as JSON by the durable stores (:mod:`slotgraph.stores.codec`),
which refuse anything JSON cannot carry. Refusing at save time is too late: the turn's tools have already
run (a booking was made), and the whole turn would be lost. So the runtime checks values where they enter:

* :func:`tool_result_json` turns a tool's result into JSON values — ``datetime``/``date``/``time`` become
  ISO strings, tuples, sets and frozensets lists, enums their value — and raises :class:`TypeError` with the
  path of anything else (an object, a non-finite float, a non-string key); the runtime then treats the call
  as failed, with that message, and the turn goes on.
* :func:`json_problem` says what in a model's tool-call arguments (or a request's ``event_data``) is not a
  JSON value (or ``None``).

Both also bound what they accept, so one value can never poison a session (a structure every later turn
fails to store or walk): at most :data:`MAX_DEPTH` levels of nesting (a cyclic structure is caught by this
too), at most :data:`MAX_VALUES` values and :data:`MAX_TEXT` characters of strings in total, and no string
holding a lone surrogate (UTF-8 cannot encode it).
"""

from __future__ import annotations

import datetime
import enum
import math
from collections.abc import Mapping
from typing import Any

__all__ = ["MAX_DEPTH", "MAX_TEXT", "MAX_VALUES", "json_problem", "tool_result_json"]

MAX_DEPTH = 64
"""Levels of nesting a value may have (``{"a": [1]}`` has 2)."""
MAX_VALUES = 100_000
"""Values (scalars, lists, objects) one value may hold in total."""
MAX_TEXT = 2_000_000
"""Characters of strings (keys included) one value may hold in total."""


class _Budget:
    """What is left of the size limits while one value is walked."""

    __slots__ = ("text", "values")

    def __init__(self) -> None:
        self.values = MAX_VALUES
        self.text = MAX_TEXT

    def take(self, path: str, text: str | None = None) -> str | None:
        """Count one value (and its text); what is wrong, or None."""
        self.values -= 1
        if self.values < 0:
            return f"{path}: the value holds more than {MAX_VALUES:,} values in total, which is too large"
        if text is not None:
            self.text -= len(text)
            if self.text < 0:
                return f"{path}: the value holds more than {MAX_TEXT:,} characters of text (too large)"
            return _text_problem(text, path)
        return None


def _text_problem(text: str, path: str) -> str | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        return f"{path} holds a lone surrogate ({text[err.start]!r} at {err.start}), which UTF-8 cannot carry"
    return None


def _too_deep(path: str) -> str:
    return f"{path} is nested more than {MAX_DEPTH} levels deep (or refers to itself), which is too deep"


def tool_result_json(value: Any, path: str = "result") -> Any:
    """``value`` as JSON values (see the module doc); :class:`TypeError` naming the path of what cannot be."""
    return _to_json(value, path, 0, _Budget())


def _to_json(value: Any, path: str, depth: int, budget: _Budget) -> Any:
    if depth > MAX_DEPTH:
        raise TypeError(_too_deep(path))
    if isinstance(value, str):
        problem = budget.take(path, value)
        if problem is not None:
            raise TypeError(problem)
        return value
    problem = budget.take(path)
    if problem is not None:
        raise TypeError(problem)
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TypeError(f"{path} is {value!r}, which JSON cannot carry")
        return value
    if isinstance(value, enum.Enum):
        return _to_json(value.value, path, depth, budget)
    if isinstance(value, datetime.date | datetime.time):  # datetime.datetime is a date
        return value.isoformat()
    if isinstance(value, Mapping):
        return _mapping_to_json(value, path, depth, budget)
    if isinstance(value, list | tuple):
        return [_to_json(item, f"{path}[{index}]", depth + 1, budget) for index, item in enumerate(value)]
    if isinstance(value, set | frozenset):
        items = [_to_json(item, f"{path}[{index}]", depth + 1, budget) for index, item in enumerate(value)]
        try:
            return sorted(items)
        except TypeError:  # mixed types: keep the set's own order
            return items
    raise TypeError(f"{path} is a {type(value).__name__} ({value!r:.60}), which JSON cannot carry")


def _mapping_to_json(value: Mapping[Any, Any], path: str, depth: int, budget: _Budget) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in value.items():
        if not isinstance(key, str):
            raise TypeError(f"{path} has a non-string key {key!r}, which JSON cannot carry")
        problem = budget.take(f"{path} key", key)
        if problem is not None:
            raise TypeError(problem)
        out[key] = _to_json(item, f"{path}.{key}", depth + 1, budget)
    return out


def json_problem(value: Any, path: str = "arguments") -> str | None:
    """What in ``value`` is not a JSON value (its path), or ``None`` when all of it is."""
    return _problem(value, path, 0, _Budget())


def _problem(value: Any, path: str, depth: int, budget: _Budget) -> str | None:
    if depth > MAX_DEPTH:
        return _too_deep(path)
    if isinstance(value, str):
        return budget.take(path, value)
    problem = budget.take(path)
    if problem is not None or value is None or isinstance(value, bool | int):
        return problem
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{path} is {value!r}, which is not a JSON number"
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{path} has a non-string key {key!r}"
            problem = budget.take(f"{path} key", key) or _problem(item, f"{path}.{key}", depth + 1, budget)
            if problem is not None:
                return problem
        return None
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            problem = _problem(item, f"{path}[{index}]", depth + 1, budget)
            if problem is not None:
                return problem
        return None
    return f"{path} is a {type(value).__name__}, which is not a JSON value"
