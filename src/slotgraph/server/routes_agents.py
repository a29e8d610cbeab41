"""``/v1/agents``: the hosted agents, and each one's DAG as a graph (nodes, edges, layout, Mermaid text)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from slotgraph.server.dependencies import get_service
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
    async def agent_graph(name: str, service: Service) -> GraphView:
        """The agent's DAG: nodes (``slot:NAME``/``task:NAME`` with kind, rank, row), edges, Mermaid text."""
        hosted = service.agent(name)
        graph = dag_graph(hosted.agent.dag)
        return GraphView(
            agent=hosted.name, nodes=graph["nodes"], edges=graph["edges"], mermaid=hosted.mermaid
        )

    return router
