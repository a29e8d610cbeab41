"""Hand-over and topic switching: one user turn played as parts, each one agent on one DAG.

A turn starts with the agent the conversation is with, on its own DAG — or on the DAG of its active topic
when that topic has one. Each part is a single-DAG :func:`~slotgraph.runtime.turn_loop.run_turn`, and a
part stops early in two cases, after which the router plays the rest of the turn as another part on the
same user message:

- **a move between DAGs** (``TurnOutput.topic_moved``): the agent's logic moved the conversation into, out
  of or between topics with a DAG of their own; the same agent, with the same logic session, goes on on the
  other DAG, whose state the logic record keeps per topic (docs/agents.md#a-topic-with-its-own-dag);
- **a hand-over** (``TurnOutput.handover``) in a multi-agent app: the leaving agent's state is parked, the
  target's (parked earlier, or new) is restored, and the target plays on
  (docs/agents.md#how-the-conversation-moves).

The part after a move or a hand-over gets the user's words as the gate text (``<user_context>``), not as a
user turn of its own. At most :data:`~slotgraph.runtime.agent_team.MAX_TRANSFERS_PER_TURN` parts follow
the first: one more move ends the turn with an :class:`~slotgraph.runtime.events.ErrorEvent`
(``topic_loop`` or ``transfer_loop``) and the conversation stays where it is.

The router persists nothing and decides nothing about slots: the session loads the record before it and
saves the :class:`RoutedTurn` after it; the engine and the agent logic decide where the conversation goes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from slotgraph.engine.routing import TRANSFER_KEY
from slotgraph.engine.state import TERMINAL_STATUSES
from slotgraph.logic import LogicRecord, LogicSession
from slotgraph.models.protocol import Message, Model, Usage, UserMessage
from slotgraph.names import GATE_USER_TEXT
from slotgraph.runtime.agent_team import MAX_TRANSFERS_PER_TURN, AgentTeam, ParkedAgent, ParkedAgents
from slotgraph.runtime.events import ErrorEvent, Event, TurnStep
from slotgraph.runtime.extraction import Extractions
from slotgraph.runtime.instructions import fill_current_date
from slotgraph.runtime.tools import ToolRegistry
from slotgraph.runtime.turn_loop import Handover, TurnContext, TurnInputs, TurnOutput, run_turn

if TYPE_CHECKING:
    from slotgraph.runtime.agent import Agent

__all__ = ["RoutedTurn", "Router"]


@dataclass(frozen=True, slots=True)
class RoutedTurn:
    """One user turn as the router played it: its parts, and where the conversation stands after them."""

    parts: tuple[TurnOutput, ...]
    """What each part produced, in order (at least one)."""
    router_events: tuple[Event, ...]
    """The router's own events, after the parts' (a loop of moves or transfers stopped)."""
    agent: Agent
    """The agent the conversation ends the turn with."""
    sm: Mapping[str, Any]
    """That agent's state on its own DAG (a topic's DAG's state is in ``logic.topic_states``)."""
    logic: LogicRecord
    """That agent's logic record (an agent without logic keeps the one it had)."""
    parked: ParkedAgents
    """Every other agent of the app the conversation has reached, with its state."""
    history: tuple[Message, ...]
    """The conversation after the last part (not yet bounded to the agent's history limit)."""
    executions: Mapping[str, int]
    """Per task, the attempts settled by the end of the turn."""

    @property
    def ended(self) -> bool:
        """Whether a part ended the session."""
        return any(part.ended for part in self.parts)

    @property
    def part_events(self) -> tuple[Event, ...]:
        """The parts' events, in order (without the router's own)."""
        return tuple(event for part in self.parts for event in part.events)

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event of the turn: the parts', then the router's."""
        return (*self.part_events, *self.router_events)

    @property
    def steps(self) -> tuple[TurnStep, ...]:
        """The steps of every part, numbered 1.. in order (a single part's already are)."""
        steps = [step for part in self.parts for step in part.steps]
        return tuple(
            step if step.index == n else dataclasses.replace(step, index=n) for n, step in enumerate(steps, 1)
        )

    @property
    def model_calls(self) -> int:
        return sum(part.model_calls for part in self.parts)

    @property
    def usage(self) -> Usage:
        if len(self.parts) == 1:
            return self.parts[0].usage
        return sum((part.usage for part in self.parts), Usage())

    @property
    def refusals(self) -> int:
        return sum(part.refusals for part in self.parts)


@dataclass(slots=True)
class _Position:
    """Where a turn in progress stands: the agent in play and its states, the parked agents, the shared
    conversation, and what the parts so far produced."""

    agent: Agent
    sm: Mapping[str, Any]
    logic_record: LogicRecord
    parked: dict[str, ParkedAgent]
    history: tuple[Message, ...]
    executions: Mapping[str, int]
    logic: LogicSession | None = None
    """The agent's logic session for this turn (kept across its moves between DAGs)."""
    parts: list[TurnOutput] = field(default_factory=list)
    router_events: list[Event] = field(default_factory=list)

    @property
    def dag_topic(self) -> str:
        """The active topic when it has its own DAG, else ``""`` (the agent's DAG plays)."""
        topics = self.logic.topics if self.logic is not None else None
        current = topics.current if topics is not None else ""
        return current if current in self.agent.topic_dags else ""

    @property
    def may_move_again(self) -> bool:
        """Whether one more part may follow (moves and transfers count together)."""
        return len(self.parts) <= MAX_TRANSFERS_PER_TURN


@dataclass(frozen=True, slots=True)
class Router:
    """Plays a session's turns across its agents and their DAGs.

    The session owns how an agent is equipped — its model, its tools on each DAG (wrapped by the tracer,
    cached), its logic session — and hands the router those lookups once; each turn then brings its
    :class:`~slotgraph.runtime.turn_loop.TurnContext` and the state it starts from."""

    team: AgentTeam | None
    """The multi-agent app the session plays, or None for a single agent (a hand-over is then ignored)."""
    model_of: Callable[[Agent], Model]
    tools_of: Callable[[Agent, str], ToolRegistry]
    """An agent's tools on the DAG of a topic (``""``: the agent's own DAG)."""
    logic_of: Callable[[Agent, LogicRecord], LogicSession]
    """A logic session for an agent with logic, resuming its record."""
    extractions: Extractions | None = None
    """The session's background extractions: the parts of the agent the turn starts with use them."""

    async def route(
        self,
        context: TurnContext,
        user: UserMessage,
        *,
        agent: Agent,
        sm: Mapping[str, Any],
        logic: LogicRecord,
        parked: ParkedAgents,
        history: tuple[Message, ...],
        executions: Mapping[str, int],
    ) -> RoutedTurn:
        """Play ``user``'s turn, starting with ``agent`` and its states, until a part neither moves to
        another DAG nor hands over (or the cap on moves stops the turn). Raises what a part raises."""
        at = _Position(agent, sm, logic, dict(parked.agents), history, executions)
        continued = False  # the same agent goes on with the turn on another topic's DAG
        handed = False  # this part follows a hand-over or a move to another DAG: it gets the user's words
        while True:
            extractions = self.extractions if at.agent is agent else None
            out = await self._play_part(context, user, at, extractions, continued=continued, handed=handed)
            continued = out.topic_moved and not out.ended
            if continued and at.logic is not None:
                if not at.may_move_again:
                    await _stop(context, at, _topic_loop(at.dag_topic))
                    break
                handed = True
                continue
            handover = out.handover
            if handover is None or out.ended or self.team is None:
                break
            if not at.may_move_again:
                await _stop(context, at, _transfer_loop(at.agent.name))
                break
            _hand_over(context, at, handover, self.team)
            handed = True
        return RoutedTurn(
            parts=tuple(at.parts),
            router_events=tuple(at.router_events),
            agent=at.agent,
            sm=at.sm,
            logic=at.logic_record,
            parked=ParkedAgents(at.parked),
            history=at.history,
            executions=at.executions,
        )

    async def _play_part(
        self,
        context: TurnContext,
        user: UserMessage,
        at: _Position,
        extractions: Extractions | None,
        *,
        continued: bool,
        handed: bool,
    ) -> TurnOutput:
        """One part: ``at.agent`` on the DAG its active topic plays; ``at`` moves on with what it produced."""
        agent = at.agent
        if not continued:
            at.logic = self.logic_of(agent, at.logic_record) if agent.logic is not None else None
        logic, topic = at.logic, at.dag_topic
        state: Mapping[str, Any] = at.sm
        if topic and logic is not None:
            state = logic.topic_states.get(topic, {})
        if handed:
            state = _with_user_context(state, user)
        out = await run_turn(
            TurnInputs(
                dag=agent.topic_dags[topic] if topic else agent.dag,
                registry=self.tools_of(agent, topic),
                model=self.model_of(agent),
                instruction=fill_current_date(agent.instruction, context.now.date()),
                sm=state,  # never mutated: the loop and the engine build new dicts
                history=at.history,
                user=user,
                context=context,
                logic=logic,
                agent_name=agent.name,
                team=self.team.names if self.team is not None else frozenset(),
                resumed=bool(at.parts),
                executions=at.executions,
                limits=agent.limits,
                extractions=extractions,
                topic_dags=frozenset(agent.topic_dags),
                dag_topic=topic,
                continued=continued,
            )
        )
        at.parts.append(out)
        at.history, at.executions = tuple(out.history), out.executions
        if topic and logic is not None:
            logic.topic_states[topic] = out.sm
        else:
            at.sm = out.sm
        at.logic_record = logic.record() if logic is not None else at.logic_record
        return out


def _hand_over(context: TurnContext, at: _Position, handover: Handover, team: AgentTeam) -> None:
    """Park the agent in play and bring in the target, with its parked state (or a fresh one)."""
    at.parked[at.agent.name] = ParkedAgent(_without_transfer(at.sm), at.logic_record)
    at.agent = team[handover.target]
    arriving = at.parked.pop(at.agent.name, ParkedAgent())
    at.sm = _arrival_state(context, at.agent, arriving.sm, handover)
    at.logic_record = arriving.logic


async def _stop(context: TurnContext, at: _Position, error: ErrorEvent) -> None:
    """End the turn with the router's ``error`` (emitted like the parts' events)."""
    at.router_events.append(error)
    if context.on_event is not None:
        await context.on_event(error)


def _topic_loop(where: str) -> ErrorEvent:
    return ErrorEvent(
        "topic_loop",
        f"the turn stopped after {MAX_TRANSFERS_PER_TURN} moves between topics with their own DAG; the "
        f"conversation stays in {where or 'the main conversation'} — check the topics' entry_when, "
        "return_when and rules for a loop",
    )


def _transfer_loop(agent_name: str) -> ErrorEvent:
    return ErrorEvent(
        "transfer_loop",
        f"the turn stopped after {MAX_TRANSFERS_PER_TURN} transfers between agents; the conversation stays "
        f"with {agent_name} — check the agents' routing (handoffs, routing tools) for a loop",
    )


def _arrival_state(
    context: TurnContext, agent: Agent, sm: Mapping[str, Any], handover: Handover
) -> dict[str, Any]:
    """The state ``agent`` starts its part of the turn with: when the tool that handed over is its DAG's
    ``bootstrap`` tool, the call's result is routed into it too (the gate value set by another agent).
    The user's words that caused the hand-over go with it (``_with_user_context``), to the DAG that
    plays — the agent's own, or the one of the topic it was in."""
    boot = agent.dag.bootstrap
    state = dict(sm)
    if boot is not None and boot.tool == handover.tool:
        engine = context.engine
        state = engine.begin_turn(agent.dag, state)
        state = engine.after_tool(agent.dag, state, handover.tool, handover.args, handover.result)
        state = _without_transfer(state)
    return state


def _with_user_context(sm: Mapping[str, Any], user: UserMessage) -> dict[str, Any]:
    """``sm`` keeping the user's words as the gate text: the DAG's first engine run this turn hands them to
    the model as ``<user_context>`` (after a hand-over, or a move to a topic with its own DAG). Not for
    an event turn, nor for a finished flow."""
    state = dict(sm)
    if user.text.strip() and user.event is None and state.get("status") not in TERMINAL_STATUSES:
        state[GATE_USER_TEXT] = user.text
    return state


def _without_transfer(sm: Mapping[str, Any]) -> dict[str, Any]:
    """``sm`` without the platform's ``_pending_transfer`` note (the runtime has already transferred)."""
    return {k: v for k, v in sm.items() if k != TRANSFER_KEY}
