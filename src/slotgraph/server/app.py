"""Build the ASGI app: :func:`create_app` wires the routers, the guards and the error handlers.

Nothing lives at module level: every app owns its session service (agents, store, in-process busy set),
so two apps in one process never share anything. The store is closed when the app shuts down (if it has an
``aclose()`` or ``close()``).
"""

from __future__ import annotations

import inspect
import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from fastapi import FastAPI

from slotgraph.runtime import SessionStore
from slotgraph.runtime.session import Clock
from slotgraph.server.api_docs import install_api_docs
from slotgraph.server.hosting import HostedAgent, check_unique
from slotgraph.server.middleware import ApiKeyMiddleware, BodyLimitMiddleware
from slotgraph.server.playground import playground_router
from slotgraph.server.problems import install_problem_handlers
from slotgraph.server.protocols import install_protocols
from slotgraph.server.routes_agents import agents_router
from slotgraph.server.routes_health import health_router
from slotgraph.server.routes_runs import runs_router
from slotgraph.server.routes_sessions import sessions_router
from slotgraph.server.runs import RunService
from slotgraph.server.sessions import SessionService
from slotgraph.server.settings import ServerSettings
from slotgraph.server.store_factory import DEFAULT_STORE_URL, open_session_store
from slotgraph.stores.runs import InMemoryRunStore

__all__ = ["create_app"]

SHUTDOWN_GRACE = 30.0
"""Seconds a stopping server waits for turns still playing (their clients may have gone) before closing."""

_DESCRIPTION = """Slotgraph hosts LLM agents whose control flow is deterministic.

Create a session with an agent, send it messages, read its state. Errors are `application/problem+json`
with a stable `code`. The web playground is at `/`."""


async def _close(store: SessionStore) -> None:
    for name in ("aclose", "close"):
        method = getattr(store, name, None)
        if callable(method):
            outcome = method()
            if inspect.isawaitable(outcome):
                await outcome
            return


def create_app(
    agents: Sequence[HostedAgent],
    *,
    store: SessionStore | None = None,
    settings: ServerSettings | None = None,
    clock: Clock | None = None,
    seed: int | None = None,
    runs: RunService | None = None,
) -> FastAPI:
    """The Slotgraph HTTP service for ``agents`` (see :func:`~slotgraph.server.hosting.load_hosted_agents`).

    ``store`` defaults to the embedded SQLite store (``.slotgraph/sessions.db`` in the working
    directory); ``clock`` and ``seed`` make sessions reproducible (tests). ``runs`` hosts workflows
    (``/v1/runs``, see :mod:`slotgraph.server.routes_runs`); by default there are none.
    """
    check_unique(agents)
    config = settings or ServerSettings()
    service = SessionService(
        agents, store if store is not None else open_session_store(DEFAULT_STORE_URL), clock=clock, seed=seed
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        try:
            async with protocols():  # the MCP endpoints' session managers
                yield
        finally:
            await service.wait_running(SHUTDOWN_GRACE)  # turns whose clients left still save
            await _close(service.store)
            await run_service.close()

    app = FastAPI(
        title="Slotgraph",
        version="1",
        description=_DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # served by install_api_docs from packaged assets (works offline)
        redoc_url=None,
    )
    app.state.service = service
    run_service = runs if runs is not None else RunService([], InMemoryRunStore())
    app.state.runs = run_service
    app.state.api_key_required = bool(config.api_key)
    install_problem_handlers(app)
    install_api_docs(app)
    app.include_router(health_router())
    app.include_router(agents_router())
    app.include_router(sessions_router())
    app.include_router(playground_router())
    app.include_router(runs_router())
    protocols = install_protocols(app, service, api_key_required=bool(config.api_key))
    app.add_middleware(BodyLimitMiddleware, max_bytes=config.max_body_bytes)
    if config.api_key:
        app.add_middleware(ApiKeyMiddleware, api_key=config.api_key)
    if _tracing(agents):
        from slotgraph.tracing.propagation import TraceContextMiddleware

        app.add_middleware(TraceContextMiddleware)  # outermost: turn spans join the caller's trace
    return app


def _tracing(agents: Sequence[HostedAgent]) -> bool:
    """Whether sessions emit spans (``SLOTGRAPH_OTEL=1`` or an agent's ``tracing: true``)."""
    from slotgraph.tracing.settings import tracing_requested

    return tracing_requested(os.environ) or any(hosted.agent.tracing for hosted in agents)
