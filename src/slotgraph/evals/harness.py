"""What every way of playing a case shares: the model a spec names, the session a scenario opens, the clock,
and what the conversation leaves to be checked.

Scripted conversations (:mod:`slotgraph.evals.runner`) and simulated users (:mod:`slotgraph.evals.simulation`)
both go through these, so a scenario's ``event_data``, ``channel``, ``seed``, ``variables`` and ``metadata``
reach the session the same way whichever plays it.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable

from slotgraph.evals.expectations import ConversationFacts
from slotgraph.evals.format import Scenario
from slotgraph.evals.replay import AppRoutes, ReplayModel
from slotgraph.evals.results import TurnRecord
from slotgraph.evals.turn_models import TurnScriptModel
from slotgraph.runtime import Agent, Model, Session, resolve_model

__all__ = ["Clock", "build_model", "conversation_facts", "fixed_clock", "open_session"]

Clock = Callable[[], datetime.datetime]


def fixed_clock(now: datetime.datetime) -> Clock:
    """A clock that always says ``now``."""

    def clock() -> datetime.datetime:
        return now

    return clock


def build_model(spec: str, clock: Clock | None, routes: AppRoutes | None = None) -> Model:
    """The model a spec names: ``scripted``, ``replay`` (routing through ``routes`` in an app), ``offline``
    or anything the runtime resolves."""
    if spec == "scripted":
        return TurnScriptModel()
    if spec == "replay":
        return ReplayModel(routes)
    if spec == "offline":
        from slotgraph.models.offline import OfflineModel

        return OfflineModel(clock=clock)
    return resolve_model(spec)


def open_session(
    agent: Agent, scenario: Scenario, model: Model, clock: Clock | None, *, agent_models: bool = True
) -> Session:
    """A new session of ``agent`` as ``scenario`` sets it up, answered by ``model`` on ``clock``.

    ``agent_models=False`` makes ``model`` answer for every agent of an app, even those that name their own
    (a script, a replay or a ``--model`` plays the whole conversation).
    """
    return agent.session(
        event_data=scenario.event_data,
        channel=scenario.channel,
        clock=clock,
        seed=scenario.seed,
        model=model,
        variables=scenario.variables or None,
        metadata=scenario.metadata or None,
        agent_models=agent_models,
    )


def conversation_facts(agent: Agent, session: Session, records: Iterable[TurnRecord]) -> ConversationFacts:
    """What the whole conversation did, for the scenario's ``expect``."""
    records = tuple(records)
    return ConversationFacts(
        events=tuple(event for record in records for event in record.events),
        state=session.state,
        model_calls=sum(record.model_calls for record in records),
        ended=session.ended,
        task_tools={task.name: task.tool for task in agent.dag.tasks},
    )
