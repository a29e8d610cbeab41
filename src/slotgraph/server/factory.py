"""The app factory uvicorn imports in each worker process (``--workers N``).

``uvicorn.run("slotgraph.server.factory:app_from_env", factory=True, workers=N)``: every worker reads the
same :class:`~slotgraph.server.settings.WorkerConfig` from the environment, loads the agents and opens the
shared store itself.
"""

from __future__ import annotations

import logging
import os

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from slotgraph.server.app import create_app
from slotgraph.server.errors import ServerConfigError
from slotgraph.server.hosting import load_hosted_agents
from slotgraph.server.problems import problem
from slotgraph.server.runs import run_service
from slotgraph.server.settings import API_KEY_ENV, ServerSettings, WorkerConfig, configure_logging
from slotgraph.server.store_factory import open_session_store

__all__ = ["APP_FACTORY", "EDITING_APP_FACTORY", "app_for_editing", "app_from_config", "app_from_env"]

APP_FACTORY = "slotgraph.server.factory:app_from_env"
EDITING_APP_FACTORY = "slotgraph.server.factory:app_for_editing"
"""What ``serve --reload`` runs: the app, or while an edit has broken an agent, an app that says so."""

logger = logging.getLogger("slotgraph.server")


def app_from_config(config: WorkerConfig, api_key: str | None = None) -> FastAPI:
    """Build the app a worker config describes."""
    hosts_agents = bool(config.agent_paths) or not config.workflow_paths
    agents = load_hosted_agents(config.agent_paths, model=config.model) if hosts_agents else []
    settings = ServerSettings(
        api_key=api_key or None, max_body_bytes=config.max_body_bytes, allowed_hosts=config.allowed_hosts
    )
    runs = run_service(
        config.workflow_paths,
        store_url=config.store_url,
        model=config.model,
        base_url=config.base_url,
        queue_url=config.queue_url,
    )
    return create_app(agents, store=open_session_store(config.store_url), settings=settings, runs=runs)


def app_from_env() -> FastAPI:
    """Build the app from ``SLOTGRAPH_SERVER_CONFIG`` (and ``SLOTGRAPH_API_KEY``), in a worker process of
    ``slotgraph serve``: its log is set up like the command's (:func:`configure_logging`: plain, redacted)."""
    configure_logging()
    return app_from_config(WorkerConfig.from_env(), os.environ.get(API_KEY_ENV))


def broken_agents_app(error: ServerConfigError) -> FastAPI:
    """An app answering every request with ``503 agent_config_broken`` (the message and fix of ``error``)."""
    app = FastAPI(title="Slotgraph", docs_url=None, redoc_url=None, openapi_url=None)
    fix = (error.fix + "; " if error.fix else "") + "save the fixed file: the server reloads by itself"

    @app.api_route("/{path:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"], include_in_schema=False)
    async def broken(path: str) -> JSONResponse:
        return problem(503, "agent_config_broken", "An agent's config is broken", error.message, fix=fix)

    return app


def app_for_editing() -> FastAPI:
    """:func:`app_from_env`, except that an agent that does not load (an edit in progress) gives an app
    that explains it (503) instead of a traceback and a server that stops answering."""
    try:
        return app_from_env()
    except ServerConfigError as err:
        logger.error("not serving: %s — fix: %s", err.message, err.fix or "correct the agent and save")
        return broken_agents_app(err)
