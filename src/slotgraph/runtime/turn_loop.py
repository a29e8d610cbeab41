"""One user turn: the host's part of the spec's callback lifecycle (§3; DESIGN.md "One turn").

The order, and why:

1. ``before_agent`` once (the engine's ``begin_turn``: initialise ``sm``, process a deferred rejection) —
   a rejection must be applied before anything reads ``pending`` this turn.
2. Then a loop, one *step* per model call or preempted reply:

   a. :func:`~slotgraph.runtime.turn_preparation.prepare_call` invokes the engine (the first invocation of
      the turn gets the user's text, later ones ``""`` so stall counters and auto-confirm fire once per turn),
      computes the visible tools and replaces the instruction suffix;
   b. if the engine preempts (:mod:`~slotgraph.runtime.preemption`), its reply is emitted and its
      ``function_call`` executed; otherwise the model is called with the visible tools, and stashed payloads
      are appended after its text (:mod:`~slotgraph.runtime.payloads`);
   c. each tool call is admitted or refused and run (:mod:`~slotgraph.runtime.tool_execution`), its result
      routed into the state by the engine's ``after_tool``;
   d. the loop continues while the step produced tool calls — the next engine invocation sees their results,
      so a finished task leads straight to the next action (cascade) — and stops at the step cap with an
      :class:`~slotgraph.runtime.events.ErrorEvent` and the state as routed so far.
   e. one exception to "stop when the model made no tool call": when the engine *held* a task fire so the
      model could first call setters for what the user added to an inline confirmation (§7.3a, reason
      ``fire_held``) and the model called none, the engine runs once more so the task fires this turn
      instead of waiting for the user to speak again (the original host let it wait a whole turn).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from slotgraph.config.compiled import CompiledDag
from slotgraph.runtime.engine_port import Engine
from slotgraph.runtime.events import ErrorEvent, Event, TextEvent
from slotgraph.runtime.model import (
    AssistantText,
    AssistantToolCalls,
    Message,
    Model,
    ModelRequest,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from slotgraph.runtime.payloads import inject_pending_payloads
from slotgraph.runtime.preemption import engine_reply, should_preempt
from slotgraph.runtime.tool_execution import ToolRunner
from slotgraph.runtime.tools import ToolRegistry
from slotgraph.runtime.turn_preparation import is_terminal, prepare_call

__all__ = ["DEFAULT_STEP_CAP", "EventSink", "TurnInputs", "TurnOutput", "run_turn"]

logger = logging.getLogger("slotgraph.runtime")

DEFAULT_STEP_CAP = 12

EventSink = Callable[[Event], Awaitable[None]]
"""Receives each event of a turn as it happens (e.g. to stream it); the turn waits for it."""


@dataclass(frozen=True, slots=True)
class TurnInputs:
    """Everything one turn needs. ``history`` is the conversation before this turn."""

    dag: CompiledDag
    registry: ToolRegistry
    engine: Engine
    model: Model
    instruction: str
    sm: Mapping[str, Any]
    history: tuple[Message, ...]
    user: UserMessage
    session_id: str
    now: datetime
    channel: str | None = None
    event_data: Mapping[str, Any] | None = None
    debug: bool = False
    step_cap: int = DEFAULT_STEP_CAP
    on_event: EventSink | None = None


@dataclass(slots=True)
class TurnOutput:
    """What the turn produced (the session turns it into a TurnResult and persists it)."""

    sm: dict[str, Any]
    history: list[Message]
    events: list[Event] = field(default_factory=list)
    model_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    refusals: int = 0
    ended: bool = False
    engine_calls: int = 0
    last_instruction: str = ""
    last_visible: tuple[str, ...] = ()
    last_action: Mapping[str, Any] = field(default_factory=dict)
    sink: EventSink | None = None

    async def emit(self, *events: Event) -> None:
        """Record events in order and hand each to the sink (if any) as it happens."""
        for event in events:
            self.events.append(event)
            if self.sink is not None:
                await self.sink(event)


def _next_call_id(out: TurnOutput) -> str:
    return f"engine_{len(out.history)}_{len(out.events)}"


async def run_turn(inputs: TurnInputs) -> TurnOutput:
    """Play one turn. Raises only what the model or engine raise; the caller keeps the previous state then."""
    sm = dict(inputs.sm)
    if not is_terminal(sm):
        sm = inputs.engine.begin_turn(inputs.dag, sm)
    out = TurnOutput(sm=sm, history=[*inputs.history, inputs.user], sink=inputs.on_event)
    runner = ToolRunner(
        inputs.dag, inputs.registry, inputs.engine, inputs.session_id, inputs.channel, inputs.now
    )
    delivered: set[str] = set()
    last_user_text = inputs.user.text
    held_fire_retried = False
    for _step in range(inputs.step_cap):
        prep = prepare_call(
            engine=inputs.engine,
            dag=inputs.dag,
            registry=inputs.registry,
            sm=out.sm,
            instruction=inputs.instruction,
            last_user_text=last_user_text,
            event_data=inputs.event_data,
            channel=inputs.channel,
            debug=inputs.debug,
        )
        last_user_text = ""
        out.sm = prep.sm
        out.engine_calls += int(prep.engine_ran)
        out.last_instruction, out.last_visible, out.last_action = prep.instruction, prep.visible, prep.action
        if should_preempt(prep.action, conversation_length=len(out.history)):
            more = await _play_engine_reply(prep.action, out, runner)
        else:
            more = await _call_model(inputs, prep.instruction, prep.visible, out, runner, delivered)
            if not more and prep.action.get("reason") == "fire_held" and not held_fire_retried:
                held_fire_retried = more = True
        if not more or out.ended:
            return out
    message = (
        f"the turn stopped after {inputs.step_cap} steps (model calls and engine replies) because tools kept "
        "being called; the state is kept as routed so far — check the model's tool calls or raise step_cap"
    )
    logger.error("session %s: %s", inputs.session_id, message)
    await out.emit(ErrorEvent("step_cap", message))
    return out


async def _play_engine_reply(action: Mapping[str, Any], out: TurnOutput, runner: ToolRunner) -> bool:
    """Emit a preempted reply and run its function call; True when the loop must go on."""
    reply = engine_reply(action)
    await out.emit(*reply.events)
    if reply.text:
        out.history.append(AssistantText(reply.text))
    if reply.ends_session:
        out.ended = True
    call_spec = reply.function_call
    if not call_spec or out.ended:
        return False
    call = ToolCall(_next_call_id(out), str(call_spec.get("name")), dict(call_spec.get("args") or {}))
    outcome = await runner.run(call, out.sm, origin="engine")
    out.sm = outcome.sm
    await out.emit(*outcome.events)
    out.history.append(AssistantToolCalls((call,)))
    out.history.append(ToolResultMessage(call.id, call.name, outcome.result))
    out.ended = out.ended or outcome.ended
    return True


async def _call_model(
    inputs: TurnInputs,
    instruction: str,
    visible: tuple[str, ...],
    out: TurnOutput,
    runner: ToolRunner,
    delivered: set[str],
) -> bool:
    """Call the model with the visible tools and run its tool calls; True when the loop must go on."""
    request = ModelRequest(
        system_instruction=instruction,
        messages=tuple(out.history),
        tools=inputs.registry.schemas(visible),
        metadata={
            "session_id": inputs.session_id,
            "model_call": out.model_calls + 1,
            "now": inputs.now,
            "channel": inputs.channel,
        },
    )
    response = await inputs.model.generate(request)
    out.model_calls += 1
    out.usage = out.usage + response.usage
    if response.text:
        await out.emit(TextEvent(response.text, origin="model"))
        out.history.append(AssistantText(response.text))
    out.sm, payload_events = inject_pending_payloads(out.sm, delivered)
    await out.emit(*payload_events)
    if not response.tool_calls:
        return False
    out.history.append(AssistantToolCalls(tuple(response.tool_calls)))
    for call in response.tool_calls:
        refusal = runner.check_model_call(call, visible, out.sm, ended=out.ended)
        outcome = refusal if refusal is not None else await runner.run(call, out.sm, origin="model")
        out.refusals += int(outcome.refused)
        out.sm = outcome.sm
        await out.emit(*outcome.events)
        out.history.append(ToolResultMessage(call.id, call.name, outcome.result))
        out.ended = out.ended or outcome.ended
    return True
