"""Event pre-fill (docs/engine.md#event-pre-fill-and-fill_slots): trusted ``event_data`` values written
straight to ``filled``.

On every invocation (idempotent): for every event-sourced slot (``"event"`` in its source list), the
value of its ``event_key`` (default: the slot name) in ``event_data``, when not ``None``, is filled through
:func:`~slotgraph.engine.fill.fill_into` with ``skip_readback=True``, so filled, unknown and inactive
slots are skipped. A slot the user already gave a value for (in ``pending`` or ``deferred``) is left
alone: the user's correction takes precedence over the event.

First, when ``event_data["ia_event_name"]`` names an entry of the config's ``event_mappings`` (a platform
key), that entry's pairs are merged into (a copy of) ``event_data``, overwriting, so a platform event can fill
slots with constants; with no matching entry nothing changes.

When anything was filled, ``_event_prefilled_this_turn`` is set. The flag lasts for the turn
(``begin_turn`` or the next invocation with user text clears it); it makes the action's
``event_prefilled`` true and its ``si_suffix`` carry the ``<system_directive>`` (see
:mod:`~slotgraph.engine.stages.hints`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from slotgraph.config.compiled import CompiledDag
from slotgraph.engine.fill import fill_into
from slotgraph.engine.invocation import Invocation

__all__ = ["EVENT_FLAG", "EVENT_NAME_KEY", "mapped_event_data", "prefill_from_events"]

EVENT_FLAG = "_event_prefilled_this_turn"
EVENT_NAME_KEY = "ia_event_name"
"""The ``event_data`` key naming the platform event that just arrived."""


def mapped_event_data(dag: CompiledDag, event_data: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """``event_data`` with the config's ``event_mappings`` entry for its ``ia_event_name`` merged in."""
    if not event_data or not dag.event_mappings:
        return event_data
    name = event_data.get(EVENT_NAME_KEY)
    mapping = dag.event_mappings.get(name) if isinstance(name, str) else None
    return event_data if mapping is None else {**event_data, **mapping}


def prefill_from_events(inv: Invocation) -> None:
    if inv.user_text.strip():
        inv.sm.pop(EVENT_FLAG, None)  # a new user turn: the flag of the previous turn is stale
    event_data = mapped_event_data(inv.dag, inv.event_data)
    if not event_data:
        return
    values: dict[str, Any] = {}
    for slot in inv.dag.slots:
        if not slot.is_event or slot.name in inv.pending or slot.name in inv.deferred:
            continue
        value = event_data.get(slot.event_key)
        if value is not None:
            values[slot.name] = value
    if not values:
        return
    report = fill_into(inv.sm, inv.dag, values, skip_readback=True, trace=inv.trace, variables=inv.variables)
    if report["filled"]:
        inv.event_prefilled = True
        inv.sm[EVENT_FLAG] = True
