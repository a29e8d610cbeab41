"""Keeping the session state JSON: what a tool returns and what a model passes must survive a durable store.

The state (``sm``) and the history are saved as JSON by the durable stores (:mod:`slotgraph.stores.codec`),
which refuse anything JSON cannot carry. Refusing at save time is too late: the turn's tools have already
run (a booking was made), and the whole turn would be lost. So the runtime checks values where they enter:

* :func:`tool_result_json` turns a tool's result into JSON values — ``datetime``/``date``/``time`` become
  ISO strings, tuples, sets and frozensets lists, enums their value — and raises :class:`TypeError` with the
  path of anything else (an object, a non-finite float, a non-string key); the runtime then treats the call
  as failed, with that message, and the turn goes on.
* :func:`json_problem` says what in a model's tool-call arguments is not a JSON value (or ``None``).
"""

from __future__ import annotations

import datetime
import enum
import math
from collections.abc import Mapping
from typing import Any

__all__ = ["json_problem", "tool_result_json"]


def tool_result_json(value: Any, path: str = "result") -> Any:
    """``value`` as JSON values (see the module doc); :class:`TypeError` naming the path of what cannot be."""
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TypeError(f"{path} is {value!r}, which JSON cannot carry")
        return value
    if isinstance(value, enum.Enum):
        return tool_result_json(value.value, path)
    if isinstance(value, datetime.date | datetime.time):  # datetime.datetime is a date
        return value.isoformat()
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"{path} has a non-string key {key!r}, which JSON cannot carry")
            out[key] = tool_result_json(item, f"{path}.{key}")
        return out
    if isinstance(value, list | tuple):
        return [tool_result_json(item, f"{path}[{index}]") for index, item in enumerate(value)]
    if isinstance(value, set | frozenset):
        items = [tool_result_json(item, f"{path}[{index}]") for index, item in enumerate(value)]
        try:
            return sorted(items)
        except TypeError:  # mixed types: keep the set's own order
            return items
    raise TypeError(f"{path} is a {type(value).__name__} ({value!r:.60}), which JSON cannot carry")


def json_problem(value: Any, path: str = "arguments") -> str | None:
    """What in ``value`` is not a JSON value (its path), or ``None`` when all of it is."""
    if value is None or isinstance(value, str | bool | int):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{path} is {value!r}, which is not a JSON number"
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{path} has a non-string key {key!r}"
            problem = json_problem(item, f"{path}.{key}")
            if problem is not None:
                return problem
        return None
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            problem = json_problem(item, f"{path}[{index}]")
            if problem is not None:
                return problem
        return None
    return f"{path} is a {type(value).__name__}, which is not a JSON value"
