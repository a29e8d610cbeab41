"""Announce cascade (spec §12.3, §3.3): deliver consecutive announce slots in one invocation.

Minimal implementation: while the DAG's next action is an announce, its ``message`` (rendered from
``filled``) is queued, its completion bit ``filled[name] = True`` is set, and the DAG is evaluated again.
An announce with ``preempt: True`` makes the reply preempt with ``force_preempt`` (it must reach the user
verbatim even on the first turn); ``preempt: False`` leaves the text as guidance for the model. Rich
``response`` parts for announces arrive with §8a in the follow-up issue.
"""

from __future__ import annotations

from slotgraph.engine.actions import Announce, DagAction
from slotgraph.engine.dag import compute_dag_state
from slotgraph.engine.invocation import Invocation
from slotgraph.engine.text import render

__all__ = ["cascade_announces"]


def cascade_announces(inv: Invocation, action: DagAction) -> DagAction:
    for _ in range(len(inv.dag.slots)):  # every round fills one slot: the loop is bounded by the slot count
        if not isinstance(action, Announce):
            return action
        slot = inv.dag.slot_by_name[action.slot]
        if slot.message:
            inv.messages.append(render(slot.message, inv.filled))
        if slot.preempt:
            inv.force_preempt = True
        inv.filled[slot.name] = True
        inv.trace.emit("announce", slot=slot.name)
        action = evaluate(inv)
    return action


def evaluate(inv: Invocation) -> DagAction:
    sm = inv.sm
    return compute_dag_state(inv.dag, sm["filled"], sm["pending"], sm["deferred"], sm["task_results"])
