"""Whether the engine speaks instead of the model, and what it says (docs/runtime.md#preemption).

The engine asks to preempt with ``preempt``; the runtime honours it when the conversation already has more
than one message (the spec's ``len(contents) > 1``: on the very first call of a session the model greets
naturally) or when ``force_preempt`` is set (announces, auto-confirm, hard steer-back). A preempted call emits
the engine's ``response`` parts — or its ``message`` as text — and its ``function_call``, without calling the
model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from slotgraph.engine.actions import EngineAction, FunctionCall
from slotgraph.runtime.events import EndSessionEvent, Event, PayloadEvent, TextEvent, TransferEvent

__all__ = ["EngineReply", "engine_reply", "part_events", "should_preempt"]


def should_preempt(action: EngineAction | None, *, conversation_length: int) -> bool:
    """The spec's rule: ``preempt and (contents > 1 or force_preempt)`` (:meth:`EngineAction.preempts`)."""
    return action is not None and action.preempts(conversation_length)


@dataclass(frozen=True, slots=True)
class EngineReply:
    """What a preempted call produces: events for the person and the tool call(s) to execute."""

    events: tuple[Event, ...]
    text: str
    function_call: FunctionCall | None = None
    ends_session: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)
    parallel_calls: tuple[FunctionCall, ...] = ()
    """Task calls of the same decision as ``function_call``, run concurrently with it."""


def part_events(parts: Sequence[Mapping[str, Any]]) -> list[Event]:
    """Map rich response parts to events: text → text, payload/audio → payload, end_session, transfer."""
    events: list[Event] = []
    for part in parts:
        kind = part.get("type")
        if kind == "text":
            text = str(part.get("text") or "")
            if text:
                events.append(TextEvent(text, origin="engine"))
        elif kind == "end_session":
            events.append(
                EndSessionEvent(str(part.get("reason") or ""), bool(part.get("session_escalated", False)))
            )
        elif kind == "transfer":
            details = {k: v for k, v in part.items() if k not in {"type", "reason"}}
            events.append(TransferEvent(str(part.get("reason") or ""), details))
        else:
            events.append(PayloadEvent(dict(part)))
    return events


def engine_reply(action: EngineAction) -> EngineReply:
    """The engine's reply parts for a preempted call (``response`` takes priority over ``message``)."""
    if action.response:
        events = part_events(list(action.response))
    else:
        message = (action.message or "").strip()
        events = [TextEvent(message, origin="engine")] if message else []
    text = " ".join(e.text for e in events if isinstance(e, TextEvent))
    ends = any(isinstance(e, EndSessionEvent | TransferEvent) for e in events)
    return EngineReply(tuple(events), text, action.function_call, ends, parallel_calls=action.parallel_calls)
