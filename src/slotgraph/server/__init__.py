"""Slotgraph's HTTP service and web playground (the ``server`` extra: FastAPI and uvicorn).

Public API::

    from slotgraph.server import create_app, load_hosted_agents

    app = create_app(load_hosted_agents(["examples/bella_notte"]))   # an ASGI app; run it with uvicorn

Endpoints (versioned under ``/v1``; see ``docs/service.md`` and ``/docs``): ``POST /v1/sessions``,
``POST /v1/sessions/{id}/messages``, ``POST /v1/sessions/{id}/messages:stream`` (SSE),
``GET /v1/sessions/{id}``, ``GET /v1/agents``, ``GET /v1/agents/{name}/graph``, ``GET /healthz``,
``GET /readyz``, the playground at ``/``.

Modules: :mod:`~slotgraph.server.app` (wiring), :mod:`~slotgraph.server.sessions` (the HTTP-free service),
:mod:`~slotgraph.server.hosting` (loading agents), :mod:`~slotgraph.server.views` (what the wire shows),
:mod:`~slotgraph.server.graph_json` (the DAG picture's data), :mod:`~slotgraph.server.problems` (errors →
problem+json, the only place statuses are chosen), :mod:`~slotgraph.server.middleware` (API key, body
limit), :mod:`~slotgraph.server.factory` (worker processes).
"""

from __future__ import annotations

try:
    import fastapi  # noqa: F401
    import uvicorn  # noqa: F401
except ImportError as err:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "the Slotgraph server needs FastAPI and uvicorn — install them with: pip install 'slotgraph[server]'"
    ) from err

from slotgraph.server.app import create_app
from slotgraph.server.errors import (
    ServerConfigError,
    ServerError,
    SessionBusyError,
    SessionConflictError,
    SessionEndedError,
    SessionNotFoundError,
    UnknownAgentError,
)
from slotgraph.server.hosting import HostedAgent, hosted, load_hosted_agents, resolve_server_model
from slotgraph.server.sessions import SessionService
from slotgraph.server.settings import ServerSettings, WorkerConfig
from slotgraph.server.store_factory import open_session_store

__all__ = [
    "HostedAgent",
    "ServerConfigError",
    "ServerError",
    "ServerSettings",
    "SessionBusyError",
    "SessionConflictError",
    "SessionEndedError",
    "SessionNotFoundError",
    "SessionService",
    "UnknownAgentError",
    "WorkerConfig",
    "create_app",
    "hosted",
    "load_hosted_agents",
    "open_session_store",
    "resolve_server_model",
]
