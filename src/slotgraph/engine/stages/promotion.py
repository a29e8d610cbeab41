"""Auto-promotion and deferred routing of pending values (docs/engine.md#readback-and-confirmation,
docs/engine.md#deferred-readback).

Setters always write to ``pending``. Then, before any decision:

1. :func:`auto_promote` — a value whose slot does not require readback (or whose slot the config does not
   know) moves to ``filled``.
2. :func:`route_deferred` — a value whose slot is *deferred-eligible* (:func:`deferred_eligible`) moves
   from ``pending`` to ``deferred`` (collected silently, no readback now), unless it was itself promoted
   from ``deferred`` for the grouped readback (``_promoted_from_deferred``: an inline correction of a grouped
   value stays in the group's readback). Then every task with ``readback_inputs: true`` checks its group
   when each of its *active user-sourced* inputs is in ``filled``, ``pending`` or ``deferred`` and at
   least one is deferred, the group is complete and its deferred values move to ``pending`` together for one
   grouped readback; the promotion counts as fresh pending.
3. :func:`re_defer` — after the DAG decided: if a task is about to fire while values promoted from
   ``deferred`` wait in ``pending``, they go back to ``deferred`` (the fire is not held up by a readback of
   values that are not its inputs; the group completes again on a later invocation), logged as
   ``re_deferred``.
"""

from __future__ import annotations

from slotgraph.config.compiled import CompiledDag, CompiledSlot
from slotgraph.engine.actions import DagAction, Fire
from slotgraph.engine.dag import slot_active, task_succeeded
from slotgraph.engine.invocation import Invocation
from slotgraph.engine.plan import plan_of
from slotgraph.engine.state import CHANGES_KEY

__all__ = ["PROMOTED_KEY", "auto_promote", "deferred_eligible", "re_defer", "route_deferred"]

PROMOTED_KEY = "_promoted_from_deferred"
"""``sm`` key: the slots now in ``pending`` because their deferred group completed (a list of names)."""


def auto_promote(inv: Invocation) -> list[str]:
    """Move non-readback pending values to ``filled``; returns the promoted slot names."""
    promoted = []
    for name in list(inv.pending):
        slot = inv.dag.slot_by_name.get(name)
        if slot is None or not slot.requires_readback:
            inv.filled[name] = inv.pending.pop(name)
            promoted.append(name)
    return promoted


def deferred_eligible(dag: CompiledDag, slot: CompiledSlot, task_results: dict[str, object]) -> bool:
    """The four conditions of deferral eligibility (docs/engine.md#deferred-readback).

    1. ``requires_readback: true``;
    2. an input of at least one task with ``readback_inputs: true``;
    3. not an input of any *incomplete* (not yet succeeded) task without ``readback_inputs`` — that task needs
       the confirmed value to fire;
    4. none of its ``requires`` is a task-sourced slot (it is gated by a task and confirmed after it fires).
    """
    if not slot.requires_readback or not slot.is_user:
        return False
    grouped = False
    for task in dag.tasks:
        if slot.name not in task.inputs:
            continue
        if task.readback_inputs:
            grouped = True
        elif not task_succeeded(task, task_results):
            return False
    if not grouped:
        return False
    for name in slot.requires:
        required = dag.slot_by_name.get(name)
        if required is not None and required.task_source is not None:
            return False
    return True


def _promoted(inv: Invocation) -> list[str]:
    """The still-pending slots of the grouped readback (names that left ``pending`` are dropped)."""
    names = [n for n in inv.sm.get(PROMOTED_KEY) or () if n in inv.pending]
    if names:
        inv.sm[PROMOTED_KEY] = names
    else:
        inv.sm.pop(PROMOTED_KEY, None)
    return names


def _waiting_readback(inv: Invocation) -> set[str]:
    """Values that were already pending when the previous invocation ended, unchanged: a readback the user
    has heard (a grouped one whose ``_promoted_from_deferred`` a host did not keep — the platform's state
    lacks it). They stay in ``pending`` for the answer instead of being deferred and promoted again, which
    would repeat the whole readback; they are recorded as promoted."""
    last = inv.sm.get("_last_state")
    heard = last.get("pending") if isinstance(last, dict) else None
    if not isinstance(heard, dict):
        return set()
    results = inv.sm["task_results"]
    names = [
        name
        for name, value in inv.pending.items()
        if name in heard
        and heard[name] == value
        and (slot := inv.dag.slot_by_name.get(name)) is not None
        and deferred_eligible(inv.dag, slot, results)
    ]
    missing = [n for n in names if n not in (inv.sm.get(PROMOTED_KEY) or ())]
    if missing:
        inv.sm[PROMOTED_KEY] = [*(inv.sm.get(PROMOTED_KEY) or ()), *missing]
    return set(names)


def route_deferred(inv: Invocation) -> None:
    """Route eligible pending values to ``deferred``, then complete the groups that are complete."""
    dag, sm = inv.dag, inv.sm
    if not plan_of(dag).defers or (not inv.pending and not inv.deferred):
        # nothing can be routed or promoted: no task groups its inputs, or no value waits anywhere
        if PROMOTED_KEY in sm:
            _promoted(inv)
        return
    promoted = set(_promoted(inv)) | _waiting_readback(inv)
    changing = sm.get(CHANGES_KEY) or {}
    for name in list(inv.pending):
        slot = dag.slot_by_name.get(name)
        if slot is None or name in promoted or not slot_active(dag, name, inv.filled, inv.variables):
            continue
        if name in changing:
            continue  # a change of a confirmed value is read back at once: what depends on it waits
        if deferred_eligible(dag, slot, sm["task_results"]):
            inv.deferred[name] = inv.pending.pop(name)
            inv.fresh_deferred.append(name)
            inv.trace.emit("deferred", slot=name)
    if inv.deferred:
        _check_deferred_groups(inv)


def _check_deferred_groups(inv: Invocation) -> None:
    """``_check_deferred_groups``: promote every complete group from ``deferred`` to ``pending``."""
    dag, filled = inv.dag, inv.filled
    for task in dag.tasks:
        if not task.readback_inputs or task_succeeded(task, inv.sm["task_results"]):
            continue
        waiting: list[str] = []
        complete = True
        for name in task.inputs:
            slot = dag.slot_by_name.get(name)
            if slot is None or not slot.is_user or not slot_active(dag, name, filled, inv.variables):
                continue
            if name in filled or name in inv.pending:
                continue
            if name in inv.deferred:
                waiting.append(name)
            else:
                complete = False
                break
        if not complete or not waiting:
            continue
        for name in waiting:
            inv.pending[name] = inv.deferred.pop(name)
            inv.promoted.append(name)
        inv.sm[PROMOTED_KEY] = [*(inv.sm.get(PROMOTED_KEY) or ()), *waiting]
        inv.trace.emit("deferred_group_complete", task=task.name, slots=waiting)


def re_defer(inv: Invocation, action: DagAction) -> None:
    """A task is about to fire: values promoted from ``deferred`` go back there (logged ``re_deferred``)."""
    if not isinstance(action, Fire):
        return
    for name in _promoted(inv):
        inv.deferred[name] = inv.pending.pop(name)
        inv.trace.emit("re_deferred", slot=name, task=action.task)
    inv.sm.pop(PROMOTED_KEY, None)
    inv.promoted.clear()
