"""Auto-deactivation of conditional slots (docs/engine.md#conditions-and-deactivation).

A slot whose ``condition`` is false now loses its value in ``filled``, ``pending`` and ``deferred`` so that
the DAG never waits for it or passes a stale value on. Removing one value can turn another condition false,
so this repeats until nothing changes (at most once per slot: every round removes at least one value).
"""

from __future__ import annotations

from slotgraph.engine.dag import slot_active
from slotgraph.engine.invocation import Invocation

__all__ = ["deactivate_conditional_slots"]


def deactivate_conditional_slots(inv: Invocation) -> list[str]:
    """Returns the deactivated slot names, in the order they were removed.

    Only a conditional slot that holds a value can lose it: a config without conditional slots skips the
    pass (``CompiledDag.conditional_slots``, derived once per compiled config), and a slot holding no value
    is not evaluated here (its verdict, when asked for later, is the same: conditions are pure)."""
    removed: list[str] = []
    conditional = inv.dag.conditional_slots
    if not conditional:
        return removed
    filled, pending, deferred = inv.filled, inv.pending, inv.deferred
    for _ in range(len(conditional) + 1):
        changed = False
        for slot in conditional:
            name = slot.name
            if name not in filled and name not in pending and name not in deferred:
                continue
            if slot_active(inv.dag, name, filled, inv.variables):
                continue
            for source, values in (("filled", filled), ("pending", pending), ("deferred", deferred)):
                if name in values:
                    del values[name]
                    changed = True
                    removed.append(name)
                    inv.trace.emit("slot_deactivated", slot=name, source=source)
        if not changed:
            break
    return removed
