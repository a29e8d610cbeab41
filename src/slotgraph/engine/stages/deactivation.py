"""Auto-deactivation of conditional slots (docs/engine.md#conditions-and-deactivation).

A slot whose ``condition`` is false now loses its value in ``filled``, ``pending`` and ``deferred`` so that
the DAG never waits for it or passes a stale value on. Removing one value can turn another condition false,
so this repeats until nothing changes (at most once per slot: every round removes at least one value).
"""

from __future__ import annotations

from slotgraph.engine.invocation import Invocation

__all__ = ["deactivate_conditional_slots"]


def deactivate_conditional_slots(inv: Invocation) -> list[str]:
    """Returns the deactivated slot names, in the order they were removed."""
    removed: list[str] = []
    conditional = inv.dag.conditional_slots
    for _ in range(len(conditional) + 1):
        changed = False
        for slot in conditional:
            if inv.activity.slot_active(slot.name):
                continue
            for source, values in (
                ("filled", inv.filled),
                ("pending", inv.pending),
                ("deferred", inv.deferred),
            ):
                if slot.name in values:
                    del values[slot.name]
                    changed = True
                    removed.append(slot.name)
                    inv.trace.emit("slot_deactivated", slot=slot.name, source=source)
                    if source == "filled":  # later conditions must see the value gone
                        inv.filled_changed((slot.name,))
        if not changed:
            break
    return removed
