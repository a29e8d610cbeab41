"""What a turn produced: a closed set of typed, frozen events and the :class:`TurnResult`.

Every event has a ``kind`` tag so consumers can match exhaustively (``match event.kind``) or serialise events
(:func:`event_to_json`) for transcripts and the wire. The order of ``TurnResult.events`` is the order things
happened in.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from slotgraph.engine.actions import Reason
from slotgraph.logic.guards import GuardEvent
from slotgraph.logic.rules import RuleEvent
from slotgraph.logic.topics import TopicEvent
from slotgraph.models.protocol import Usage

__all__ = [
    "AgentTransferEvent",
    "EndSessionEvent",
    "ErrorEvent",
    "Event",
    "GuardEvent",
    "ModelNoCallEvent",
    "PayloadEvent",
    "RefusalEvent",
    "RefusalReason",
    "RefusedBy",
    "RuleEvent",
    "StateSnapshotEvent",
    "TextEvent",
    "ToolCallEvent",
    "ToolResultEvent",
    "TopicEvent",
    "TransferEvent",
    "TurnResult",
    "TurnStep",
    "event_to_json",
    "step_to_json",
]

Origin = Literal["model", "engine", "logic"]
"""Who made a call or said a text: the model, the engine, or the logic layer (a rule or prompt program)."""


@dataclass(frozen=True, slots=True)
class TextEvent:
    """Text said to the person. ``origin`` is ``engine`` on a preempted call (the model was skipped)."""

    text: str
    origin: Origin = "model"
    kind: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class PayloadEvent:
    """A rich response part for the client (``payload``/``audio``, docs/engine.md#rich-responses); ``part`` is
    verbatim."""

    part: Mapping[str, Any]
    kind: Literal["payload"] = "payload"


@dataclass(frozen=True, slots=True)
class ToolCallEvent:
    """A tool call, made by the model or by the engine (a task fire, auto-confirm, an ``on_exhaust.then``)."""

    call_id: str
    name: str
    args: Mapping[str, Any]
    origin: Origin
    kind: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True, slots=True)
class ToolResultEvent:
    """The result of a tool call; ``failed`` when the tool raised (the exception is in ``result``).

    ``duration_ms`` is how long the tool's own code ran, in milliseconds (up to its timeout); ``None`` when
    no tool code ran (a refusal, a replayed or reused result, a built-in readback tool). It is not part of
    the event's equality: two results are the same whatever time they took."""

    call_id: str
    name: str
    result: Any
    failed: bool = False
    duration_ms: float | None = field(default=None, compare=False)
    kind: Literal["tool_result"] = "tool_result"


@dataclass(frozen=True, slots=True)
class StateSnapshotEvent:
    """The session state (``sm``) right after a tool result was routed into it: a read-only snapshot, copied
    when first read (:class:`~slotgraph.runtime.state_copy.StateSnapshot`)."""

    state: Mapping[str, Any]
    after_tool: str
    kind: Literal["state_snapshot"] = "state_snapshot"


@dataclass(frozen=True, slots=True)
class EndSessionEvent:
    """The session ended (``end_session`` tool or an ``end_session`` response part)."""

    reason: str = ""
    escalated: bool = False
    summary: str | None = None
    """The ending summary the model gave (``end_session``'s ``summary``), when it gave one."""
    params: Mapping[str, Any] | None = None
    """The named details of the ending (``end_session``'s ``params``: ``builtin_tools.end_session.
    params_fields``, with a ``merge_bind``'s keys), when there are any."""
    kind: Literal["end_session"] = "end_session"


@dataclass(frozen=True, slots=True)
class TransferEvent:
    """The conversation is handed over (``escalate`` tool or a ``transfer`` response part)."""

    reason: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)
    kind: Literal["transfer"] = "transfer"


