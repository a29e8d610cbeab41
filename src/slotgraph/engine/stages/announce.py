"""Announce cascade (docs/engine.md#announce-slots): deliver consecutive announce slots in one invocation.

While the DAG's next action is an announce (an active announce slot whose ``requires`` are met, not yet
filled), its ``message`` — rendered from ``filled`` — is queued as a segment carrying the slot's ``response``
/``channel_responses``, its completion bit ``filled[name] = True`` is set, and the DAG is evaluated again. The
loop ends at the first non-announce action (fire, question, readback, all done), so a welcome followed by the
first question delivers both in one reply, texts concatenated in order.

Delivery mode: an announce with ``preempt: true`` (the default) must reach the user verbatim, even on the very
first turn: the reply preempts with ``force_preempt``. With ``preempt: false`` the text is guidance (the
reply's ``message``, relayed by the model as ``<system_directive>``) and the model runs — unless something
else in the same reply preempts (a task fire).
"""

from __future__ import annotations

from slotgraph.engine.actions import Announce, DagAction
from slotgraph.engine.dag import compute_dag_state
from slotgraph.engine.invocation import Invocation, Segment
from slotgraph.engine.stages.changes import changing
from slotgraph.engine.text import render

__all__ = ["cascade_announces", "evaluate"]


def cascade_announces(inv: Invocation, action: DagAction) -> DagAction:
    for _ in range(len(inv.dag.slots)):  # every round fills one slot: the loop is bounded by the slot count
        if not isinstance(action, Announce):
            return action
        slot = inv.dag.slot_by_name[action.slot]
        text = render(slot.message, inv.filled) if slot.message else ""
        if text or not slot.responses.empty:
            inv.messages.append(Segment(text, slot.responses))
        if slot.preempt:
            inv.force_preempt = True
        inv.filled[slot.name] = True
        inv.trace.emit("announce", slot=slot.name)
        action = evaluate(inv)
    return action


def evaluate(inv: Invocation) -> DagAction:
    sm = inv.sm
    return compute_dag_state(
        inv.dag,
        sm["filled"],
        sm["pending"],
        sm["deferred"],
        sm["task_results"],
        variables=inv.variables,
        changing=changing(sm),
    )
