"""Bounded conversation history: the stored transcript keeps at most ``history_messages`` messages.

The policy is **truncation by whole turns, oldest first**: when a turn ends with more messages than the
bound, the oldest turns are dropped until it fits, always cutting just before a user message, so a tool
call is never separated from its result and the model never sees half a turn. The turn that just ended is
always kept whole, even if it alone is longer than the bound. Nothing the engine needs is lost — every
collected slot value, pending readback and task result lives in the state (``sm``), not in the transcript —
but the model no longer sees the dropped wording. ``TurnResult`` and the turn's events are unaffected.

A stored record keeps the history as JSON: each message an object tagged with its ``kind``
(:func:`message_to_json`, :func:`message_from_json`)::

    {"kind": "user", "text": "hi", "event": null}
    {"kind": "assistant_text", "text": "Hello!"}
    {"kind": "assistant_tool_calls", "calls": [{"id": "c1", "name": "set_name", "args": {"name": "Chen"}}]}
    {"kind": "tool_result", "call_id": "c1", "name": "set_name", "result": {...}}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from slotgraph.models.protocol import (
    AssistantText,
    AssistantToolCalls,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

__all__ = ["bounded_history", "message_from_json", "message_to_json"]


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


def message_to_json(message: Message) -> dict[str, Any]:
    """One history message as a JSON object tagged with its ``kind``."""
    if isinstance(message, UserMessage):
        return {"kind": "user", "text": message.text, "event": message.event}
    if isinstance(message, AssistantText):
        return {"kind": "assistant_text", "text": message.text}
    if isinstance(message, AssistantToolCalls):
        calls = [{"id": c.id, "name": c.name, "args": dict(c.args)} for c in message.calls]
        return {"kind": "assistant_tool_calls", "calls": calls}
    if isinstance(message, ToolResultMessage):
        return {
            "kind": "tool_result",
            "call_id": message.call_id,
            "name": message.name,
            "result": message.result,
        }
    raise TypeError(f"not a history message: {type(message).__name__}")


def message_from_json(data: Any) -> Message:
    """The inverse of :func:`message_to_json`; raises ``ValueError`` naming what is wrong."""
    if not isinstance(data, Mapping):
        raise ValueError(f"a message must be an object, got {type(data).__name__}")
    kind = data.get("kind")
    try:
        if kind == "user":
            return UserMessage(_str(data, "text"), event=_opt_str(data, "event"))
        if kind == "assistant_text":
            return AssistantText(_str(data, "text"))
        if kind == "assistant_tool_calls":
            calls = data["calls"]
            if not isinstance(calls, list):
                raise ValueError("'calls' must be a list")
            return AssistantToolCalls(tuple(_call(c) for c in calls))
        if kind == "tool_result":
            return ToolResultMessage(_str(data, "call_id"), _str(data, "name"), data["result"])
    except KeyError as missing:
        raise ValueError(f"message of kind {kind!r} lacks {missing}") from None
    raise ValueError(
        f"unknown message kind {kind!r} (known: user, assistant_text, assistant_tool_calls, tool_result)"
    )


def _str(data: Mapping[str, Any], key: str) -> str:
    value = data[key]
    if not isinstance(value, str):
        raise ValueError(f"{key!r} must be a string, got {type(value).__name__}")
    return value


def _opt_str(data: Mapping[str, Any], key: str) -> str | None:
    return None if data.get(key) is None else _str(data, key)


def _call(data: Any) -> ToolCall:
    if not isinstance(data, Mapping) or not isinstance(data.get("args", {}), Mapping):
        raise ValueError(f"a tool call must be an object with an 'args' object, got {data!r}")
    return ToolCall(_str(data, "id"), _str(data, "name"), dict(data.get("args") or {}))
