"""The tools every agent has: the readback pair, ``end_session`` and ``escalate``.

``confirm_pending`` and ``reject_pending`` are framework tools (docs/engine.md#readback-and-confirmation): the
runtime routes them to the engine's functions, they never reach agent code. ``end_session`` ends the session
(an agent's tools module may define its own ``end_session``, which then runs instead, and the session still
ends). ``escalate`` hands the conversation over to a human (the spec's ``on_exhaust.then: "escalate"``
shorthand) and ends the session.

Agents with logic may get more: ``set_variables`` (:func:`set_variables_tool`, when they declare mutable
variables; the gate layer runs it against the session's variables), ``transition_topic`` (with topics) and,
with ``builtin_tools.end_session`` settings, an ``end_session`` that takes a ``summary``
(``require_summary``) and a ``params`` object of named details (``params_fields``)
(:func:`end_session_tool`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Annotated, Any

from pydantic import AfterValidator, ConfigDict, create_model

from slotgraph.config.compiled import CompiledDag
from slotgraph.config.logic import VariableDeclaration
from slotgraph.logic.handoff import (
    START_CONSULT,
    CompiledDestination,
    consult_description,
    consult_parameters,
)
from slotgraph.logic.set_variables import (
    SET_VARIABLES,
    set_variables_description,
    set_variables_parameters,
)
from slotgraph.logic.topics import (
    TRANSITION_TOPIC,
    CompiledTopic,
    transition_description,
    transition_parameters,
)
from slotgraph.models.protocol import ToolSchema
from slotgraph.names import (
    CONFIRM_PENDING,
    END_SESSION,
    ESCALATE,
    READBACK_TOOLS,
    REJECT_PENDING,
    SESSION_ENDING_TOOLS,
)
from slotgraph.runtime.engine_port import Engine
from slotgraph.runtime.tools import Tool, readback_tool, tool_from_function

__all__ = [
    "CONFIRM_PENDING",
    "END_SESSION",
    "ESCALATE",
    "READBACK_TOOLS",
    "REJECT_PENDING",
    "SESSION_ENDING_TOOLS",
    "SET_VARIABLES",
    "builtin_tools",
    "end_session_tool",
    "readback_result",
    "set_variables_tool",
    "start_consult_tool",
    "transition_topic_tool",
]


async def end_session(reason: str = "", session_escalated: bool = False) -> dict[str, Any]:
    """End the conversation.

    Args:
        reason: Why the conversation ends (e.g. "completed", "user_request").
        session_escalated: True when the person should be followed up by a human.
    """
    return {"ended": True, "reason": reason, "session_escalated": session_escalated}


async def escalate(reason: str = "") -> dict[str, Any]:
    """Hand the conversation over to a human agent.

    Args:
        reason: Why the conversation is handed over.
    """
    return {"transferred": True, "reason": reason}


def readback_result(
    engine: Engine,
    dag: CompiledDag,
    name: str,
    sm: Mapping[str, Any],
    slots: Collection[str] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run a readback tool on ``sm``: ``(result, new state)``. The results say what the tool did, in the
    original platform's shapes: ``confirm_pending`` → ``{"committed": [slot names], "stored": True}``,
    ``reject_pending`` → ``{"rejected": [slot names], "stored": True}``. With nothing pending the state is
    unchanged and ``confirm_pending`` answers ``{"error": True, "error_code": "nothing_pending", "message":
    ...}`` while ``reject_pending`` answers ``{"rejected": [], "stored": True}``, as the platform's do (its
    rejection only records the request). A partial confirmation
    (a value corrected since the readback stays pending for its own readback, or ``slots`` naming only some
    values) adds ``"still_pending"``; ``reject_pending`` with ``slots`` lists only those."""
    waiting = sorted((sm.get("pending") or {}).keys())
    if name == CONFIRM_PENDING:
        new_sm = engine.confirm_pending(dag, sm, slots=slots) if slots else engine.confirm_pending(dag, sm)
        key = "committed"
    elif name == REJECT_PENDING:
        new_sm = engine.reject_pending(dag, sm, slots=slots) if slots else engine.reject_pending(dag, sm)
        key = "rejected"
        if slots:
            waiting = [slot for slot in waiting if slot in slots]
    else:
        raise ValueError(f"{name!r} is not a readback tool")
    if not waiting and name == REJECT_PENDING:
        return {key: [], "stored": True}, new_sm
    if not waiting:
        message = "Nothing is waiting for confirmation."
        return {"error": True, "error_code": "nothing_pending", "message": message}, new_sm
    if name == CONFIRM_PENDING:
        still = sorted((new_sm.get("pending") or {}).keys())
        if still:  # a partial confirmation: corrected values are read back before they are committed
            done = [slot for slot in waiting if slot not in still]
            return {key: done, "still_pending": still, "stored": True}, new_sm
    return {key: waiting, "stored": True}, new_sm


