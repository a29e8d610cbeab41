"""Event pre-fill (spec §12.1): trusted ``event_data`` values written straight to ``filled``.

Minimal implementation: for every event-sourced slot (``"event"`` in its sources) whose ``event_key`` is in
``event_data`` with a non-``None`` value, and which is active and not already in ``filled``/``pending``/
``deferred``, write the value to ``filled`` and set ``_event_prefilled_this_turn``. Idempotent. The
programmatic ``fill_slots`` API (§12.2) and the ``event_prefilled`` instruction handling arrive with the
follow-up issue.
"""

from __future__ import annotations

from slotgraph.engine.invocation import Invocation

__all__ = ["prefill_from_events"]


def prefill_from_events(inv: Invocation) -> None:
    if not inv.event_data:
        return
    for slot in inv.dag.slots:
        if not slot.is_event:
            continue
        name = slot.name
        if name in inv.filled or name in inv.pending or name in inv.deferred:
            continue
        value = inv.event_data.get(slot.event_key)
        if value is None or not slot.is_active(inv.filled):
            continue
        inv.filled[name] = value
        inv.event_prefilled = True
        inv.trace.emit("fill_slots", slot=name, value=value)
    if inv.event_prefilled:
        inv.sm["_event_prefilled_this_turn"] = True
