"""Bounded conversation history: the stored transcript keeps at most ``history_messages`` messages.

The policy is **truncation by whole turns, oldest first**: when a turn ends with more messages than the
bound, the oldest turns are dropped until it fits, always cutting just before a user message, so a tool
call is never separated from its result and the model never sees half a turn. The turn that just ended is
always kept whole, even if it alone is longer than the bound. Nothing the engine needs is lost — every
collected slot value, pending readback and task result lives in the state (``sm``), not in the transcript —
but the model no longer sees the dropped wording. ``TurnResult`` and the turn's events are unaffected.
"""

from __future__ import annotations

from collections.abc import Sequence

from slotgraph.models.protocol import Message, UserMessage

__all__ = ["bounded_history"]


def bounded_history(history: Sequence[Message], limit: int) -> list[Message]:
    """``history`` with its oldest whole turns dropped until at most ``limit`` messages remain (see the
    module docstring); the last turn is always kept."""
    if len(history) <= limit:
        return list(history)
    last_turn = max((i for i, m in enumerate(history) if isinstance(m, UserMessage)), default=0)
    first = len(history) - limit
    for index in range(first, last_turn + 1):
        if isinstance(history[index], UserMessage):
            return list(history[index:])
    return list(history[last_turn:])
