"""The tools every agent has: the readback pair, ``end_session`` and ``escalate``.

``confirm_pending`` and ``reject_pending`` are framework tools (spec §7.1): the runtime routes them to the
engine's functions, they never reach agent code. ``end_session`` ends the session (an agent's tools module may
define its own ``end_session``, which then runs instead, and the session still ends). ``escalate`` hands the
conversation over to a human (the spec's ``on_exhaust.then: "escalate"`` shorthand) and ends the session.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from slotgraph.config.compiled import CompiledDag
from slotgraph.runtime.engine_port import Engine
from slotgraph.runtime.tools import Tool, readback_tool, tool_from_function

__all__ = [
    "CONFIRM_PENDING",
    "END_SESSION",
    "ESCALATE",
    "READBACK_TOOLS",
    "REJECT_PENDING",
    "SESSION_ENDING_TOOLS",
    "builtin_tools",
    "readback_result",
]

CONFIRM_PENDING = "confirm_pending"
REJECT_PENDING = "reject_pending"
END_SESSION = "end_session"
ESCALATE = "escalate"
READBACK_TOOLS = frozenset({CONFIRM_PENDING, REJECT_PENDING})
SESSION_ENDING_TOOLS = frozenset({END_SESSION, ESCALATE})


def end_session(reason: str = "", session_escalated: bool = False) -> dict[str, Any]:
    """End the conversation.

    Args:
        reason: Why the conversation ends (e.g. "completed", "user_request").
        session_escalated: True when the person should be followed up by a human.
    """
    return {"ended": True, "reason": reason, "session_escalated": session_escalated}


def escalate(reason: str = "") -> dict[str, Any]:
    """Hand the conversation over to a human agent.

    Args:
        reason: Why the conversation is handed over.
    """
    return {"transferred": True, "reason": reason}


def readback_result(
    engine: Engine, dag: CompiledDag, name: str, sm: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run a readback tool on ``sm``: ``(result, new state)``. The results say what the tool did, in the
    original platform's shapes: ``confirm_pending`` → ``{"committed": [slot names], "stored": True}``,
    ``reject_pending`` → ``{"rejected": [slot names], "stored": True}``; with nothing pending, ``{"error":
    True, "error_code": "nothing_pending", "message": ...}`` and the state unchanged."""
    waiting = sorted((sm.get("pending") or {}).keys())
    if name == CONFIRM_PENDING:
        new_sm = engine.confirm_pending(dag, sm)
        key = "committed"
    elif name == REJECT_PENDING:
        new_sm = engine.reject_pending(dag, sm)
        key = "rejected"
    else:
        raise ValueError(f"{name!r} is not a readback tool")
    if not waiting:
        message = "Nothing is waiting for confirmation."
        return {"error": True, "error_code": "nothing_pending", "message": message}, new_sm
    return {key: waiting, "stored": True}, new_sm


def builtin_tools() -> list[Tool]:
    """Fresh built-in tools (an agent's own tools are registered after them and may override them)."""
    return [
        readback_tool(
            CONFIRM_PENDING,
            "Confirm the values just read back to the user (the user said they are correct).",
        ),
        readback_tool(
            REJECT_PENDING,
            "Reject the values just read back to the user (the user said they are wrong).",
        ),
        tool_from_function(end_session),
        tool_from_function(escalate),
    ]
