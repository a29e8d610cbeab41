"""The agent port of workflows, played by the Slotgraph runtime: a workflow's ``agent`` stage runs here.

:mod:`slotgraph.workflow` sits below the runtime and cannot import it; the edges that run workflows
(``slotgraph run``, the service, queue workers) hand a :class:`RuntimeAgentPort` to the runner instead.

A child run is one session of the agent: the stage's ``slots`` are its ``event_data`` (so slots sourced
from ``event`` are prefilled, exactly as a host would prefill them), then one turn — the stage's
``utterance``, or a ``start`` event when there is none. The outcome is the session's filled slots, its final
text and whether it ended.
"""

from __future__ import annotations

from typing import Any

from slotgraph.runtime import Agent
from slotgraph.workflow.ports import AgentOutcome, AgentRequest

__all__ = ["RuntimeAgentPort"]


class RuntimeAgentPort:
    """Runs agent stages with :class:`slotgraph.Agent`. ``model``: a spec overriding each agent's own."""

    def __init__(self, *, model: str | None = None) -> None:
        self.model = model
        self._agents: dict[tuple[str, str | None], Agent] = {}

    def _agent(self, request: AgentRequest) -> Agent:
        spec = request.model or self.model
        key = (str(request.agent), spec)
        if key not in self._agents:
            self._agents[key] = Agent.load(request.agent, model=spec)
        return self._agents[key]

    async def run_agent(self, request: AgentRequest) -> AgentOutcome:
        agent = self._agent(request)
        session = agent.session(
            session_id=f"{request.run_id}:{request.stage_id}", event_data=dict(request.slots)
        )
        if request.utterance:
            result = await session.asend(request.utterance)
        else:
            result = await session.asend_event("start")
        state: dict[str, Any] = dict(session.state)
        filled = dict(state.get("filled") or {})
        return AgentOutcome(
            filled=filled, text=result.text, ended=session.ended, detail={"status": result.status}
        )
