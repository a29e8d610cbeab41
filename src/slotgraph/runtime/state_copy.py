"""Copies of the session state, in one place: when the runtime copies ``sm``, and how.

Inside a turn the state is never copied. The engine port's contract is that every call returns a new state
and never mutates the one it was given, and the runtime itself only ever builds new dicts (the loop rebinds
``sm``, it never writes into one it holds), so a state, once made, is not changed again: the turn, its
events and the session share it. A copy is made only where a state leaves for code that could change it:

* :func:`copy_state` — the one deep copy: ``TurnResult.state`` (once per turn), ``Session.state``, the
  in-memory store's records (in and out, as a durable store's JSON would);
* :class:`StateSnapshot` — a read-only mapping over a shared state that copies it the first time it is
  read: a tool's ``context.state`` and each ``StateSnapshotEvent``. A tool that never reads the state, or
  an event nobody reads, costs nothing.

The state is JSON (:mod:`slotgraph.runtime.json_values` keeps it so), so :func:`copy_state` copies dicts
and lists itself and leaves strings, numbers, booleans and ``None`` shared (they are immutable); anything
else (a state handed in by a host or a stand-in engine) goes through :func:`copy.deepcopy`. On a Bella Notte
state it is several times faster than ``copy.deepcopy``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any, Final

__all__ = ["StateSnapshot", "copy_state", "copy_state_dict"]

_ATOMIC: Final = frozenset({str, int, float, bool, type(None)})


def copy_state(value: Any) -> Any:
    """A deep copy of ``value``: new dicts and lists all the way down, immutable scalars shared."""
    kind = type(value)
    if kind is dict:
        return {key: item if type(item) in _ATOMIC else copy_state(item) for key, item in value.items()}
    if kind is list:
        return [item if type(item) in _ATOMIC else copy_state(item) for item in value]
    if kind in _ATOMIC:
        return value
    if isinstance(value, Mapping) and not isinstance(value, dict):  # e.g. a read-only proxy or a snapshot
        return {key: copy_state(item) for key, item in value.items()}
    return copy.deepcopy(value)


def copy_state_dict(sm: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of the state ``sm`` as a new dict (see :func:`copy_state`)."""
    return {key: item if type(item) in _ATOMIC else copy_state(item) for key, item in sm.items()}


class StateSnapshot(Mapping[str, Any]):
    """A read-only state: copied (:func:`copy_state`) the first time anything reads it.

    ``source`` must not change afterwards — the runtime never mutates a state it made (see the module doc).
    What a reader gets is the snapshot's own copy: changing it changes neither the session nor any other
    snapshot. ``copy.deepcopy`` and :meth:`to_dict` give plain dicts (for JSON).
    """

    __slots__ = ("_copy", "_source")

    def __init__(self, source: Mapping[str, Any]) -> None:
        self._source: Mapping[str, Any] | None = source
        self._copy: dict[str, Any] | None = None

    def _data(self) -> dict[str, Any]:
        if self._copy is None:
            source = self._source
            self._copy = copy_state_dict(source) if source is not None else {}
            self._source = None
        return self._copy

    def __getitem__(self, key: str) -> Any:
        return self._data()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data())

    def __len__(self) -> int:
        return len(self._data())

    def __contains__(self, key: object) -> bool:
        return key in self._data()

    def __repr__(self) -> str:
        return f"StateSnapshot({self._data()!r})"

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return self.to_dict()

    def __copy__(self) -> dict[str, Any]:
        return dict(self._data())

    def __reduce__(self) -> tuple[Any, ...]:
        return (StateSnapshot, (self.to_dict(),))

    def to_dict(self) -> dict[str, Any]:
        """The state as a new plain dict (deep)."""
        return copy_state_dict(self._data())
