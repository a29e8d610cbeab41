"""Event pre-fill (spec §12.1): trusted ``event_data`` values written straight to ``filled``.

On every invocation (idempotent): for every event-sourced slot (``"event"`` in its source list), the
value of its ``event_key`` (default: the slot name) in ``event_data``, when not ``None``, is filled through
:func:`~slotgraph.engine.fill.fill_into` with ``skip_readback=True``, so filled, unknown and inactive
slots are skipped. A slot the user already gave a value for (in ``pending`` or ``deferred``) is left
alone: the user's correction takes precedence over the event.

When anything was filled, ``_event_prefilled_this_turn`` is set. The flag lasts for the turn
(``begin_turn`` or the next invocation with user text clears it); it makes the action's
``event_prefilled`` true and its ``si_suffix`` carry the ``<system_directive>`` (see
:mod:`~slotgraph.engine.stages.hints`).
"""

from __future__ import annotations

from typing import Any

from slotgraph.engine.fill import fill_into
from slotgraph.engine.invocation import Invocation

__all__ = ["EVENT_FLAG", "prefill_from_events"]

EVENT_FLAG = "_event_prefilled_this_turn"


def prefill_from_events(inv: Invocation) -> None:
    if inv.user_text.strip():
        inv.sm.pop(EVENT_FLAG, None)  # a new user turn: the flag of the previous turn is stale
    if not inv.event_data:
        return
    values: dict[str, Any] = {}
    for slot in inv.dag.slots:
        if not slot.is_event or slot.name in inv.pending or slot.name in inv.deferred:
            continue
        value = inv.event_data.get(slot.event_key)
        if value is not None:
            values[slot.name] = value
    if not values:
        return
    report = fill_into(inv.sm, inv.dag, values, skip_readback=True, trace=inv.trace)
    if report["filled"]:
        inv.event_prefilled = True
        inv.sm[EVENT_FLAG] = True
