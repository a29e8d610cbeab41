"""Slot validation errors (docs/engine.md#slot-errors): turn ``_slot_errors`` signals into one preempted
message.

Every error of the turn is processed, in order: ``_retries["slot:<name>"]`` increments; when it reaches the
slot's ``validation.max_retries`` the slot is exhausted and the invocation ends with the exhaustion reply at
once (earlier messages of the batch are dropped: escalation supersedes them). Otherwise the message is
``validation.errors[code]`` rendered from ``filled``, or — when the code has no configured message — an
apology followed by the slot's question again (:func:`~slotgraph.engine.text.default_error_message`).
Identical messages are said once; the rest are joined with a space. Each message keeps the location's rich
parts (``validation.error_responses[code]`` / ``channel_error_responses``). A slot without
``validation.max_retries`` is never exhausted here (steer-back bounds that stall).
"""

from __future__ import annotations

from slotgraph.config.compiled import NO_RESPONSES
from slotgraph.engine.actions import Reason
from slotgraph.engine.invocation import Invocation, Reply, Segment
from slotgraph.engine.stages.exhaustion import exhaust
from slotgraph.engine.text import default_error_message, join, render

__all__ = ["handle_slot_errors"]


def handle_slot_errors(inv: Invocation) -> Reply | None:
    errors = inv.sm["_slot_errors"]
    inv.sm["_slot_errors"] = []
    if not errors:
        return None
    messages: list[Segment] = []
    for err in errors:
        name = str(err["slot"])
        code = str(err.get("code") or "invalid")
        slot = inv.dag.slot_by_name.get(name)
        key = f"slot:{name}"
        count = inv.retries.get(key, 0) + 1
        inv.retries[key] = count
        inv.trace.emit("slot_error", slot=name, code=code, retries=count)
        validation = slot.validation if slot is not None else None
        if validation is not None and validation.max_retries is not None and count >= validation.max_retries:
            inv.trace.emit("slot_error_exhaust", slot=name)
            return exhaust(inv, validation.on_exhaust, reason=Reason.SLOT_ERROR_EXHAUST)
        template = validation.errors.get(code) if validation is not None else None
        message = render(template, inv.filled) if template else default_error_message(slot, name, inv.filled)
        responses = validation.error_responses.get(code, NO_RESPONSES) if validation is not None else None
        if all(m.text != message for m in messages):
            messages.append(Segment(message, responses or NO_RESPONSES))
    return Reply(
        message=join([m.text for m in messages]),
        preempt=True,
        reason=Reason.SLOT_ERROR,
        segments=tuple(messages),
    )
