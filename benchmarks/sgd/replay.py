"""Replay SGD dialogues through the Slotgraph runtime with the oracle model and a gold backend.

For each dialogue: convert its service (:func:`~slotgraph.evals.sgd.convert.convert_service`) with a
:class:`~slotgraph.evals.sgd.backend.GoldBackend` over the dialogue's gold calls, start a session whose model
is an :class:`~slotgraph.evals.sgd.oracle.OracleModel` built from the user turns only, and send every user
utterance in order. The engine decides everything else.

When a session has ended (a booking completed, or failed and was handed over) and the user goes on with
another request — an intent, new information, or a yes to an alternative the failed booking offered — the
replay starts a **follow-up session**, as a host would: the user's known booking values are carried over (the
model re-informs them, so they are confirmed again), or, for an accepted alternative, passed as trusted
``event_data`` (the user has just agreed to exactly that booking).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from slotgraph.runtime import Agent, Model, Session, ToolCallEvent, ToolResultEvent, TurnResult

from .backend import Catalogue, GoldBackend
from .convert import INTENT_SLOT, ConvertedAgent, convert_service, from_sgd_value, ident
from .data import Dialogue, ServiceSchema, UserTurn
from .live import RecordingModel, TurnReading, divergence
from .oracle import Desync, Op, OracleModel

__all__ = ["SGD_TODAY", "DialogueOutcome", "replay_dialogue", "replay_dialogues"]

SGD_TODAY = datetime.datetime(2019, 3, 1, 10, 0)
"""SGD's "today" (the default date of Restaurants_1 reservations): the sessions' clock."""

Call = tuple[str, tuple[tuple[str, str], ...]]


def _call_key(method: str, params: Mapping[str, str]) -> Call:
    return method, tuple(sorted((k, str(v).strip().lower()) for k, v in params.items()))


@dataclass(frozen=True, slots=True)
class DialogueOutcome:
    """What replaying one dialogue produced, next to what the gold system did."""

    dialogue_id: str
    service: str
    runtime_calls: tuple[Call, ...]
    gold_calls: tuple[Call, ...]
    backend_mismatches: int
    reasks: int
    readbacks: int
    gold_readbacks: int
    turns_to_completion: int | None
    gold_turns_to_completion: int | None
    user_turns: int
    desyncs: tuple[Desync, ...]
    preempted_turns: int
    model_calls: int
    sessions: int
    reasked_slots: tuple[str, ...] = field(default=())
    first_divergence: TurnReading | None = None
    """With a real model: the first user turn whose reading differs from the oracle's (None: none did)."""
    divergences: tuple[TurnReading, ...] = field(default=())
    """With a real model: every user turn whose reading differs from the oracle's."""
    model_seconds: tuple[float, ...] = field(default=())
    """With a real model: the wall time of each of its calls."""

    @property
    def needs_booking(self) -> bool:
        return bool(self.gold_calls)

    @property
    def matched(self) -> bool:
        """The transactional calls equal the gold ones: method and arguments, in order, none extra."""
        return self.runtime_calls == self.gold_calls


@dataclass
class _Run:
    dialogue: Dialogue
    agent: ConvertedAgent
    runtime: Agent
    oracle: OracleModel
    model: Model
    backend: GoldBackend
    session: Session
    sessions: int = 1
    reasks: list[str] = field(default_factory=list)
    readbacks: int = 0
    preempted: int = 0
    model_calls: int = 0
    completion: int | None = None

    def new_session(self, event_data: Mapping[str, Any]) -> None:
        self.session = self.runtime.session(model=self.model, clock=lambda: SGD_TODAY, seed=0,
                                            event_data=event_data)  # fmt: skip
        self.sessions += 1
        self.oracle.reset_session()
        self.session.send_event("resume")

    def tx_calls(self) -> tuple[Call, ...]:
        return tuple(_call_key(c.method, c.parameters) for c in self.backend.calls if c.transactional)


def _wants_more(dialogue: Dialogue, index: int, oracle: OracleModel) -> bool:
    turn = dialogue.user_turns[index]
    accepting = oracle.alternative is not None and turn.has("AFFIRM")
    return turn.has("INFORM_INTENT") or turn.has("INFORM") or accepting


