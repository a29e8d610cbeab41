"""The router on its own: the parts of one turn share the turn's context, a hand-over parks the leaving
agent, the router's own events come after the parts', and the steps of all parts are numbered together."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from slotgraph.logic import LogicRecord, LogicSession
from slotgraph.models.protocol import Model, UserMessage
from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep, call, turn_loop
from slotgraph.runtime import router as router_module
from slotgraph.runtime.agent_team import ParkedAgents
from slotgraph.runtime.engine_port import DagEngine
from slotgraph.runtime.events import AgentTransferEvent, ErrorEvent
from slotgraph.runtime.router import RoutedTurn, Router
from slotgraph.runtime.tools import ToolRegistry
from slotgraph.runtime.turn_loop import TurnContext, TurnInputs, TurnOutput

from .test_agent_team import _app
from .toy_agent import clock


def _router(root: Agent, model: Model) -> Router:
    def no_logic(agent: Agent, record: LogicRecord) -> LogicSession:
        raise AssertionError(f"{agent.name} has no agent logic")

    def tools_of(agent: Agent, topic: str) -> ToolRegistry:
        return agent.tools

    return Router(team=root.team, model_of=lambda agent: model, tools_of=tools_of, logic_of=no_logic)


def _context(root: Agent, **more: Any) -> TurnContext:
    assert root.team is not None
    return TurnContext(session_id="s", now=clock(), engine=DagEngine(seed=0), **more)


def _route(root: Agent, model: Model, context: TurnContext, text: str) -> RoutedTurn:
    return asyncio.run(
        _router(root, model).route(
            context,
            UserMessage(text),
            agent=root,
            sm={},
            logic=LogicRecord(),
            parked=ParkedAgents(),
            history=(),
            executions={},
        )
    )


def test_every_part_of_a_turn_shares_the_turns_context(monkeypatch: pytest.MonkeyPatch) -> None:
    played: list[TurnInputs] = []
    run_turn = turn_loop.run_turn

    async def recording(inputs: TurnInputs) -> TurnOutput:
        played.append(inputs)
        return await run_turn(inputs)

    monkeypatch.setattr(router_module, "run_turn", recording)
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("transfer_to_agent", agent="counter"),)),
            ScriptedStep(tool_calls=(call("set_count", count=3),)),
            ScriptedStep(text="Three it is."),
        ]
    )
    root = _app(model)
    context = _context(root)
    routed = _route(root, model, context, "three please")
    assert [inputs.agent_name for inputs in played] == ["host", "counter"]
    assert all(inputs.context is context for inputs in played)
    assert [inputs.resumed for inputs in played] == [False, True]
    assert routed.agent.name == "counter" and routed.sm["filled"] == {"count": 3}
    assert set(routed.parked.agents) == {"host"}  # the leaving agent is parked, the target is not
    assert [step.index for step in routed.steps] == list(range(1, len(routed.steps) + 1))
    assert len(routed.parts) == 2 and routed.model_calls == 3
    model.assert_complete()


def test_the_routers_own_events_come_after_the_parts() -> None:
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("transfer_to_agent", agent=target),))
            for target in ("counter", "namer", "counter", "namer")
        ]
    )
    root = _app(model)
    streamed: list[Any] = []

    async def sink(event: Any) -> None:
        streamed.append(event)

    context = _context(root, on_event=sink)
    routed = _route(root, model, context, "go")
    codes = [error.code for error in routed.router_events if isinstance(error, ErrorEvent)]
    assert codes == ["transfer_loop"]
    assert routed.events == (*routed.part_events, *routed.router_events)
    assert not any(isinstance(event, ErrorEvent) for event in routed.part_events)
    assert streamed[-1] is routed.router_events[-1]  # streamed as it happened, like the parts' events
    assert len([e for e in routed.events if isinstance(e, AgentTransferEvent)]) == 4
    assert routed.agent.name == "counter"  # the fourth transfer was not followed
    model.assert_complete()
