"""Recorded Gemini REST payloads (``tests/models/fixtures/gemini``) and the request they correspond to."""

from __future__ import annotations

from slotgraph.models.protocol import (
    AssistantText,
    AssistantToolCalls,
    ModelRequest,
    ToolCall,
    ToolResultMessage,
    ToolSchema,
    UserMessage,
)

from .payloads import payloads

fixture = payloads("gemini")


BASICS = ToolSchema(
    "set_reservation_basics",
    "Record the party size and/or the date.",
    {
        "type": "object",
        "properties": {
            "party_size": {
                "anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}],
                "description": "How many guests",
                "default": None,
                "title": "Party Size",
            },
            "preferred_date": {"type": ["string", "null"], "format": "date", "description": "YYYY-MM-DD"},
            "seating": {"enum": ["indoor", "terrace"]},
        },
        "required": ["party_size", "not_a_property"],
        "additionalProperties": False,
    },
)
GUEST = ToolSchema(
    "set_guest_info",
    "Record the guest's name.",
    {
        "type": "object",
        "properties": {"guest_name": {"type": ["string", "null"]}},
        "additionalProperties": False,
    },
)
CONFIRM = ToolSchema(
    "confirm_pending",
    "Confirm the values just read back.",
    {"type": "object", "properties": {}, "additionalProperties": False},
)

TOOL_TURN = ModelRequest(
    system_instruction="You are the reservation host of Bella Notte.",
    messages=(
        UserMessage("", event="welcome"),
        AssistantText("Welcome to Bella Notte! How many guests?"),
        UserMessage("Four of us on July 17th, name is Chen"),
        AssistantToolCalls(
            (
                ToolCall("c1", "set_reservation_basics", {"party_size": 4, "preferred_date": "2026-07-17"}),
                ToolCall("c2", "set_guest_info", {"guest_name": "Chen"}),
            )
        ),
        ToolResultMessage(
            "c1",
            "set_reservation_basics",
            {"stored": True, "values": {"party_size": 4, "preferred_date": "2026-07-17"}},
        ),
        ToolResultMessage("c2", "set_guest_info", "stored"),
    ),
    tools=(BASICS, GUEST, CONFIRM),
)
"""The request ``request_tool_turn.json`` records."""
