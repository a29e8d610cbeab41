"""Health checks, open even when the API needs a key: ``/healthz`` (the process answers) and ``/readyz``
(agents are loaded and the store answers a read)."""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from slotgraph.server.dependencies import get_service
from slotgraph.server.problems import problem
from slotgraph.server.schemas import MAX_MESSAGE_CHARS, Health, Problem
from slotgraph.server.sessions import SessionService

__all__ = ["READINESS_PROBE_ID", "health_router"]

logger = logging.getLogger("slotgraph.server")


READINESS_PROBE_ID = "__slotgraph_readiness_probe__"

Service = Annotated[SessionService, Depends(get_service)]

_NOT_READY: dict[int | str, dict[str, Any]] = {
    503: {"model": Problem, "content": {"application/problem+json": {}}}
}


def health_router() -> APIRouter:
    """A new router with this module's endpoints."""
    router = APIRouter(tags=["health"])

    @router.get("/healthz", response_model=Health)
    async def healthz(request: Request) -> Health:
        """The process is alive; ``api_key_required`` tells a client whether ``/v1`` needs a key, and
        ``max_message_chars`` how long a message may be."""
        return Health(
            status="ok",
            api_key_required=bool(getattr(request.app.state, "api_key_required", False)),
            max_message_chars=MAX_MESSAGE_CHARS,
        )

    @router.get("/readyz", response_model=Health, responses=_NOT_READY, response_model_exclude_none=True)
    async def readyz(service: Service) -> Health | JSONResponse:
        """Agents are loaded and the store can be read."""
        if not service.agents:
            return problem(
                503, "not_ready", "Not ready", "no agents are loaded", fix="start the server with agents"
            )
        try:
            await service.store.load(READINESS_PROBE_ID)
        except Exception:
            logger.exception("readiness: the store did not answer")
            return problem(
                503,
                "not_ready",
                "Not ready",
                "the session store is not reachable",
                fix="check that the store is running and the --store URL is right",
            )
        return Health(status="ready", agents=len(service.agents))

    return router
