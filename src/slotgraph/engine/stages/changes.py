"""Changing a confirmed value (``changeable`` slots): settle a change, recompute what depended on it.

A setter call with a new value for a filled ``changeable`` slot does not touch ``filled``: routing puts the
new value in ``pending`` (or ``deferred``) like any answer and records the confirmed one in ``_changes``.
While the change waits, tasks that read the slot do not fire (:func:`changing`, used by the DAG decision),
and conditions still see the confirmed value.

:func:`settle_changes` runs once the readback is over (after auto-promotion and the inline confirm): a slot
in ``_changes`` that is no longer pending or deferred was either confirmed (``filled`` holds a new value) or
rejected (``filled`` still holds the old one). A confirmed change invalidates everything downstream, as a
fixpoint over the config:

* every task that reads a *dirty* slot (the changed one, an invalidated output, a held value) through its
  ``inputs`` or ``requires`` and has a result loses it (``task_results``, ``_retries``); its outputs leave
  ``filled`` and are dirty — so the task fires again with the new value (a terminal task that already ran
  completed the session, which no change can reach);
* a filled slot that ``requires`` an invalidated output, or whose ``validate_against`` reads a dirty slot, is
  set aside in ``_held`` (it is dirty too): :mod:`~slotgraph.engine.stages.candidates` restores it, without a
  new readback, once it is askable again and still holds — or it is asked again;
* a slot whose ``condition`` flips is deactivated or asked by the usual stages (the caller re-runs
  deactivation).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from slotgraph.engine.invocation import Invocation
from slotgraph.engine.state import CHANGES_KEY, HELD_KEY

__all__ = ["changing", "settle_changes"]


def changing(sm: Mapping[str, Any]) -> frozenset[str]:
    """The slots whose change waits for confirmation (``_changes``)."""
    changes = sm.get(CHANGES_KEY)
    return frozenset(changes) if changes else frozenset()


def settle_changes(inv: Invocation) -> list[str]:
    """Settle the changes whose readback is over; returns the slots whose new value was committed."""
    changes: dict[str, Any] = inv.sm.get(CHANGES_KEY) or {}
    if not changes:
        return []
    committed: list[str] = []
    waiting: dict[str, Any] = {}
    for name, previous in changes.items():
        if name in inv.pending or name in inv.deferred:
            waiting[name] = previous
        elif name in inv.filled and inv.filled[name] != previous:
            committed.append(name)
            inv.trace.emit("value_changed", slot=name, old=previous, new=inv.filled[name])
        else:
            inv.trace.emit("change_dropped", slot=name)
    if waiting:
        inv.sm[CHANGES_KEY] = waiting
    else:
        inv.sm.pop(CHANGES_KEY, None)
    if committed:
        _invalidate_downstream(inv, committed)
    return committed


def _invalidate_downstream(inv: Invocation, changed: list[str]) -> None:
    dag, sm = inv.dag, inv.sm
    dirty = set(changed)
    results: dict[str, Any] = sm["task_results"]
    held: dict[str, Any] = dict(sm.get(HELD_KEY) or {})
    grew = True
    while grew:
        grew = False
        for task in dag.tasks:
            if task.name not in results or dirty.isdisjoint((*task.inputs, *task.requires)):
                continue
            del results[task.name]
            inv.retries.pop(task.name, None)
            outputs = [name for name in task.outputs.values() if name in inv.filled]
            for name in outputs:
                del inv.filled[name]
            dirty.update(task.outputs.values())
            inv.trace.emit("task_invalidated", task=task.name, outputs=outputs)
            grew = True
        for slot in dag.slots:
            if slot.name not in inv.filled or slot.name in dirty:
                continue
            against = slot.validate_against
            stale_requirement = any(
                name in dirty and name not in changed and name not in inv.filled for name in slot.requires
            )
            if stale_requirement or (against is not None and against.filled_slot in dirty):
                held[slot.name] = inv.filled.pop(slot.name)
                dirty.add(slot.name)
                inv.trace.emit("value_held", slot=slot.name)
                grew = True
    if held:
        sm[HELD_KEY] = held
