"""Records the turn builds by the dozen: frozen to the type checker, plain slotted dataclasses when built.

A frozen dataclass's generated ``__init__`` stores each field through ``object.__setattr__`` (frozen
classes refuse plain assignment), which costs about three times a plain store: ~0.09 µs a field against
~0.03 in CPython 3.11. The turn builds its own plumbing — :class:`~slotgraph.runtime.turn_loop.TurnInputs`
(26 fields), a :class:`~slotgraph.runtime.turn_preparation.Preparation` per step, a
:class:`~slotgraph.runtime.tool_execution.ToolRunner` per turn, a
:class:`~slotgraph.runtime.tool_execution.ToolOutcome` per tool call, an
:class:`~slotgraph.runtime.preemption.EngineReply` per engine reply — and the stores of their frozen
``__init__`` were ~7 µs of a ~180 µs turn (docs/performance.md, section 3).

:func:`record` keeps what ``frozen=True`` is there for — no code changes a record after it is built — where
it is checked: it is declared with :func:`typing.dataclass_transform` (``frozen_default=True``), so mypy
(strict, run by ``make typecheck`` and CI) refuses any assignment to a field as it does for a frozen
dataclass. At run time the class is ``@dataclass(slots=True)``: the same fields, order, defaults,
``__eq__``, ``__repr__`` and ``__match_args__``, but no ``__hash__`` (nothing hashes these) and no
``FrozenInstanceError`` on assignment.

Only for the runtime's internal plumbing. The values the runtime hands to its callers (events,
:class:`~slotgraph.runtime.events.TurnResult`, the model protocol's messages, the engine's action) stay
frozen dataclasses, immutable at run time too: a caller's code is not type-checked by ours.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar, dataclass_transform

__all__ = ["record"]

_T = TypeVar("_T")


@dataclass_transform(frozen_default=True)
def record(cls: type[_T]) -> type[_T]:
    """``cls`` as a slotted dataclass that the type checker treats as frozen (see the module docstring)."""
    return dataclass(slots=True)(cls)
