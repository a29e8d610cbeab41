"""One part of a user turn — one agent on one DAG: the host's part of the callback lifecycle
(docs/architecture.md#one-turn). A turn that moves to another agent or to a topic's own DAG is several
parts; :mod:`~slotgraph.runtime.router` plays them, each with :func:`run_turn`.

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
   e. one exception to "stop when the model made no tool call": when the engine's action asks for it
      (``recheck_after_model``) the engine runs once more after the model's step — it *held* a task fire so
      the model could first call setters for what the user added to an inline confirmation
      (docs/engine.md#auto-confirm-and-inline-confirm), or it *armed* a hard/escalate steer-back tier that
      applies only if the model did not record an answer. So the task fires, or the question is asked, this
      turn instead of after the user speaks again.

What a model answers is checked before anything of it is kept, so a misbehaving backend cannot leave a
history the stores cannot read back: a response that is not a :class:`~slotgraph.models.ModelResponse`
(or whose text is not a string, or a tool call whose id or name is not a string) raises
:class:`~slotgraph.runtime.errors.ModelOutputError` — the turn is not saved, as for a model exception. A
tool call whose arguments are not a JSON object is refused (``bad_arguments``) and kept with ``{}`` as its
arguments; a call id that is empty or already used in the conversation is replaced by a fresh one (tool
results answer calls by id); a response with neither text nor tool calls adds an
:class:`~slotgraph.runtime.events.ErrorEvent` (``empty_model_response``) instead of an unexplained silence.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from time import perf_counter
from typing import Any

from slotgraph.config.compiled import CompiledDag
from slotgraph.config.limits import LimitsConfig
from slotgraph.engine.actions import EngineAction, FunctionCall
from slotgraph.logic import LogicSession
from slotgraph.models.protocol import (
    AssistantText,
    AssistantToolCalls,
    Message,
    Model,
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from slotgraph.runtime.engine_port import Engine
from slotgraph.runtime.errors import ModelOutputError
from slotgraph.runtime.events import ErrorEvent, Event, ModelNoCallEvent, StepPhase, TextEvent, TurnStep
from slotgraph.runtime.executions import Executions
from slotgraph.runtime.extraction import Extractions, tool_extractor
from slotgraph.runtime.fencing import fence_value
from slotgraph.runtime.instructions import replace_base
from slotgraph.runtime.json_values import json_problem
from slotgraph.runtime.logic_bridge import LogicTools
from slotgraph.runtime.payloads import stash_events, stash_to_deliver
from slotgraph.runtime.preemption import engine_reply
from slotgraph.runtime.reply_guard import ModelJudge, regeneration_request
from slotgraph.runtime.tool_execution import ToolOutcome, ToolRunner
from slotgraph.runtime.tool_gates import GateLayer
from slotgraph.runtime.tools import ToolRegistry
from slotgraph.runtime.turn_preparation import Preparation, is_terminal, prepare_call
from slotgraph.stores.ledger import ExecutionLedger

__all__ = [
    "DEFAULT_STEP_CAP",
    "EventSink",
    "Handover",
    "TurnContext",
    "TurnInputs",
    "TurnOutput",
    "run_turn",
]

logger = logging.getLogger("slotgraph.runtime")

DEFAULT_STEP_CAP = 12

EventSink = Callable[[Event], Awaitable[None]]
"""Receives each event of a turn as it happens (e.g. to stream it); the turn waits for it."""


@dataclass(frozen=True, slots=True)
class TurnContext:
    """What every part of one user turn shares: the session's facts and collaborators, fixed for the turn.

    The session builds it once per turn; the router (:mod:`~slotgraph.runtime.router`) hands the same
    context to each part it plays, so an agent taking over, or a topic's DAG, sees the same clock, channel
    and event sink as the part before it."""

    session_id: str
    now: datetime
    engine: Engine
    channel: str | None = None
    event_data: Mapping[str, Any] | None = None
    debug: bool = False
    step_cap: int = DEFAULT_STEP_CAP
    """Steps (model calls and engine replies) one part may take before it stops with an error event."""
    on_event: EventSink | None = None
    ledger: ExecutionLedger | None = None
    """Where task-executor attempts are recorded before dispatch (:mod:`~slotgraph.runtime.executions`);
    None: executors run without idempotency keys."""


@dataclass(frozen=True, slots=True)
class TurnInputs:
    """Everything one part of a turn needs: one agent on one DAG. ``history`` is the conversation before
    this part; ``context`` is what every part of the turn shares."""

    dag: CompiledDag
    registry: ToolRegistry
    model: Model
    instruction: str
    sm: Mapping[str, Any]
    history: tuple[Message, ...]
    user: UserMessage
    context: TurnContext
    logic: LogicSession | None = None
    """The session's agent logic (variables, rules, the instruction template); None when the agent has
    none. Rules fire at turn start, after each tool result and at turn end, and the instruction is rebuilt
    from its template before every model call."""
    agent_name: str = ""
    team: frozenset[str] = frozenset()
    """The agents of a multi-agent app, which a tool may hand the conversation to (the router's team; see
    :class:`~slotgraph.runtime.tool_execution.ToolRunner`)."""
    resumed: bool = False
    """The turn goes on with this agent after a transfer: ``user`` is already the last user message of
    ``history`` (it is not added again, but the engine and the rules still get its text)."""
    executions: Mapping[str, int] = field(default_factory=dict)
    """Per task, the attempts settled in saved turns and earlier parts (the record's ``executions``)."""
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    """Tool timeouts and tool-call caps (``limits:`` in agent.yaml)."""
    extractions: Extractions | None = None
    """The session's background extractions (agents with ``extraction: true`` variables)."""
    topic_dags: frozenset[str] = frozenset()
    """The agent's topics with a DAG of their own. When the conversation moves to (or away from) one, the
    part of the turn played on this DAG stops (``TurnOutput.topic_moved``) and the router goes on with
    the turn on the other DAG."""
    dag_topic: str = ""
    """The topic whose DAG this part of the turn plays (``""``: the agent's own DAG)."""
    continued: bool = False
    """The agent's turn goes on on another topic's DAG: its logic already started the turn (turn-start
    rules do not fire again)."""


@dataclass(frozen=True, slots=True)
class Handover:
    """A transfer a tool call asked for: the target agent, and the call and result that asked for it (the
    target's DAG routes them too when the tool is its ``bootstrap`` tool)."""

    target: str
    tool: str
    args: Mapping[str, Any]
    result: Any


@dataclass(slots=True)
class TurnOutput:
    """What one part of a turn produced (the router gathers the parts; the session turns them into a
    TurnResult and persists them)."""

    sm: dict[str, Any]
    history: list[Message]
    events: list[Event] = field(default_factory=list)
    model_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    refusals: int = 0
    ended: bool = False
    engine_calls: int = 0
    steps: list[TurnStep] = field(default_factory=list)
    """One :class:`~slotgraph.runtime.events.TurnStep` per loop step, in order."""
    sink: EventSink | None = None
    handover: Handover | None = None
    """Set when a tool call handed the conversation to another agent of the app; the turn stops there."""
    executions: dict[str, int] = field(default_factory=dict)
    """Per task, the attempts settled by the end of this turn (saved in the record)."""
    tool_calls: int = 0
    """Tool calls run this turn (model and engine), against ``limits.tool_calls_per_turn``."""
    model_ms: float = 0.0
    """Milliseconds spent waiting for the model this turn (each step records its share)."""
    topic_moved: bool = False
    """The conversation moved to a topic that plays another DAG (see ``TurnInputs.topic_dags``): this part
    stopped; the router goes on with the turn there (turn-end rules wait for the last part)."""

    async def emit(self, *events: Event) -> None:
        """Record events in order and hand each to the sink (if any) as it happens."""
        for event in events:
            self.events.append(event)
            if self.sink is not None:
                await self.sink(event)


def _next_call_id(out: TurnOutput) -> str:
    return f"engine_{len(out.history)}_{len(out.events)}"


async def run_turn(inputs: TurnInputs) -> TurnOutput:
    """Play one part of a turn: one agent on one DAG. Raises only what the model or engine raise; the caller
    keeps the previous state then."""
    context = inputs.context
    sm = dict(inputs.sm)
    if not is_terminal(sm):
        sm = context.engine.begin_turn(inputs.dag, sm)
    history = [*inputs.history] if inputs.resumed else [*inputs.history, inputs.user]
    out = TurnOutput(sm=sm, history=history, sink=context.on_event)
    out.executions = dict(inputs.executions)
    executions = None
    if context.ledger is not None:
        executions = Executions(context.ledger, context.session_id, out.executions)  # shares the dict
    runner = ToolRunner(
        inputs.dag,
        inputs.registry,
        context.engine,
        context.session_id,
        context.channel,
        context.now,
        agent_name=inputs.agent_name,
        gates=GateLayer(inputs.logic, inputs.extractions) if inputs.logic is not None else None,
        team=inputs.team,
        executions=executions,
        limits=inputs.limits,
        ledger=context.ledger,
    )
    logic = inputs.logic
    if logic is not None:
        tools = LogicTools(runner, out, inputs.model)
        logic.bind_tools(tools, tools.judge, tools.judge)
        if not inputs.continued:
            _start_extraction(inputs, runner)
            effects = await logic.start_turn(inputs.user.text, out.sm)
            await out.emit(*effects.events)
    if not out.ended:
        await _steps(inputs, out, runner)
    if logic is not None and not out.topic_moved:
        if inputs.extractions is not None:
            inputs.extractions.apply_finished(logic.store)
            logic.unextracted = inputs.extractions.unextracted()
        effects = await logic.end_turn(out.sm)
        await out.emit(*effects.events)
    return out


def _start_extraction(inputs: TurnInputs, runner: ToolRunner) -> None:
    """Apply the background extractions finished since the last turn; start one for this turn's text."""
    extractions, logic = inputs.extractions, inputs.logic
    if extractions is None or logic is None or logic.logic.extraction is None:
        return
    extractions.adopt(logic.unextracted)
    extractions.apply_finished(logic.store)
    tool = inputs.registry.get(logic.logic.extraction.tool)
    if tool is None:
        return
    fields = {d.name: d.description for d in logic.logic.declarations if d.name in extractions.eligible}
    extractions.start(inputs.user.text, tool_extractor(tool, fields, runner.context(inputs.sm)))


async def _steps(inputs: TurnInputs, out: TurnOutput, runner: ToolRunner) -> None:
    """The turn's steps (model calls and engine replies) until one produces no tool call."""
    context = inputs.context
    delivered = False
    # An agent the conversation was just handed to gets the user's words as <user_context> (the router puts
    # them in its state), not as a user turn of its own: the message that moved the conversation is not a
    # stalled turn of this DAG (steer-back counts user turns), as on the platform, where routing writes state.
    last_user_text = "" if inputs.resumed else inputs.user.text
    rechecked = False
    for _step in range(context.step_cap):
        if _dag_moved(inputs):  # a topic with another DAG: the router goes on there
            out.topic_moved = True
            return
        first_event, usage_before, model_before = len(out.events), out.usage, out.model_ms
        started = perf_counter()
        prep = prepare_call(
            engine=context.engine,
            dag=inputs.dag,
            registry=inputs.registry,
            sm=out.sm,
            instruction=inputs.instruction,
            last_user_text=last_user_text,
            event_data=context.event_data,
            channel=context.channel,
            debug=context.debug,
            variables=inputs.logic.condition_variables() if inputs.logic is not None else None,
        )
        engine_ms = _ms_since(started)
        last_user_text = ""
        out.sm = prep.sm
        out.engine_calls += int(prep.engine_ran)
        action = prep.action
        instruction = prep.instruction
        preempted = action is not None and action.preempts(len(out.history))
        offered = prep.visible
        if action is not None and preempted:
            more = await _play_engine_reply(inputs, action, out, runner)
        else:
            if inputs.logic is not None:
                instruction = replace_base(instruction, await inputs.logic.instruction(out.sm))
            offered = runner.offered(prep.visible)  # what this model call is offered (gates closed: not)
            stash = stash_to_deliver(action.stash, action.message) if action is not None else ()
            more, spoke = await _call_model(inputs, instruction, prep.visible, out, runner, stash, delivered)
            delivered = delivered or spoke
            if not more and action is not None and action.recheck_after_model and not rechecked:
                rechecked = more = not out.ended
        out.steps.append(
            _step_record(
                inputs,
                prep,
                out,
                instruction,
                preempted,
                first_event,
                _since(usage_before, out.usage),
                offered,
                (_ms_since(started), engine_ms, out.model_ms - model_before),
            )
        )
        if not more or out.ended or out.handover is not None:
            return
    message = (
        f"the turn stopped after {context.step_cap} steps (model calls and engine replies) because tools "
        "kept being called; the state is kept as routed so far — check the model's tool calls or raise "
        "step_cap"
    )
    logger.error("session %s: %s", context.session_id, message)
    await out.emit(ErrorEvent("step_cap", message))


def _dag_moved(inputs: TurnInputs) -> bool:
    """Whether the active topic now plays another DAG than this part of the turn."""
    topics = inputs.logic.topics if inputs.logic is not None else None
    if topics is None or not inputs.topic_dags:
        return False
    current = topics.current
    return (current if current in inputs.topic_dags else "") != inputs.dag_topic


async def _after_tool(logic: LogicSession | None, out: TurnOutput, name: str, result: Any) -> None:
    """Fire the ``tool_result`` rules of a model or engine tool call."""
    if logic is not None and not out.ended:
        effects = await logic.after_tool(name, result, out.sm)
        await out.emit(*effects.events)


_NO_USAGE = Usage()


def _ms_since(started: float) -> float:
    return (perf_counter() - started) * 1000


def _since(before: Usage, now: Usage) -> Usage:
    if now is before:  # the step called no model (an engine reply)
        return _NO_USAGE
    return Usage(now.prompt_tokens - before.prompt_tokens, now.completion_tokens - before.completion_tokens)


def _step_record(
    inputs: TurnInputs,
    prep: Preparation,
    out: TurnOutput,
    instruction: str,
    preempted: bool,
    first_event: int,
    usage: Usage,
    offered: tuple[str, ...],
    timings: tuple[float, float, float],
) -> TurnStep:
    action = prep.action
    phase: StepPhase = "terminal" if is_terminal(prep.sm) else "gate"
    if action is not None:
        phase = action.phase
    visible = set(offered)
    return TurnStep(
        index=len(out.steps) + 1,
        kind="engine" if preempted else "model",
        phase=phase,
        reason=action.reason if action is not None else None,
        directive=(action.message or None) if action is not None else None,
        visible_tools=offered,
        hidden_tools=tuple([name for name in inputs.registry.names if name not in visible]),
        instruction=instruction,
        events=tuple(out.events[first_event:]),
        usage=usage,
        debug_log=prep.debug_log,
        duration_ms=timings[0],
        engine_ms=timings[1],
        model_ms=timings[2],
    )


async def _play_engine_reply(
    inputs: TurnInputs, action: EngineAction, out: TurnOutput, runner: ToolRunner
) -> bool:
    """Emit a preempted reply (its texts guarded) and run its function call; True when the loop must go on."""
    logic = inputs.logic
    reply = engine_reply(action)
    said: list[str] = []
    for event in reply.events:
        if isinstance(event, TextEvent) and logic is not None and logic.logic.guards:
            text = await _guarded(inputs, out, None, event.text)
            if not text:
                continue
            event = TextEvent(text, origin=event.origin)
        if isinstance(event, TextEvent):
            said.append(event.text)
        await out.emit(event)
    if said:
        out.history.append(AssistantText(" ".join(said)))
    if reply.ends_session:
        out.ended = True
    call_spec = reply.function_call
    if call_spec is None or out.ended:
        return False
    if reply.parallel_calls:
        return await _play_parallel(runner, out, logic, (call_spec, *reply.parallel_calls))
    call = ToolCall(_next_call_id(out), call_spec.name, dict(call_spec.args))
    out.tool_calls += 1
    outcome = await runner.run(call, out.sm, origin="engine")
    out.sm = outcome.sm
    await out.emit(*outcome.events)
    out.history.append(AssistantToolCalls((call,)))
    out.history.append(ToolResultMessage(call.id, call.name, outcome.result))
    out.ended = out.ended or outcome.ended
    _note_handover(out, call, outcome)
    if outcome.halted:  # an interrupted attempt with an unknown outcome: never fire it again blindly
        return False
    await _after_tool(logic, out, call.name, outcome.result)
    return True


async def _play_parallel(
    runner: ToolRunner, out: TurnOutput, logic: LogicSession | None, specs: Sequence[FunctionCall]
) -> bool:
    """The task calls of one parallel fire: executed concurrently on the same state, then each result is
    routed in order (``after_tool``), so every task's result — success or failure — reaches the next engine
    invocation, which judges each with its own retries."""
    calls = [ToolCall(f"{_next_call_id(out)}_{index}", s.name, dict(s.args)) for index, s in enumerate(specs)]
    out.tool_calls += len(calls)
    start = out.sm
    outcomes = await asyncio.gather(*(runner.run(call, start, origin="engine") for call in calls))
    out.history.append(AssistantToolCalls(tuple(calls)))
    halted = False
    for call, outcome in zip(calls, outcomes, strict=True):
        if (
            outcome.halted
        ):  # an interrupted attempt with an unknown outcome: not routed, never re-fired blindly
            halted = True
        else:  # values from outside are fenced before they can reach an instruction (runtime.fencing)
            args, result = fence_value(dict(call.args)), fence_value(outcome.result)
            out.sm = runner.engine.after_tool(runner.dag, out.sm, call.name, args, result)
        await out.emit(*outcome.events)
        out.history.append(ToolResultMessage(call.id, call.name, outcome.result))
        out.ended = out.ended or outcome.ended
        await _after_tool(logic, out, call.name, outcome.result)
    return not halted


def _note_handover(out: TurnOutput, call: ToolCall, outcome: ToolOutcome) -> None:
    """Remember the first transfer a call of the step asked for (the step's other calls still run)."""
    if outcome.transfer is not None and out.handover is None:
        out.handover = Handover(outcome.transfer, call.name, dict(call.args), outcome.result)


async def _call_model(
    inputs: TurnInputs,
    instruction: str,
    visible: tuple[str, ...],
    out: TurnOutput,
    runner: ToolRunner,
    stash: Sequence[Mapping[str, Any]],
    delivered: bool,
) -> tuple[bool, bool]:
    """Call the model with the visible tools and run its tool calls.

    Returns ``(the loop must go on, the stash was delivered)``; see :mod:`~slotgraph.runtime.payloads`."""
    request = ModelRequest(
        system_instruction=instruction,
        messages=tuple(out.history),
        tools=runner.schemas(visible),
        metadata={
            "session_id": inputs.context.session_id,
            "model_call": out.model_calls + 1,
            "now": inputs.context.now,
            "channel": inputs.context.channel,
        },
    )
    started = perf_counter()
    response = _checked_response(await inputs.model.generate(request))
    out.model_ms += _ms_since(started)
    out.model_calls += 1
    out.usage = out.usage + response.usage
    said = request.messages[-1] if request.messages else None
    if not response.tool_calls and response.no_call_reason and isinstance(said, UserMessage) and said.text:
        await out.emit(ModelNoCallEvent(response.no_call_reason, said.text))
    text = response.text
    if text and inputs.logic is not None and inputs.logic.logic.guards:
        text = await _guarded(inputs, out, request, text)
    if text:
        await out.emit(TextEvent(text, origin="model"))
        out.history.append(AssistantText(text))
    payload_events = stash_events(stash) if not response.tool_calls and not delivered else []
    await out.emit(*payload_events)
    if not response.tool_calls:
        if not response.text and not payload_events:
            message = (
                "the model returned neither text nor tool calls, so this turn has no reply; the state is "
                "kept — check the model backend (a content filter or a token limit?) and send the message "
                "again"
            )
            logger.warning("session %s: %s", inputs.context.session_id, message)
            await out.emit(ErrorEvent("empty_model_response", message))
        return False, bool(payload_events)
    calls = _admissible_calls(_capped(response.tool_calls, inputs), out.history, inputs.context.session_id)
    out.history.append(AssistantToolCalls(tuple(call for call, _ in calls)))
    for index, (call, args_problem) in enumerate(calls):
        refusal = _over_limit(runner, call, index, len(response.tool_calls), inputs.limits, out)
        if refusal is None:
            refusal = runner.check_model_call(
                call, visible, out.sm, ended=out.ended, args_problem=args_problem
            )
        if refusal is None:
            out.tool_calls += 1
        outcome = refusal if refusal is not None else await runner.run(call, out.sm, origin="model")
        out.refusals += int(outcome.refused)
        out.sm = outcome.sm
        await out.emit(*outcome.events)
        out.history.append(ToolResultMessage(call.id, call.name, outcome.result))
        out.ended = out.ended or outcome.ended
        _note_handover(out, call, outcome)
        if not outcome.refused and not outcome.replayed:
            await _after_tool(inputs.logic, out, call.name, outcome.result)
    return True, False


async def _guarded(inputs: TurnInputs, out: TurnOutput, request: ModelRequest | None, text: str) -> str:
    """``text`` as the response guards release it; their events are emitted first. ``request`` is the model
    call that wrote it (a regeneration repeats it); None for the engine's own text, which is not
    regenerated (a ``regenerate`` guard falls back on its ``message``, else suppresses)."""
    assert inputs.logic is not None
    judge = ModelJudge(inputs.model)

    async def regenerate(feedback: str) -> str | None:
        assert request is not None
        started = perf_counter()
        response = _checked_response(await inputs.model.generate(regeneration_request(request, feedback)))
        out.model_ms += _ms_since(started)
        out.model_calls += 1
        out.usage = out.usage + response.usage
        return response.text

    guarded = await inputs.logic.guard(
        text, out.sm, judge=judge, regenerate=regenerate if request is not None else None
    )
    for response in judge.responses:
        out.usage = out.usage + response.usage
    await out.emit(*guarded.events)
    return guarded.text


def _capped(calls: tuple[ToolCall, ...] | list[ToolCall], inputs: TurnInputs) -> tuple[ToolCall, ...]:
    """The calls of one response that are answered: the first ``tool_calls_per_response`` run, one more is
    refused with the reason, the rest are dropped (bounded work for any response)."""
    cap = inputs.limits.tool_calls_per_response
    if len(calls) <= cap + 1:
        return tuple(calls)
    logger.warning(
        "session %s: the model made %d tool calls in one response; %d run, the rest are refused or dropped",
        inputs.context.session_id,
        len(calls),
        cap,
    )
    return tuple(calls[: cap + 1])


def _over_limit(
    runner: ToolRunner, call: ToolCall, index: int, made: int, limits: LimitsConfig, out: TurnOutput
) -> ToolOutcome | None:
    """A ``call_limit`` refusal for a call past the per-response or per-turn cap, else None."""
    if index >= limits.tool_calls_per_response:
        return runner.refuse(
            call,
            "call_limit",
            f"At most {limits.tool_calls_per_response} tool calls run per response; this response made "
            f"{made}, so the calls after the first {limits.tool_calls_per_response} were not run. Call the "
            "ones still needed in your next response.",
            out.sm,
        )
    if out.tool_calls >= limits.tool_calls_per_turn:
        return runner.refuse(
            call,
            "call_limit",
            f"At most {limits.tool_calls_per_turn} tool calls run in one turn, and this turn has used them; "
            "this call was not run. Answer the person with what you have.",
            out.sm,
        )
    return None


def _checked_response(response: object) -> ModelResponse:
    """``response`` if it is a usable :class:`ModelResponse`, else :class:`ModelOutputError`."""
    fix = "fix the model backend's generate() (see slotgraph.models.protocol)"
    if not isinstance(response, ModelResponse):
        raise ModelOutputError(
            f"the model returned a {type(response).__name__}, not a ModelResponse; nothing of this turn was "
            f"saved — {fix}"
        )
    if response.text is not None and not isinstance(response.text, str):
        raise ModelOutputError(
            f"the model's response text is a {type(response.text).__name__}, not a string; nothing of this "
            f"turn was saved — {fix}"
        )
    if not isinstance(response.tool_calls, tuple | list):
        raise ModelOutputError(
            f"the model's tool_calls is a {type(response.tool_calls).__name__}, not a tuple of ToolCall; "
            f"nothing of this turn was saved — {fix}"
        )
    for index, call in enumerate(response.tool_calls):
        if not isinstance(call, ToolCall) or not isinstance(call.id, str) or not isinstance(call.name, str):
            raise ModelOutputError(
                f"the model's tool_calls[{index}] ({call!r:.120}) is not a ToolCall with a string id and "
                f"name; nothing of this turn was saved — {fix}"
            )
    return response


def _used_call_ids(history: list[Message]) -> set[str]:
    return {
        call.id for message in history if isinstance(message, AssistantToolCalls) for call in message.calls
    }


def _admissible_calls(
    calls: tuple[ToolCall, ...] | list[ToolCall], history: list[Message], session_id: str
) -> list[tuple[ToolCall, str | None]]:
    """Each call with a conversation-unique id and JSON arguments, plus what is wrong with its arguments.

    Arguments that are not a JSON object are replaced by ``{}`` (the call is then refused with the problem),
    so the history and the events only ever hold JSON.
    """
    used = _used_call_ids(history)
    out: list[tuple[ToolCall, str | None]] = []
    for call in calls:
        problem = (
            json_problem(call.args)
            if isinstance(call.args, Mapping)
            else f"arguments must be an object, got {type(call.args).__name__}"
        )
        call_id = call.id
        if not call_id or call_id in used:
            base, number = call_id or "call", 2
            while f"{base}_{number}" in used:
                number += 1
            call_id = f"{base}_{number}"
            logger.warning(
                "session %s: the model reused the tool call id %r; the call gets the id %r",
                session_id,
                call.id,
                call_id,
            )
        used.add(call_id)
        if problem is not None or call_id != call.id:
            call = ToolCall(call_id, call.name, {} if problem is not None else call.args)
        out.append((call, problem))
    return out