RefusalReason = Literal[
    "hidden_tool",
    "unknown_tool",
    "executor",
    "bad_arguments",
    "session_ended",
    "gate_closed",
    "bind_unresolved",
    "merge_bind_refused",
    "summary_required",
    "extraction_pending",
    "idempotency_conflict",
    "idempotency_unconfirmed",
    "receipt_refused",
    "call_limit",
    "safety_refused",
    "handoff_refused",
]
"""Why a call was refused: the runtime's checks (``unknown_tool``, ``executor``, ``bad_arguments``,
``session_ended``, ``call_limit``: past a tool-call cap of ``limits:``), the DAG's visibility
(``hidden_tool``), a tool gate (``gate_closed``, ``bind_unresolved``,
``merge_bind_refused``, ``summary_required``, ``extraction_pending``, ``safety_refused``: the safety
classifier refused the call's text, ``handoff_refused``: a hand-off routing rule refused the destination) or
an execution contract
(``idempotency_*``, ``receipt_refused``)."""

RefusedBy = Literal["runtime", "dag", "gate", "contract"]
"""Who refused a call: the runtime's own checks, the DAG's visibility, a tool gate, an execution contract."""


@dataclass(frozen=True, slots=True)
class AgentTransferEvent:
    """The conversation moved to another agent of a multi-agent app, within the turn: a result of ``tool``
    named ``to_agent`` as its ``target_agent``. The agent it moved to plays the rest of the turn."""

    from_agent: str
    to_agent: str
    tool: str
    kind: Literal["agent_transfer"] = "agent_transfer"


@dataclass(frozen=True, slots=True)
class RefusalEvent:
    """A tool call that was refused and not executed (``refused`` says why, ``by`` who refused it)."""

    call_id: str
    name: str
    args: Mapping[str, Any]
    refused: RefusalReason
    message: str
    by: RefusedBy = "runtime"
    kind: Literal["refusal"] = "refusal"


@dataclass(frozen=True, slots=True)
class ErrorEvent:
    """Something went wrong that ended the turn early (the step cap, a model error); the state is intact."""

    code: str
    message: str
    kind: Literal["error"] = "error"


@dataclass(frozen=True, slots=True)
class ModelNoCallEvent:
    """A diagnostic: the model read the person's message and called no tool, and said why (models that can
    explain themselves, such as ``offline``, give the reason): what an author needs to see when an answer
    was not used ("asked for patient_name (a name); found none in 'the 5th'")."""

    reason: str
    text: str
    kind: Literal["model_no_call"] = "model_no_call"


Event = (
    TextEvent
    | PayloadEvent
    | ToolCallEvent
    | ToolResultEvent
    | StateSnapshotEvent
    | EndSessionEvent
    | TransferEvent
    | RefusalEvent
    | ErrorEvent
    | RuleEvent
    | ModelNoCallEvent
    | GuardEvent
    | AgentTransferEvent
    | TopicEvent
)


def event_to_json(event: Event) -> dict[str, Any]:
    """A JSON-ready dict of an event, ``kind`` first (``dataclasses.asdict``: nested values copied,
    dataclasses in them turned into dicts)."""
    data = dataclasses.asdict(event)
    return {"kind": data.pop("kind"), **data}


StepKind = Literal["model", "engine"]
StepPhase = Literal["collection", "readback", "terminal", "gate"]


@dataclass(frozen=True, slots=True)
class TurnStep:
    """One step of a turn's loop: one engine preparation, then a model call (``kind="model"``) or the engine's
    preempted reply (``kind="engine"``), and the tools that step ran. Read this record — not the session or
    the model — to see what the turn decided (docs/runtime.md "What a turn decided").

    ``reason`` is the engine's decision (:class:`slotgraph.engine.Reason`), ``None`` when the engine did
    not run (``phase`` ``terminal``: the session is complete or escalated; ``gate``: the gate slot is not
    collected yet). ``directive`` is the engine's message for the step (relayed by the model, or said by the
    engine). ``visible_tools``/``hidden_tools`` split the agent's tools for the step; ``instruction`` is the
    system instruction the model got (or would have got). ``events`` are the events of the step, in order
    (also in :attr:`TurnResult.events`). ``notes`` is where integrations add what they know of the step
    (e.g. a tracing span id) without a side channel.

    ``duration_ms`` is the step's wall time in milliseconds, of which ``engine_ms`` the engine's decision
    and ``model_ms`` waiting for the model (0 on an engine step); each tool's time is its
    :attr:`ToolResultEvent.duration_ms`. Timings are not part of the step's equality.
    """

    index: int
    kind: StepKind
    phase: StepPhase
    reason: Reason | None
    directive: str | None
    visible_tools: tuple[str, ...]
    hidden_tools: tuple[str, ...]
    instruction: str
    events: tuple[Event, ...] = ()
    usage: Usage = field(default_factory=Usage)
    debug_log: tuple[Mapping[str, Any], ...] = ()
    notes: Mapping[str, Any] = field(default_factory=dict)
    duration_ms: float = field(default=0.0, compare=False)
    engine_ms: float = field(default=0.0, compare=False)
    model_ms: float = field(default=0.0, compare=False)

    @property
    def model_called(self) -> bool:
        return self.kind == "model"


