"""The closed set of DAG decisions returned by :func:`slotgraph.engine.dag.compute_dag_state` (spec §3.1).

Each decision is a frozen dataclass with a ``kind`` tag; callers match on the :data:`DagAction` union
exhaustively (``assert_never`` on the fall-through), so adding a decision is a type error everywhere it is
not yet handled.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["AllDone", "Announce", "Ask", "AwaitReadback", "DagAction", "Fire"]


@dataclass(frozen=True, slots=True)
class Fire:
    """A task's active inputs and requires are all filled and it has not succeeded: call its tool."""

    task: str
    tool: str
    args: Mapping[str, Any] = field(default_factory=dict)
    kind: Literal["fire"] = "fire"


@dataclass(frozen=True, slots=True)
class AwaitReadback:
    """Values wait in ``pending`` for the user's confirmation; ``slots`` in slot declaration order."""

    slots: tuple[str, ...]
    kind: Literal["awaiting_readback"] = "awaiting_readback"


@dataclass(frozen=True, slots=True)
class Ask:
    """The next question: the first unfilled, active, dependency-met user slot."""

    slot: str
    kind: Literal["next_question"] = "next_question"


@dataclass(frozen=True, slots=True)
class Announce:
    """The next eligible announce slot (§12.3): deliver its message and fill its completion bit."""

    slot: str
    kind: Literal["announce"] = "announce"


@dataclass(frozen=True, slots=True)
class AllDone:
    """Nothing to fire, confirm, ask or announce."""

    kind: Literal["all_done"] = "all_done"


DagAction = Fire | AwaitReadback | Ask | Announce | AllDone
