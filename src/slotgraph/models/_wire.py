"""The pieces the wire formats of the hosted backends (``openai_wire``, ``anthropic_wire``, ``gemini_wire``)
share; each keeps its own mapping. Pure functions on plain data."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from slotgraph.models.errors import ModelResponseError
from slotgraph.models.protocol import AssistantToolCalls, ModelRequest, ToolSchema, UserMessage

__all__ = ["calls_so_far", "json_text", "response_object", "token_count", "tool_parameters", "user_text"]


def json_text(value: Any) -> str:
    """``value`` as JSON text (dates and other objects as strings, non-ASCII kept as is)."""
    return json.dumps(value, default=str, ensure_ascii=False)


def token_count(value: Any) -> int:
    """A token count from a ``usage`` object: the integer the server sent, 0 for anything else (absent,
    null, a string, a boolean)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def user_text(message: UserMessage) -> str:
    """What the user said; an event turn without text says ``[event: NAME]``."""
    return message.text if message.text or not message.event else f"[event: {message.event}]"


def tool_parameters(tool: ToolSchema) -> dict[str, Any]:
    """A tool's JSON Schema for its arguments; a tool without parameters takes an empty object."""
    return dict(tool.parameters) or {"type": "object", "properties": {}}


def response_object(body: Any, where: str) -> Mapping[str, Any]:
    """``body`` when it is a JSON object; else :class:`ModelResponseError` naming ``where``."""
    if not isinstance(body, Mapping):
        raise ModelResponseError(f"{where}: the response is not a JSON object: {body!r:.200}")
    return body


def calls_so_far(request: ModelRequest) -> int:
    """How many tool calls the conversation of ``request`` holds (to number calls a server sent without an
    id after them)."""
    return sum(len(m.calls) for m in request.messages if isinstance(m, AssistantToolCalls))
