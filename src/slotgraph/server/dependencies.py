"""Request-scoped access to what :func:`~slotgraph.server.app.create_app` built (kept on ``app.state``)."""

from __future__ import annotations

from fastapi import Request

from slotgraph.server.sessions import SessionService

__all__ = ["get_service"]


def get_service(request: Request) -> SessionService:
    service = request.app.state.service
    assert isinstance(service, SessionService)
    return service