def step_to_json(step: TurnStep, *, events: bool = False) -> dict[str, Any]:
    """A JSON-ready dict of a step (without its events unless ``events``; they are in the turn's list)."""
    data: dict[str, Any] = {
        "index": step.index,
        "kind": step.kind,
        "phase": step.phase,
        "reason": str(step.reason) if step.reason is not None else None,
        "directive": step.directive,
        "visible_tools": list(step.visible_tools),
        "hidden_tools": list(step.hidden_tools),
        "usage": dataclasses.asdict(step.usage),
        "duration_ms": step.duration_ms,
        "engine_ms": step.engine_ms,
        "model_ms": step.model_ms,
    }
    if step.notes:
        data["notes"] = dict(step.notes)
    if events:
        data["events"] = [event_to_json(e) for e in step.events]
    return data


@dataclass(frozen=True, slots=True)
class TurnResult:
    """Everything one turn produced."""

    events: tuple[Event, ...]
    model_calls: int
    usage: Usage
    refusals: int
    status: str
    state: Mapping[str, Any] = field(default_factory=dict)
    variables: Mapping[str, Any] = field(default_factory=dict)
    """The session's agent-logic variables after the turn (empty for an agent without logic)."""
    steps: tuple[TurnStep, ...] = ()
    """One record per loop step: what the engine decided, what the model saw, what happened (see
    :class:`TurnStep`)."""
    agent: str = ""
    """The agent the conversation is with after the turn (in a multi-agent app, where transfers led)."""
    topic_states: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """The slot-filling state of each topic with its own DAG the conversation has entered, by topic id
    (``state`` is the agent's own DAG's)."""

    @property
    def debug_log(self) -> tuple[Mapping[str, Any], ...]:
        """With ``Session(debug=True)``: the engine's ``{"tag": ..., ...}`` entries of every invocation of
        the turn, in order (the ``[slot-filling:<tag>]`` log of docs/engine.md); empty otherwise."""
        return tuple(entry for step in self.steps for entry in step.debug_log)

    @property
    def last_step(self) -> TurnStep | None:
        """The step that ended the turn (its tools and directive are what the session shows next)."""
        return self.steps[-1] if self.steps else None

    @property
    def model_steps(self) -> tuple[TurnStep, ...]:
        """The steps in which the model was called, in order: each one's record of the call (the tools the
        model saw, its instruction)."""
        return tuple(step for step in self.steps if step.model_called)

    @property
    def hidden_tools(self) -> tuple[str, ...]:
        """The tools hidden from the model on the turn's last step."""
        return self.steps[-1].hidden_tools if self.steps else ()

    @property
    def directive(self) -> str | None:
        """The engine's message on the turn's last step (what it asked or said), if any."""
        return self.steps[-1].directive if self.steps else None

    @property
    def text(self) -> str:
        """The agent's text of the turn, parts joined with a space."""
        return " ".join(e.text for e in self.events if isinstance(e, TextEvent) and e.text)

    @property
    def preempted(self) -> bool:
        """True when the model was not called at all this turn (the engine spoke for it)."""
        return self.model_calls == 0

    @property
    def tool_calls(self) -> tuple[ToolCallEvent, ...]:
        return tuple(e for e in self.events if isinstance(e, ToolCallEvent))

    @property
    def errors(self) -> tuple[ErrorEvent, ...]:
        return tuple(e for e in self.events if isinstance(e, ErrorEvent))

    @property
    def ended(self) -> bool:
        return any(isinstance(e, EndSessionEvent | TransferEvent) for e in self.events)
