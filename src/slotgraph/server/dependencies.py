"""Request-scoped access to what :func:`~slotgraph.server.app.create_app` built (kept on ``app.state``).

The dependencies are ``async def``: FastAPI runs a plain ``def`` dependency in its thread pool, a thread
hop per request for an attribute read.
"""

from __future__ import annotations

from fastapi import Request

from slotgraph.server.sessions import SessionService

__all__ = ["get_service"]


async def get_service(request: Request) -> SessionService:
    service = request.app.state.service
    assert isinstance(service, SessionService)
    return service
