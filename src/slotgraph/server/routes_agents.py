"""``/v1/agents``: the hosted agents, and each one's DAG as a graph (nodes, edges, layout, Mermaid text)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from slotgraph.server.dependencies import get_service
from slotgraph.server.errors import UnknownAgentError
from slotgraph.server.graph_json import dag_graph
from slotgraph.server.schemas import AgentList, AgentSummary, GraphView, Problem
from slotgraph.server.sessions import SessionService

__all__ = ["agents_router"]


Service = Annotated[SessionService, Depends(get_service)]

_PROBLEMS: dict[int | str, dict[str, Any]] = {
    status: {"model": Problem, "content": {"application/problem+json": {}}} for status in (401, 404, 500)
}


def agents_router() -> APIRouter:
    """A new router with this module's endpoints."""
    router = APIRouter(prefix="/v1/agents", tags=["agents"])

    @router.get("", response_model=AgentList, responses=_PROBLEMS)
    async def list_agents(service: Service) -> AgentList:
        """Every hosted agent with its description and the size of its DAG."""
        agents = [
            AgentSummary(
                name=hosted.name,
                description=hosted.description,
                slots=len(hosted.agent.dag.slots),
                tasks=len(hosted.agent.dag.tasks),
                tools=sorted(hosted.agent.tools.names),
            )
            for hosted in sorted(service.agents.values(), key=lambda h: h.name)
        ]
        return AgentList(agents=agents)

    @router.get("/{name}/graph", response_model=GraphView, responses=_PROBLEMS)
    async def agent_graph(
        name: str,
        service: Service,
        agent: Annotated[
            str | None,
            Query(description="A multi-agent app: which of its agents' DAG (default: the root's)."),
        ] = None,
        topic: Annotated[
            str | None, Query(description="A topic of that agent with its own DAG: that DAG instead.")
        ] = None,
    ) -> GraphView:
        """The agent's DAG: nodes (``slot:NAME``/``task:NAME`` with kind, rank, row), edges, Mermaid text;
        for a multi-agent app the root's, or the DAG of the agent ``?agent=`` names; ``?topic=`` the own
        DAG of one of its topics."""
        hosted = service.agent(name)
        team = hosted.agent.team
        member = hosted.agent
        if agent is not None and agent != hosted.agent.name:
            found = team.get(agent) if team is not None else None
            if found is None:
                known = ", ".join(sorted(team.names)) if team is not None else hosted.agent.name
                raise UnknownAgentError(
                    f"{hosted.name!r} has no agent named {agent!r}", fix=f"use one of: {known}"
                )
            member = found
        dag = member.dag
        mermaid = hosted.mermaid if member is hosted.agent else hosted.mermaids.get(member.name, "")
        if topic is not None:
            if topic not in member.topic_dags:
                known = ", ".join(sorted(member.topic_dags)) or "none"
                raise UnknownAgentError(
                    f"{member.name!r} has no topic {topic!r} with its own DAG",
                    fix=f"use one of its topics with a DAG: {known}",
                )
            dag = member.topic_dags[topic]
            mermaid = hosted.topic_mermaids.get(member.name, {}).get(topic, "")
        graph = dag_graph(dag)
        return GraphView(
            agent=hosted.name,
            nodes=graph["nodes"],
            edges=graph["edges"],
            mermaid=mermaid,
            app_agent=member.name if team is not None else None,
            topic=topic,
        )

    return router
