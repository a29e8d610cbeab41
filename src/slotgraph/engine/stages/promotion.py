"""Auto-promotion and routing of pending values (spec §7.1 step 1, §7a.1 step 2).

Setters always write to ``pending``. A value whose slot does not require readback (or whose slot the config
does not know) moves to ``filled`` here, before the DAG is evaluated. Deferred routing of readback values
into grouped confirmation (§7a) plugs in here in the follow-up issue: :func:`route_deferred` is its seam and
currently leaves ``pending`` as it is.
"""

from __future__ import annotations

from slotgraph.engine.invocation import Invocation

__all__ = ["auto_promote", "route_deferred"]


def auto_promote(inv: Invocation) -> list[str]:
    """Move non-readback pending values to ``filled``; returns the promoted slot names."""
    promoted = []
    for name in list(inv.pending):
        slot = inv.dag.slot_by_name.get(name)
        if slot is None or not slot.requires_readback:
            inv.filled[name] = inv.pending.pop(name)
            promoted.append(name)
    return promoted


def route_deferred(inv: Invocation) -> None:
    """Seam for deferred readback (§7a): no slot is deferred yet; ``deferred`` values are left untouched."""
    return None
