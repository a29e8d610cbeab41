"""Names that several layers must spell the same way: state keys, built-in tool names, prompt tags.

Every reader imports them from here — the engine that writes a state key and the host that reads it, the
runtime that writes a prompt tag and the offline model that parses it — so a rename is one edit and a typo
is an import error, not a silent mismatch. ``tests/test_names.py`` fails on a copy of a name elsewhere.

This module sits below every layer and imports nothing of Slotgraph.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "CANDIDATES",
    "CHANGES",
    "CONFIRM_PENDING",
    "DEFERRED_COLLECTION",
    "END_SESSION",
    "ESCALATE",
    "GATE_USER_TEXT",
    "HELD",
    "OTEL_ENV",
    "PENDING_PAYLOADS",
    "PENDING_TRANSFER",
    "READBACK_PROTOCOL",
    "READBACK_SCOPE",
    "READBACK_TOOLS",
    "REJECT_PENDING",
    "RESERVED_TOOLS",
    "SENTINEL",
    "SESSION_ENDING_TOOLS",
    "SET_VARIABLES",
    "SLOT_FILLING_PROTOCOL",
    "START_CONSULT",
    "STEER_BACK",
    "STEER_BACK_ARMED",
    "STEER_BACK_SOFT",
    "SYSTEM_DIRECTIVE",
    "TOOLS_MODULE_PREFIX",
    "TRANSITION_TOPIC",
    "USER_CONTEXT",
    "close_tag",
    "open_tag",
    "tagged",
]

# -- state keys (the ``sm`` dict) that travel between the engine, the runtime and hosts -------------------
PENDING_PAYLOADS: Final = "_pending_payloads"
"""Rich response parts stashed for after the model's reply (the spec's host reads them from ``sm``)."""
PENDING_TRANSFER: Final = "_pending_transfer"
"""A transfer an executor's result asked for, handed to the host."""
GATE_USER_TEXT: Final = "_gate_user_text"
"""What the user said while a gate slot was closed, given back as ``<user_context>`` once it opens."""
CANDIDATES: Final = "_candidates"
"""Early answers waiting until their slot can be asked (written by the engine, shown by the playground and
``chat --show-state``)."""
CHANGES: Final = "_changes"
"""Confirmed values the user is changing: slot → the confirmed value (the new one waits in ``pending``)."""
HELD: Final = "_held"
"""Confirmed values set aside after a change upstream, restored if they still hold."""

# -- built-in tools ------------------------------------------------------------------------------------
CONFIRM_PENDING: Final = "confirm_pending"
REJECT_PENDING: Final = "reject_pending"
READBACK_TOOLS: Final = frozenset({CONFIRM_PENDING, REJECT_PENDING})
END_SESSION: Final = "end_session"
ESCALATE: Final = "escalate"
SESSION_ENDING_TOOLS: Final = frozenset({END_SESSION, ESCALATE})
SET_VARIABLES: Final = "set_variables"
TRANSITION_TOPIC: Final = "transition_topic"
START_CONSULT: Final = "start_consult"
"""The warm hand-off built-in of an agent with ``handoff:`` (its own tool of the name is then refused)."""
RESERVED_TOOLS: Final = frozenset({SET_VARIABLES, TRANSITION_TOPIC})
"""Built-in tools the runtime runs itself, by name (agent logic: variables, topics): an agent's own tool
may not take one of these names — it would never run. (``end_session``, ``escalate`` and the readback
tools are built-ins an agent's own tool *may* replace.)"""

# -- the framework's part of the system instruction ------------------------------------------------------
SENTINEL: Final = "<!-- slot-framework -->"
"""Everything after this line of the system instruction is the framework's, replaced on every model call."""
SLOT_FILLING_PROTOCOL: Final = "slot_filling_protocol"
READBACK_PROTOCOL: Final = "readback_protocol"
SYSTEM_DIRECTIVE: Final = "system_directive"
"""The engine's message for the model to relay."""
STEER_BACK: Final = "steer_back"
STEER_BACK_SOFT: Final = "The conversation has drifted — steer back."
"""How the soft steer-back directive begins (the readback or next question follows it)."""
STEER_BACK_ARMED: Final = (
    "The conversation has drifted. If the user's message gives any of the information being collected, "
    "record it with the matching tool now. Otherwise reply in one short sentence and do not ask anything: "
    "the next question will be asked for you. The question is:"
)
"""How the directive of an armed (hard or escalate) steer-back begins: the model records an answer or
replies briefly without asking; the engine asks after the model's step."""
USER_CONTEXT: Final = "user_context"
READBACK_SCOPE: Final = "readback_scope"
DEFERRED_COLLECTION: Final = "deferred_collection"

TOOLS_MODULE_PREFIX: Final = "_slotgraph_tools_"
"""The start of the module name an agent's tools file is imported under (``<prefix><stem>_<digest>``): the
runtime names it, ``validate``'s probe recognises it in messages and in ``sys.modules``."""


def open_tag(name: str) -> str:
    """``<name>``."""
    return f"<{name}>"


def close_tag(name: str) -> str:
    """``</name>``."""
    return f"</{name}>"


def tagged(name: str, body: str) -> str:
    """A block of the instruction: ``<name>``, the body, ``</name>``, one per line."""
    return f"{open_tag(name)}\n{body}\n{close_tag(name)}"


OTEL_ENV: Final = "SLOTGRAPH_OTEL"
"""The environment switch that turns OpenTelemetry tracing on (read by the runtime, checked by the tracer)."""
