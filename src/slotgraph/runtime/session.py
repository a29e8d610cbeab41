"""A conversation with an agent: wires the store, the clock and the router; decides nothing itself.

``await session.asend(text)`` loads the session record, plays one turn (:class:`~slotgraph.runtime.router.
Router`: the parts of the turn across the app's agents and their topics' DAGs, each a single-DAG
:func:`~slotgraph.runtime.turn_loop.run_turn`) and saves the record only when the turn completed — a model
or engine exception leaves the last completed state and history untouched. ``send`` is the synchronous
facade: it runs the turn on one long-lived event loop that a background thread runs
(:mod:`slotgraph.runtime.sync_loop`); inside a running event loop it refuses with a clear error.

Turns of one session are serialised. With a store, the turn holds the store's per-session lock
(``store.lock(id)``) around load → turn → save, so a second message for the same session — from this object,
another ``Session`` on the same store, or another process sharing a durable store — waits for the first
turn and then plays on the state it saved: neither is lost. A turn is never re-run on a conflict (its tool
calls have side effects): if the save still finds the stored version moved (a writer that did not take the
lock), :class:`~slotgraph.runtime.errors.StoreConflictError` propagates, nothing is overwritten and this
object keeps its last completed state. Without a store there is no lock: a second turn while one is running
is refused.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar, overload

from slotgraph.config.compiled import CompiledDag
from slotgraph.logic import LogicRecord, LogicSession, RunCache, variables_snapshot
from slotgraph.models.protocol import Message, Model, UserMessage
from slotgraph.runtime.agent_team import AgentTeam
from slotgraph.runtime.durable_record import DurableRecord, ending_of
from slotgraph.runtime.engine_port import DagEngine, Engine
from slotgraph.runtime.errors import SessionError, UnknownSessionError
from slotgraph.runtime.events import TurnResult
from slotgraph.runtime.extraction import Extractions
from slotgraph.runtime.history import bounded_history
from slotgraph.runtime.json_values import json_problem
from slotgraph.runtime.router import RoutedTurn, Router
from slotgraph.runtime.state_copy import copy_state_dict
from slotgraph.runtime.sync_loop import run_sync
from slotgraph.runtime.tools import ToolRegistry
from slotgraph.runtime.tracing_port import TurnTracer
from slotgraph.runtime.turn_loop import DEFAULT_STEP_CAP, EventSink, TurnContext
from slotgraph.stores.ledger import ExecutionLedger, keeps_ledger
from slotgraph.stores.memory import InMemoryStore
from slotgraph.stores.protocol import SessionStore

if TYPE_CHECKING:
    from pydantic import BaseModel

    from slotgraph.runtime.agent import Agent
    from slotgraph.runtime.typed_results import SessionResult

    SlotsT = TypeVar("SlotsT", bound=BaseModel)

__all__ = ["Clock", "Session"]

Clock = Callable[[], datetime]


def _checked_event_data(event_data: Mapping[str, Any] | None) -> dict[str, Any]:
    """``event_data`` as a dict, refused when it is not bounded JSON (it is stored with the session)."""
    if event_data is None:
        return {}
    if not isinstance(event_data, Mapping):
        raise SessionError(f"event_data must be a mapping, got {type(event_data).__name__}")
    problem = json_problem(event_data, "event_data")
    if problem is not None:
        raise SessionError(f"{problem}; event_data must be JSON (finite numbers, strings, lists, objects)")
    return dict(event_data)


def _system_clock() -> datetime:
    return datetime.now().astimezone()


class Session:
    """One conversation. Create it with :meth:`Agent.session <slotgraph.runtime.agent.Agent.session>`."""

    def __init__(
        self,
        agent: Agent,
        model: Model,
        *,
        session_id: str | None = None,
        event_data: Mapping[str, Any] | None = None,
        channel: str | None = None,
        clock: Clock | None = None,
        seed: int | None = None,
        store: SessionStore | None = None,
        engine: Engine | None = None,
        debug: bool = False,
        step_cap: int = DEFAULT_STEP_CAP,
        tracer: TurnTracer | None = None,
        variables: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        agent_models: bool = True,
        must_exist: bool = False,
    ) -> None:
        if step_cap < 1:
            raise ValueError(f"step_cap must be at least 1, got {step_cap}")
        self.agent = agent
        self.model = model
        self.id = session_id or uuid.uuid4().hex
        self.event_data: dict[str, Any] = _checked_event_data(event_data)
        self.channel = channel if channel is not None else agent.channel
        self.clock: Clock = clock or _system_clock
        self._owned_store = store is None
        self.must_exist = must_exist
        """A turn of a session the store does not hold raises instead of starting it afresh."""
        """Without a store the session's own fields are the record: no load, no save, no copies."""
        self.store: SessionStore = store if store is not None else InMemoryStore()
        self.engine: Engine = engine if engine is not None else DagEngine(seed=seed)
        self.debug = debug
        self.step_cap = step_cap
        self.tracer = tracer
        """Observes each turn (spans, see slotgraph.tracing); turns see its wrapped model, engine, tools."""
        self._turn_model, self._turn_engine = self.model, self.engine
        if tracer is not None:
            self._turn_model = tracer.wrap_model(self.model, session_id=self.id)
            self._turn_engine = tracer.wrap_engine(self.engine, session_id=self.id)
        self.agent_models = agent_models
        """In an app, agents with a model of their own use it (False: ``model`` answers for every agent)."""
        self._models: dict[str, Model] = {agent.name: self._turn_model}
        """The model each agent of the session talks through (as the turn sees it: wrapped by the tracer)."""
        self._tools: dict[str, ToolRegistry] = {}
        self.team: AgentTeam | None = agent.team
        """The multi-agent app the session plays (the agent's team), or None for a single agent."""
        self._record = DurableRecord()
        """What the session keeps between turns: the last saved (or, without a store, played) turn's."""
        self._version = 0
        self._busy = False
        self.initial_variables: dict[str, Any] = dict(variables or {})
        """Variable values given at session start; they beat the declared defaults (first turn only)."""
        self.metadata: dict[str, Any] = dict(metadata or {})
        """Caller facts given at session start: expressions read them where no variable has the name."""
        self._run_cache = RunCache()
        self.ledger: ExecutionLedger | None = self.store if keeps_ledger(self.store) else None
        """Where executor attempts are recorded before dispatch: the store, when it keeps a ledger."""
        logic = agent.logic
        self._extractions = (
            Extractions(logic.extracted, logic.extraction.wait_seconds)
            if logic is not None and logic.extraction is not None and logic.extracted
            else None
        )
        """Background extractions outlive a turn (in a long-lived event loop, their values arrive later)."""
        self._router = Router(
            team=self.team,
            model_of=self._turn_model_of,
            tools_of=self._turn_tools,
            logic_of=self._logic_session,
            extractions=self._extractions,
        )
        """Plays each turn across the app's agents and their topics' DAGs."""

    def _turn_model_of(self, agent: Agent) -> Model:
        """``agent``'s model as the turn sees it: the session's for the agent it started with (and for
        every agent without ``agent_models``), else the agent's own in its app (``Agent.model_in_team``)."""
        if agent.name not in self._models:
            model = agent.model_in_team(self.model) if self.agent_models else self.model
            if model is self.model:
                self._models[agent.name] = self._turn_model
            else:
                wrapped = model
                if self.tracer is not None:
                    wrapped = self.tracer.wrap_model(model, session_id=self.id)
                self._models[agent.name] = wrapped
        return self._models[agent.name]

    def _turn_tools(self, agent: Agent, topic: str = "") -> ToolRegistry:
        """``agent``'s tools as the turn sees them on the DAG of ``topic`` (``""``: the agent's own) —
        without the setters and executors only the agent's other DAGs use — wrapped by the tracer, once."""
        key = f"{agent.name}\x00{topic}"
        if key not in self._tools:
            tools = agent.tools
            if agent.topic_dags:
                others = [dag for t, dag in agent.topic_dags.items() if t != topic]
                if topic:
                    others.append(agent.dag)
                mine = _slot_tools(agent.topic_dags[topic] if topic else agent.dag)
                hidden = set().union(*(_slot_tools(dag) for dag in others)) - mine
                tools = ToolRegistry([tool for tool in tools if tool.name not in hidden])
            if self.tracer is not None:
                tools = self.tracer.wrap_tools(tools, session_id=self.id)
            self._tools[key] = tools
        return self._tools[key]

    # --- what callers read ----------------------------------------------------------------------------

    @property
    def state(self) -> dict[str, Any]:
        """The spec's ``sm`` after the last completed turn (a deep copy)."""
        return copy_state_dict(self._record.sm)

    @property
    def status(self) -> str:
        """The engine's status (``in_progress``, ``complete``, ``escalated``), or how the conversation ended
        when it ended before its flow did (``ended``; ``escalated`` when it was handed over)."""
        return self._record.status

    @property
    def ended(self) -> bool:
        return self._record.ended

    @property
    def history(self) -> tuple[Message, ...]:
        return self._record.history

    @property
    def turns(self) -> int:
        return self._record.turns

    @property
    def active_agent(self) -> str:
        """The name of the agent the conversation is with (the root until a transfer)."""
        return self.agent.name

    @property
    def agent_states(self) -> dict[str, dict[str, Any]]:
        """Every agent's slot-filling state by name (deep copies): the active agent's and the parked ones';
        an agent the conversation has not reached yet has ``{}``. A single agent: just its own."""
        states: dict[str, dict[str, Any]] = {}
        if self.team is not None:
            states = {agent.name: {} for agent in self.team}
        states.update({name: copy_state_dict(p.sm) for name, p in self._record.parked.agents.items()})
        states[self.agent.name] = copy_state_dict(self._record.sm)
        return states

    @property
    def topic_states(self) -> dict[str, dict[str, Any]]:
        """The slot-filling state of each topic with its own DAG the active agent's conversation entered,
        by topic id (deep copies; ``state`` is the agent's own DAG's)."""
        return {topic: copy_state_dict(sm) for topic, sm in self._record.logic.topic_states.items()}

    @property
    def variables(self) -> dict[str, Any]:
        """The session's variables after the last completed turn (declared ones, linked ones resolved, and
        every other variable a rule or prompt program set); empty for an agent without logic."""
        if self.agent.logic is None:
            return {}
        record = self._record
        return variables_snapshot(self.agent.logic, record.logic, record.sm, self._logic_metadata())

    @overload
    def result(
        self, slots: None = None, *, partial: bool = False, agent: str | None = None
    ) -> SessionResult[BaseModel]: ...
    @overload
    def result(
        self, slots: type[SlotsT], *, partial: bool = False, agent: str | None = None
    ) -> SessionResult[SlotsT]: ...
    def result(
        self, slots: type[BaseModel] | None = None, *, partial: bool = False, agent: str | None = None
    ) -> SessionResult[Any]:
        """The session's outcome, typed: status, the confirmed slot values validated into ``slots`` (your
        pydantic model; default :meth:`Agent.slots_model`) and the task results. A session that has not
        completed raises :class:`~slotgraph.runtime.errors.SessionNotCompleteError` unless ``partial``;
        values that do not fit raise :class:`~slotgraph.runtime.errors.SlotsValidationError`. ``agent``: in a
        multi-agent app, whose slots (default: the agent the conversation is with). See
        :mod:`slotgraph.runtime.typed_results`."""
        from slotgraph.runtime.typed_results import session_result

        return session_result(self, slots, partial=partial, agent=agent)

    def _logic_metadata(self) -> dict[str, Any]:
        return {**self.metadata, "session_id": self.id, "channel": self.channel}

    def _logic_session(self, agent: Agent, record: LogicRecord) -> LogicSession:
        assert agent.logic is not None
        logic = LogicSession(
            agent.logic,
            record,
            metadata=self._logic_metadata(),
            initial_variables=self.initial_variables,
            cache=self._run_cache,
        )
        return logic

    # --- turns ----------------------------------------------------------------------------------------

    async def asend(self, text: str, *, on_event: EventSink | None = None) -> TurnResult:
        """Play one user turn. ``on_event`` is awaited with each event as it happens (for streaming)."""
        if not isinstance(text, str):
            raise SessionError(f"send() takes the user's text as a string, got {type(text).__name__}")
        return await self._turn(UserMessage(text), on_event)

    async def asend_event(self, name: str, *, event_data: Mapping[str, Any] | None = None) -> TurnResult:
        """Play a turn without user text (e.g. ``welcome``), optionally adding event data first."""
        if event_data:
            self.event_data.update(_checked_event_data(event_data))
        return await self._turn(UserMessage("", event=name))

    def send(self, text: str) -> TurnResult:
        """Synchronous :meth:`asend`."""
        return self._run_sync(self.asend(text))

    def send_event(self, name: str, *, event_data: Mapping[str, Any] | None = None) -> TurnResult:
        """Synchronous :meth:`asend_event`."""
        return self._run_sync(self.asend_event(name, event_data=event_data))

    def _run_sync(self, coro: Any) -> TurnResult:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            result: TurnResult = run_sync(coro)
            return result
        coro.close()
        raise SessionError(
            "session.send() was called inside a running event loop — use `await session.asend(text)` there"
        )

    async def _load(self) -> None:
        """Read the stored record (checked at this edge: :meth:`DurableRecord.from_stored`)."""
        if self._owned_store:
            return
        found = await self.store.load(self.id)
        if found is None:
            if self.must_exist:
                raise UnknownSessionError(
                    f"no session {self.id!r} in {self.store!r}",
                    fix="create the session first, or leave must_exist out to start one",
                )
            return
        stored, version = found
        record = DurableRecord.from_stored(self.id, stored, team=self.team)
        self._record, self._version = record, version
        if self.team is not None and record.active is not None:
            self.agent = self.team[record.active]

    async def _turn(self, user: UserMessage, on_event: EventSink | None = None) -> TurnResult:
        if not self._owned_store:
            async with self.store.lock(self.id):
                return await self._play(user, on_event)
        if self._busy:
            raise SessionError(f"session {self.id}: a turn is already running; await it before sending again")
        self._busy = True
        try:
            return await self._play(user, on_event)
        finally:
            self._busy = False

    async def _play(self, user: UserMessage, on_event: EventSink | None = None) -> TurnResult:
        """One turn, inside the tracer's turn scope when there is a tracer."""
        if self.tracer is None:
            return await self._play_turn(user, on_event)
        with self.tracer.turn(session_id=self.id, number=self._record.turns + 1, user=user) as scope:
            result = await self._play_turn(user, on_event)
            scope.finished(result)
            return result

    async def _play_turn(self, user: UserMessage, on_event: EventSink | None = None) -> TurnResult:
        """Load → route one turn → save; the caller holds the session's lock (or owns the only copy).

        The router (:mod:`~slotgraph.runtime.router`) plays the turn across the app's agents and their
        topics' DAGs; the record is saved only when it completed."""
        await self._load()
        previous = self._record
        if previous.ended:
            raise SessionError(f"session {self.id} has ended; start a new session to talk again")
        routed = await self._router.route(
            self._turn_context(on_event),
            user,
            agent=self.agent,
            sm=previous.sm,
            logic=previous.logic,
            parked=previous.parked,
            history=previous.history,
            executions=previous.executions,
        )
        record = _record_after(previous, routed, in_app=self.team is not None)
        if not self._owned_store:
            stored = record.to_stored(with_logic=routed.agent.logic is not None)
            self._version = await self.store.save(self.id, stored, self._version)
        self.agent, self._record = routed.agent, record
        return self._result_of(routed)

    def _result_of(self, routed: RoutedTurn) -> TurnResult:
        """What the caller gets of a turn just recorded: every part's events, steps and counts together."""
        return TurnResult(
            events=routed.events,
            model_calls=routed.model_calls,
            usage=routed.usage,
            refusals=routed.refusals,
            status=self.status,
            state=copy_state_dict(routed.sm),
            variables=self.variables,
            steps=routed.steps,
            agent=routed.agent.name,
            topic_states={t: copy_state_dict(s) for t, s in routed.logic.topic_states.items()},
        )

    def _turn_context(self, on_event: EventSink | None) -> TurnContext:
        """What every part of this turn shares; read from the session once, when the turn starts."""
        return TurnContext(
            session_id=self.id,
            now=self.clock(),
            engine=self._turn_engine,
            channel=self.channel,
            event_data=self.event_data or None,
            debug=self.debug,
            step_cap=self.step_cap,
            on_event=on_event,
            ledger=self.ledger,
        )


def _slot_tools(dag: CompiledDag) -> set[str]:
    """The tools that fill or fire this DAG's slots and tasks."""
    return set(dag.setter_slots) | set(dag.executor_tasks)


def _record_after(previous: DurableRecord, routed: RoutedTurn, *, in_app: bool) -> DurableRecord:
    """The record after ``routed``: where the conversation stands, the history bounded to the limit of the
    agent it ends with, one more turn; ``in_app``: a multi-agent app (the active agent is named)."""
    return DurableRecord(
        sm=routed.sm,
        history=tuple(bounded_history(routed.history, routed.agent.limits.history_messages)),
        ended=routed.ended,
        ending=ending_of(routed.part_events),
        turns=previous.turns + 1,
        executions=dict(routed.executions),
        logic=routed.logic,
        active=routed.agent.name if in_app else None,
        parked=routed.parked,
        extras=previous.extras,
    )