def builtin_tools() -> list[Tool]:
    """Fresh built-in tools (an agent's own tools are registered after them and may override them)."""
    return [
        readback_tool(
            CONFIRM_PENDING,
            "Confirm the values just read back to the user (the user said they are correct).",
            "Only these slots, when the user confirmed part of what was read back; omit to confirm all.",
        ),
        readback_tool(
            REJECT_PENDING,
            "Reject the values just read back to the user (the user said they are wrong).",
            "Only these slots, when the user said only part of what was read back is wrong; omit for all.",
        ),
        tool_from_function(end_session),
        tool_from_function(escalate),
    ]


async def end_session_with_details(
    summary: str = "",
    reason: str = "",
    session_escalated: bool = False,
    params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """End the conversation, with what the people who follow up need.

    Args:
        summary: What happened in this conversation, from the conversation itself: who the person is, what
            was done, and what is still open.
        reason: Why the conversation ends (e.g. "completed", "user_request").
        session_escalated: True when the person should be followed up by a human.
        params: Named details of this ending.
    """
    result: dict[str, Any] = {"ended": True, "reason": reason, "session_escalated": session_escalated}
    if summary:
        result["summary"] = summary
    if params is not None:
        result["params"] = params
    return result


def _string_fields(fields: Collection[str]) -> Callable[[dict[str, Any] | None], dict[str, Any] | None]:
    def check(params: dict[str, Any] | None) -> dict[str, Any] | None:
        for name in fields:
            value = (params or {}).get(name)
            if value is not None and not isinstance(value, str):
                raise ValueError(f"params.{name} must be text, got {type(value).__name__}")
        return params

    return check


def end_session_tool(*, summary: bool, params_fields: Mapping[str, str]) -> Tool:
    """``end_session`` with the settings of ``builtin_tools.end_session``: a ``summary`` parameter
    (``require_summary``: the gate layer makes it required for the model and refuses a missing, blank or
    non-string one) and a ``params`` object whose optional string fields are ``params_fields`` (field name →
    description; other keys — a ``merge_bind`` of the application's — are let through)."""
    base = tool_from_function(end_session_with_details, name=END_SESSION)
    properties = dict(base.schema.parameters.get("properties") or {})
    fields: dict[str, Any] = {"reason": (str, ""), "session_escalated": (bool, False)}
    if summary:
        fields["summary"] = (str, "")
    else:
        properties.pop("summary", None)
    if params_fields:
        properties["params"] = {
            "type": "object",
            "description": "Details of this ending; give the ones the conversation established.",
            "properties": {
                name: {"type": "string", "description": description}
                for name, description in params_fields.items()
            },
            "additionalProperties": False,
        }
        checked = Annotated[dict[str, Any] | None, AfterValidator(_string_fields(tuple(params_fields)))]
        fields["params"] = (checked, None)
    else:
        properties.pop("params", None)
    parameters = {**base.schema.parameters, "properties": properties}
    validator = create_model(f"{END_SESSION}_args", __config__=ConfigDict(extra="forbid"), **fields)
    schema = ToolSchema(END_SESSION, base.schema.description, parameters)
    return Tool(END_SESSION, base.fn, schema, base.injected, validator)


def _no_effect(**_: Any) -> None:
    raise RuntimeError("the logic layer's built-ins are run by the gate layer")  # pragma: no cover


def set_variables_tool(declarations: Sequence[VariableDeclaration]) -> Tool:
    """The ``set_variables`` tool of an agent's mutable variables: its schema is the declarations. Its
    validator lets every name through — names it cannot save are rejected in the *result*, so the model
    can correct itself (:func:`slotgraph.logic.set_variables.apply_set_variables`)."""
    schema = ToolSchema(SET_VARIABLES, set_variables_description(), set_variables_parameters(declarations))
    validator = create_model(f"{SET_VARIABLES}_args", __config__=ConfigDict(extra="allow"))
    return Tool(SET_VARIABLES, _no_effect, schema, validator=validator)


def start_consult_tool(destinations: Sequence[CompiledDestination]) -> Tool:
    """``start_consult(destination, reason, summary)`` of an agent with ``handoff:``: ``destination``
    enumerates the destinations. The gate layer runs it (:meth:`slotgraph.logic.LogicSession.consult`)."""
    schema = ToolSchema(START_CONSULT, consult_description(), consult_parameters(destinations))
    validator = create_model(
        f"{START_CONSULT}_args",
        __config__=ConfigDict(extra="forbid"),
        destination=(str, ...),
        reason=(str, ...),
        summary=(str, ...),
    )
    return Tool(START_CONSULT, _no_effect, schema, validator=validator)


def transition_topic_tool(topics: Sequence[CompiledTopic]) -> Tool:
    """``transition_topic(topic)`` of an agent with topics: ``topic`` enumerates the topic ids and
    ``__return__``. The gate layer runs it (:meth:`slotgraph.logic.LogicSession.transition`)."""
    schema = ToolSchema(TRANSITION_TOPIC, transition_description(), transition_parameters(topics))
    validator = create_model(
        f"{TRANSITION_TOPIC}_args", __config__=ConfigDict(extra="forbid"), topic=(str, ...)
    )
    return Tool(TRANSITION_TOPIC, _no_effect, schema, validator=validator)