def _typed(agent: ConvertedAgent, values: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for slot, value in values.items():
        for ref in agent.setters.get(slot, ()):
            if ref.dag_slot == ident(slot):
                typed = from_sgd_value(value, ref.kind, ref.choices)
                if typed is not None:
                    out[ref.dag_slot] = typed
    return out


def _judge(
    run: _Run, index: int, left: Sequence[Op], result: TurnResult, given_before: Mapping[str, str]
) -> None:
    """Record the ops the runtime never had a tool for as desyncs (a repeated value is not one)."""
    pending = bool(result.state.get("pending"))
    engine_confirmed = any(
        isinstance(e, ToolCallEvent) and e.name == "confirm_pending" for e in result.events
    )
    for op in left:
        if op.kind in ("inform", "select"):
            if given_before.get(op.slot, "").lower() == op.value.lower():
                continue
            run.oracle.record(index, op, "setter hidden" if op.kind == "inform" else "choice already set")
        elif op.kind == "affirm":
            if pending and not engine_confirmed:
                run.oracle.record(index, op, "readback pending but confirm_pending not offered")
        elif op.kind == "negate":
            if pending:
                run.oracle.record(index, op, "readback pending but reject_pending not offered")
        elif op.kind == "alts":
            run.oracle.record(index, op, "no alternatives can be offered now")
        elif op.kind == "intent":
            run.oracle.record(index, op, "intent switch not offered")


def replay_dialogue(
    dialogue: Dialogue,
    schema: ServiceSchema,
    model: Model | None = None,
    catalogue: Catalogue | None = None,
) -> DialogueOutcome:
    """Replay one dialogue; never raises for a flow problem (those are what the outcome measures).

    ``catalogue``: the service database its booking looks names up in (default: this dialogue's own rows).

    ``model`` None: the oracle plays the model. Otherwise the given model reads the utterances (the oracle
    only shadows it, to name where its reading diverges); a follow-up session then starts from the intent
    and, for an accepted alternative, the offered booking — the model must read everything else itself.
    """
    database = (catalogue or Catalogue.of((dialogue,))).of_service(dialogue.service)
    backend = GoldBackend(dialogue.gold_calls, database)
    agent = convert_service(schema, backend)
    runtime = Agent.from_config(agent.dag, tools=agent.tools, instruction=agent.instruction, name=schema.name)
    oracle = OracleModel(dialogue.user_turns, agent)
    recorder = RecordingModel(model) if model is not None else None
    used: Model = recorder if recorder is not None else oracle
    session = runtime.session(model=used, clock=lambda: SGD_TODAY, seed=0)
    run = _Run(dialogue, agent, runtime, oracle, used, backend, session)
    txs = agent.transactionals
    gold = tuple(_call_key(c.method, c.parameters) for c in dialogue.gold_calls if c.method in txs)
    for turn in dialogue.user_turns:
        index = turn.index
        carry = False
        if run.session.status != "in_progress" and _wants_more(dialogue, index, oracle):
            accepted = oracle.accepted_alternative(index)
            tx = oracle.intent if oracle.intent in txs else agent.transactional
            event_data: dict[str, Any] = {INTENT_SLOT: tx} if agent.has_intent_slot and tx else {}
            if accepted is not None:
                event_data.update(_typed(agent, accepted))
            else:
                carry = recorder is None
            run.new_session(event_data)
        given_before = dict(oracle.given)
        oracle.start_turn(index, carry_over=carry)
        if recorder is not None:
            recorder.turn = index
        result = run.session.send(turn.utterance)
        for event in result.events:
            if isinstance(event, ToolResultEvent):
                oracle.observe_tool_result(event.call_id, event.name, event.result)
        if recorder is None:
            _judge(run, index, oracle.end_turn(), result, given_before)
        else:
            oracle.end_turn()
            _shadow(oracle, agent, turn, result)
        run.model_calls += result.model_calls
        run.preempted += int(result.preempted)
        run.readbacks += int(bool(result.state.get("pending")))
        for text, slot in agent.asks.items():
            if text in result.text and slot in given_before:
                run.reasks.append(slot)
        if run.completion is None and gold and run.tx_calls() == gold:
            run.completion = index + 1
    readings = ()
    if recorder is not None:
        found = (divergence(t, agent, recorder.calls.get(t.index, ())) for t in dialogue.user_turns)
        readings = tuple(r for r in found if r is not None)
    gold_done = max((c.after_user_turn + 1 for c in dialogue.gold_calls if c.method in txs), default=None)
    return DialogueOutcome(
        dialogue_id=dialogue.dialogue_id,
        service=dialogue.service,
        runtime_calls=run.tx_calls(),
        gold_calls=gold,
        backend_mismatches=sum(1 for c in backend.calls if not c.matched),
        reasks=len(run.reasks),
        readbacks=run.readbacks,
        gold_readbacks=dialogue.gold_readbacks,
        turns_to_completion=run.completion if gold else None,
        gold_turns_to_completion=gold_done,
        user_turns=len(dialogue.user_turns),
        desyncs=tuple(oracle.desyncs),
        preempted_turns=run.preempted,
        model_calls=run.model_calls,
        sessions=run.sessions,
        reasked_slots=tuple(run.reasks),
        first_divergence=readings[0] if readings else None,
        divergences=readings,
        model_seconds=tuple(recorder.seconds) if recorder is not None else (),
    )


def _shadow(oracle: OracleModel, agent: ConvertedAgent, turn: UserTurn, result: TurnResult) -> None:
    """Keep the oracle's memory (values given, booking slots) in step with what the real model set."""
    slot_of = {ref.tool: ref for refs in agent.setters.values() for ref in refs}
    for event in result.events:
        if isinstance(event, ToolCallEvent) and event.name in slot_of:
            ref = slot_of[event.name]
            value = event.args.get(ref.param)
            if value is not None:
                oracle.given[ref.sgd_slot] = str(value)
                oracle.given_this_session.add(ref.sgd_slot)


def replay_dialogues(
    dialogues: Sequence[Dialogue],
    schemas: Mapping[str, ServiceSchema],
    model: Callable[[], Model] | None = None,
    catalogue: Catalogue | None = None,
) -> list[DialogueOutcome]:
    """Replay each dialogue with its service's schema; ``model`` builds a fresh real model per dialogue.
    ``catalogue``: the service databases (default: the rows of ``dialogues``)."""
    catalogue = catalogue or Catalogue.of(dialogues)
    return [
        replay_dialogue(d, schemas[d.service], model() if model is not None else None, catalogue)
        for d in dialogues
    ]
