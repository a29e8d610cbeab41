"""The API's wire models (pydantic, only at this edge), published in the OpenAPI document."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from slotgraph.engine.actions import Reason
from slotgraph.runtime.json_values import json_problem

__all__ = [
    "MAX_MESSAGE_CHARS",
    "AgentList",
    "AgentSummary",
    "CreateSession",
    "CreatedSession",
    "GraphView",
    "Health",
    "Problem",
    "SendMessage",
    "SessionDetail",
    "SessionView",
    "StepUsage",
    "TurnReply",
    "TurnStepView",
]


MAX_MESSAGE_CHARS = 8000
"""The longest message a person may send in one turn (``SendMessage.text``); ``/healthz`` publishes it."""


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateSession(_Request):
    agent: str = Field(min_length=1, max_length=200, description="Name of a hosted agent (GET /v1/agents).")
    event_data: dict[str, Any] | None = Field(
        default=None, description="Data known before the conversation (e.g. a caller's party size)."
    )
    channel: str | None = Field(default=None, max_length=100, description="Channel, e.g. 'telephony'.")
    variables: dict[str, Any] | None = Field(
        default=None,
        description="Initial values of the agent's variables; a value given here beats the declared default.",
    )
    metadata: dict[str, Any] | None = Field(
        default=None,
        description="Caller facts (e.g. a phone number), read by expressions where no variable has the name.",
    )

    @field_validator("event_data", "variables", "metadata")
    @classmethod
    def _json_values_only(cls, value: dict[str, Any] | None, info: ValidationInfo) -> dict[str, Any] | None:
        """``NaN``/``Infinity`` parse (Python's JSON reader accepts them) but cannot be stored: refuse them
        here, with their path, instead of failing the save."""
        problem = None if value is None else json_problem(value, str(info.field_name))
        if problem is not None:
            raise ValueError(f"{problem}; use finite numbers, strings, booleans, null, lists and objects")
        return value


class SendMessage(_Request):
    text: str = Field(min_length=1, max_length=MAX_MESSAGE_CHARS, description="What the person said.")


class CreatedSession(BaseModel):
    session_id: str
    agent: str


class SessionView(BaseModel):
    """The engine's view of the session, as the playground shows it."""

    status: str
    filled: dict[str, Any]
    pending: dict[str, Any]
    deferred: dict[str, Any]
    tasks: list[dict[str, Any]] = Field(description="Tasks fired so far: name, tool, succeeded.")
    asking: str | None = Field(description="The slot the engine would ask for next.")
    inactive: list[str] = Field(
        default_factory=list, description="Slots whose condition is false now (they are not collected)."
    )
    hidden_tools: list[str] | None = Field(
        description="The agent's own tools the DAG hid from the model at the last call (`null` before the "
        "first turn). Task executors (the engine runs them, never the model) and the built-in readback tools "
        "(`confirm_pending`, `reject_pending`: offered only while an answer to a readback is awaited) are "
        "not listed; each step's `hidden_tools` lists every tool the model could not call."
    )
    visible_tools: list[str] | None = Field(
        default=None,
        description="The tools the model could call at the last call (`null` before the first turn).",
    )
    spoken: dict[str, str] = Field(
        default_factory=dict,
        description="How the agent reads each value back (the slot's `readback_fmt`), for the slots with a "
        "readback that have a value: e.g. "
        '`"on July 17th"` for `2026-07-17`, `"no special requests"` for a `none_sub` value.',
    )
    directive: str | None = Field(description="The engine's current directive (system message).")
    variables: dict[str, Any] = Field(
        default_factory=dict, description="The agent's session variables (empty without agent logic)."
    )
    candidates: dict[str, Any] = Field(
        default_factory=dict,
        description="Early answers waiting until their slot can be asked (`_candidates`).",
    )
    changes: dict[str, Any] = Field(
        default_factory=dict,
        description="Confirmed values being changed: slot → the confirmed value; the new one is pending.",
    )
    held: dict[str, Any] = Field(
        default_factory=dict, description="Confirmed values re-checked after a change upstream (`_held`)."
    )
    agent: str | None = Field(
        default=None,
        description="A multi-agent app: the agent the conversation is with (the other keys are its view).",
    )
    agents: dict[str, dict[str, Any]] | None = Field(
        default=None,
        description="A multi-agent app: every agent's `status`, `filled`, `pending` and `deferred` slots, by "
        "name (an agent the conversation has not reached has empty ones).",
    )
    topic_dag: str | None = Field(
        default=None,
        description="A topic with its own DAG is active: its id (the slot keys above describe that DAG).",
    )


class StepUsage(BaseModel):
    prompt_tokens: int
    completion_tokens: int


class TurnStepView(BaseModel):
    """One step of the turn's loop: one engine decision, then a model call or the engine's own reply."""

    index: int = Field(description="The step's position in the turn, from 1.")
    kind: Literal["model", "engine"] = Field(
        description="`model`: the model was called; `engine`: the engine answered instead (preempted)."
    )
    phase: Literal["collection", "readback", "terminal", "gate"] = Field(
        description="`readback` while values await confirmation; `terminal` (complete or escalated) and "
        "`gate` (the gate slot is not collected yet) are steps on which the engine did not run."
    )
    reason: Reason | None = Field(
        description="The engine's decision for the step (`null` when it did not run): which rule produced "
        "the reply, e.g. `next_question`, `readback`, `fire`, `auto_confirm`, `steer_back_armed`."
    )
    directive: str | None = Field(description="The engine's message for the step (relayed or said).")
    visible_tools: list[str] = Field(description="The tools the model could call on this step.")
    hidden_tools: list[str] = Field(description="The agent's tools hidden from the model on this step.")
    usage: StepUsage = Field(description="Tokens of the step's model call (0 on an engine step).")
    events: list[int] = Field(
        default_factory=list,
        description="The step's events, as positions in the turn's `events` (events outside every step, such "
        "as turn-start and turn-end rules, belong to none).",
    )
    duration_ms: float = Field(
        default=0.0,
        description="The step's wall time in milliseconds: the engine's decision, the model call or the "
        "engine's reply, the tools and the routing of their results. Each tool's own time is the "
        "`duration_ms` of its `tool_result` event.",
    )
    engine_ms: float = Field(default=0.0, description="Of `duration_ms`: the engine's decision for the step.")
    model_ms: float = Field(
        default=0.0, description="Of `duration_ms`: waiting for the model (0 on an engine step)."
    )
    notes: dict[str, Any] = Field(
        default_factory=dict, description="What integrations added to the step (e.g. a tracing span id)."
    )


class TurnReply(BaseModel):
    session_id: str
    text: str
    events: list[dict[str, Any]] = Field(description="The turn's events in order; each has a `kind`.")
    steps: list[TurnStepView] = Field(
        description="What the turn decided, one entry per loop step in order (docs/runtime.md: What a turn "
        "decided)."
    )
    status: str
    preempted: bool = Field(description="True when the engine spoke and the model was not called.")
    model_calls: int
    ended: bool
    view: SessionView


class SessionDetail(BaseModel):
    session_id: str
    agent: str
    status: str
    ended: bool
    turns: int
    state: dict[str, Any]
    transcript: list[dict[str, Any]]
    view: SessionView


class AgentSummary(BaseModel):
    name: str
    description: str
    slots: int
    tasks: int
    tools: list[str]


class AgentList(BaseModel):
    agents: list[AgentSummary]


class GraphView(BaseModel):
    agent: str
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    mermaid: str
    app_agent: str | None = Field(
        default=None,
        description="A multi-agent app: the agent whose DAG this is (`?agent=`, default the root).",
    )
    topic: str | None = Field(default=None, description="The topic whose own DAG this is (`?topic=`).")


class Health(BaseModel):
    status: str
    agents: int | None = None
    api_key_required: bool | None = Field(
        default=None, description="Whether /v1 requests need an API key (on /healthz)."
    )
    max_message_chars: int | None = Field(
        default=None, description="The longest message a turn accepts, in characters (on /healthz)."
    )


class Problem(BaseModel):
    """An error (RFC 9457 problem details) with a stable ``code``."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    fix: str | None = None
    errors: list[dict[str, Any]] | None = None
