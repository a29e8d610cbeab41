"""Early answers and held values (``_candidates``, ``_held``): used as soon as their slot is askable.

* ``_candidates`` — a value the user gave before its slot could be asked (an ``accept_early`` slot whose
  ``requires`` were unmet when the setter ran: "4 people tomorrow at 7pm under Chen" before the times are
  known). It is never refused and never lost.
* ``_held`` — a confirmed value set aside because something it depends on changed
  (:mod:`~slotgraph.engine.stages.changes`).

:func:`resolve_candidates` runs after the post-executor (a task output that makes a slot askable is in
``filled``) and before the DAG decision. A value whose slot is active, has its requires met and holds no
value yet is checked against its ``validate_against`` (the same check as the setter's routing):

* it holds — a candidate goes to ``pending`` (read back like any answer: it was never confirmed); a held
  value goes back to ``filled`` (it was confirmed and is unchanged);
* it does not hold — it is dropped (``candidate_dropped``) and the slot is asked like any other: the user is
  asked only when their value cannot be used.

A value whose slot received an answer meanwhile (``filled``/``pending``/``deferred``) is dropped; one whose
slot is not askable yet waits.
"""

from __future__ import annotations

from typing import Any

from slotgraph.engine.dag import requires_met, slot_active
from slotgraph.engine.invocation import Invocation
from slotgraph.engine.routing import holds_against
from slotgraph.engine.state import CANDIDATES_KEY, HELD_KEY

__all__ = ["resolve_candidates"]


def resolve_candidates(inv: Invocation) -> list[str]:
    """Use the early answers and held values whose slot is askable now; returns the slots resolved.

    Repeated until nothing more resolves: a value used now can make another one's slot askable (a chain of
    ``requires``), which must not be asked while its own early answer waits. Each round resolves or drops at
    least one value, so the loop is bounded by their number."""
    resolved: list[str] = []
    while _one_round(inv, resolved):
        pass
    inv.candidates_used = resolved
    return resolved


def _one_round(inv: Invocation, resolved: list[str]) -> bool:
    if not inv.sm.get(HELD_KEY) and not inv.sm.get(CANDIDATES_KEY):
        return False  # the common case: nothing waits
    progress = False
    for key, confirmed in ((HELD_KEY, True), (CANDIDATES_KEY, False)):
        values: dict[str, Any] = inv.sm.get(key) or {}
        if not values:
            continue
        waiting: dict[str, Any] = {}
        for name, value in values.items():
            slot = inv.dag.slot_by_name.get(name)
            if slot is None or name in inv.filled or name in inv.pending or name in inv.deferred:
                inv.trace.emit("candidate_dropped", slot=name, why="superseded")
                progress = True
                continue
            dag, filled, variables = inv.dag, inv.filled, inv.variables
            if not (slot_active(dag, name, filled, variables) and requires_met(dag, slot, filled, variables)):
                waiting[name] = value
                continue
            progress = True
            if not holds_against(slot, value, inv.filled):
                inv.trace.emit("candidate_dropped", slot=name, why="does_not_hold", value=value)
                continue
            resolved.append(name)
            if confirmed:
                inv.filled[name] = value
                inv.trace.emit("held_restored", slot=name)
            elif not slot.requires_readback:
                inv.filled[name] = value
                inv.trace.emit("candidate_used", slot=name)
            else:
                inv.pending[name] = value
                inv.fresh_pending = True
                inv.trace.emit("candidate_used", slot=name)
        if waiting:
            inv.sm[key] = waiting
        else:
            inv.sm.pop(key, None)
    return progress
