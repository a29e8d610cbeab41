"""System-instruction hints and rich responses of one invocation (docs/engine.md#instruction-hints,
docs/engine.md#rich-responses).

:func:`si_suffix` — the engine's part of the instruction suffix, in this order:

* ``<system_directive>`` with the reply's message when an event pre-fill happened this turn (the host
  then uses the engine's suffix instead of its own directive, and the directive already names the right next
  question because the DAG saw the pre-filled slot);
* ``<deferred_collection>`` when ``deferred`` holds values the previous invocation's snapshot
  (``_last_state``) did not — routed there in this invocation or since — and nothing is pending:
  "The value(s) just collected (guest_name) are noted and will be confirmed later together with related
  information. Do NOT read them back or ask for confirmation now. Instead, proceed to ask: <next question>";
* ``<readback_scope>`` while values promoted from ``deferred`` are pending: every pending value, one per line
  as ``  - <label>: <formatted value>`` (label: the slot's ``label``, else its name; value through the
  readback formatter);
* otherwise, on a fresh readback (values that just entered ``pending``) and on a quiet one (the user spoke,
  nothing changed), the original platform's plain ``<readback_scope>``:
  ``Pending confirmation: <formatted value>, <formatted value>.`` (formatter output, no slot names);
* ``<user_context>`` when the host passed ``gate_user_text``: what the user said while the gate slot was
  closed, for the model to extract values from instead of asking again (docs/engine.md#gate-slot).

:func:`response_parts` — rich responses. Each segment of the reply resolves its location's parts for the
channel (``channel_*[channel]``, else the default ``response``), every string rendered with ``{slot}`` from
``filled`` (recursively; a segment may bring its own placeholder values, e.g. a task's result fields) and
chips with ``options_from`` given their options (:mod:`~slotgraph.engine.chips`); a segment without parts
stands for ``[{"type": "text", "text": ...}]``, and an *attaching* segment (the readback with
``readback_response``) is its text followed by its parts. When at least one
segment has parts: a preempting reply carries them all as the action's ``response`` (``preempt_dispatch``);
otherwise the configured parts are the action's ``stash``, for the host's after-model step (the spec entry
writes them to ``sm["_pending_payloads"]``)
(``stash_question`` when they all belong to the question being asked, else ``stash_unconditional``). Without
parts the action's ``response`` is ``None`` (``none``). The stash always reflects the latest invocation: a
preempting or part-less invocation has an empty stash, so stale cards are never appended.
"""

from __future__ import annotations

from typing import Any

from slotgraph.engine.actions import Reason
from slotgraph.engine.chips import fill_options
from slotgraph.engine.dag import find_next_question
from slotgraph.engine.invocation import Invocation, Reply
from slotgraph.engine.plan import plan_of, readback_order
from slotgraph.engine.stages.promotion import PROMOTED_KEY
from slotgraph.engine.text import question_for, render_value
from slotgraph.names import (
    DEFERRED_COLLECTION,
    PENDING_PAYLOADS,
    READBACK_SCOPE,
    SYSTEM_DIRECTIVE,
    USER_CONTEXT,
    tagged,
)

__all__ = ["PAYLOADS_KEY", "response_parts", "si_suffix"]

PAYLOADS_KEY = PENDING_PAYLOADS


def deferred_collection(inv: Invocation, fresh: list[str] | None = None) -> str:
    names = ", ".join(inv.fresh_deferred if fresh is None else fresh)
    body = (
        f"The value(s) just collected ({names}) are noted and will be confirmed later together with related "
        "information. Do NOT read them back or ask for confirmation now."
    )
    slot = find_next_question(inv.dag, inv.filled, inv.pending, inv.deferred, inv.variables)
    if slot is not None:
        body += f" Instead, proceed to ask: {question_for(slot, inv.filled)}"
    return tagged(DEFERRED_COLLECTION, body)


def readback_scope(inv: Invocation) -> str:
    dag = inv.dag
    order = readback_order(plan_of(dag), inv.pending)
    lines = []
    for name in order:
        slot = dag.slot_by_name.get(name)
        label = slot.label if slot is not None and slot.label else name
        lines.append(f"  - {label}: {inv.format_value(name, inv.pending[name])}")
    body = "You MUST confirm ALL of the following values together in a single readback -- do NOT omit any:\n"
    return tagged(READBACK_SCOPE, body + "\n".join(lines))


def pending_confirmation(inv: Invocation) -> str:
    """The plain readback scope: ``Pending confirmation: <formatted value>, <formatted value>.``"""
    dag = inv.dag
    order = readback_order(plan_of(dag), inv.pending)
    values = ", ".join(inv.format_value(name, inv.pending[name]) for name in order)
    return tagged(READBACK_SCOPE, f"Pending confirmation: {values}.")


def newly_deferred(inv: Invocation) -> list[str]:
    """Slots in ``deferred`` now that the previous invocation's snapshot did not hold there, plus those
    routed there in this invocation."""
    if not inv.deferred and not inv.fresh_deferred:
        return []
    last = inv.sm.get("_last_state")
    before = last.get("deferred") if isinstance(last, dict) else None
    known = before if isinstance(before, dict) else {}
    fresh = list(inv.fresh_deferred)
    fresh += [name for name in inv.deferred if name not in known and name not in fresh]
    return fresh


def si_suffix(inv: Invocation, reply: Reply) -> str:
    parts: list[str] = []
    if inv.sm.get("_event_prefilled_this_turn") and reply.message:
        parts.append(tagged(SYSTEM_DIRECTIVE, reply.message))
    fresh_deferred = newly_deferred(inv)
    if fresh_deferred and not inv.pending:
        parts.append(deferred_collection(inv, fresh_deferred))
    if inv.pending and inv.sm.get(PROMOTED_KEY):
        parts.append(readback_scope(inv))
    elif inv.pending and (
        (inv.fresh_pending and not inv.inline_confirmed) or reply.reason is Reason.READBACK_QUIET
    ):
        parts.append(pending_confirmation(inv))
    if inv.gate_user_text.strip():
        parts.append(user_context(inv.gate_user_text.strip()))
    return "\n\n".join(parts)


def user_context(text: str) -> str:
    """What the user said before the gate slot opened, for the model to extract values from."""
    return tagged(
        USER_CONTEXT,
        "Earlier in this turn the user said the following; extract slot values from it with the setters "
        f"instead of asking again:\n{text}",
    )


def response_parts(inv: Invocation, reply: Reply) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]]]:
    """``(the action's response, its stash)`` (see the module doc)."""
    channel = inv.sm.get("channel")
    combined: list[dict[str, Any]] = []
    stash: list[dict[str, Any]] = []
    rich = False
    questions_only = True
    for seg in reply.segments:
        parts = seg.responses.resolve(channel) if not seg.responses.empty else None
        if parts:
            values = inv.filled if seg.values is None else seg.values
            rendered = [fill_options(render_value(dict(part), values), inv.filled) for part in parts]
            if seg.attach and seg.text:
                combined.append({"type": "text", "text": seg.text})
            combined.extend(rendered)
            stash.extend(rendered)
            rich = True
            questions_only = questions_only and seg.question
        elif seg.text:
            combined.append({"type": "text", "text": seg.text})
    if not rich:
        inv.trace.emit("payload_route", path="none", count=0)
        return None, []
    if reply.preempt:
        inv.trace.emit("payload_route", path="preempt_dispatch", count=len(combined))
        return combined, []
    path = "stash_question" if questions_only else "stash_unconditional"
    inv.trace.emit("payload_route", path=path, count=len(stash))
    return None, stash
