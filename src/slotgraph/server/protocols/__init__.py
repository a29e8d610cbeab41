"""Hosted agents over the protocols clients already speak: A2A, MCP and OpenAI chat completions.

:func:`install_protocols` adds them to the app :func:`~slotgraph.server.create_app` builds:

* A2A (:mod:`.a2a`, docs/a2a.md): agent cards and JSON-RPC under ``/a2a/NAME`` — needs ``a2a-sdk``
  (``pip install 'slotgraph[server,a2a]'``);
* MCP (:mod:`.mcp_server`, docs/mcp-server.md): each agent as MCP tools over streamable HTTP at
  ``/mcp/NAME`` — needs the ``mcp`` SDK (``pip install 'slotgraph[server,mcp]'``); ``slotgraph mcp AGENT``
  serves the same tools over stdio;
* chat completions (:mod:`.chat_completions`, docs/chat-completions.md): ``POST /v1/chat/completions`` and
  ``GET /v1/models`` — no extra package.

A protocol whose SDK is not installed answers ``501 protocol_unavailable`` with the install command. All of
them reach sessions through :class:`~.conversations.Conversations` only.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from slotgraph.server.problems import problem
from slotgraph.server.protocols.conversations import Conversations
from slotgraph.server.sessions import SessionService

__all__ = ["Conversations", "install_protocols"]

Running = Callable[[], AbstractAsyncContextManager[None]]
"""What the app's lifespan enters while it serves (the MCP session managers)."""


def _unavailable(protocol: str, extra: str, package: str) -> Callable[[Request], Response]:
    async def endpoint(request: Request) -> Response:
        return problem(
            501,
            "protocol_unavailable",
            f"{protocol} is not available",
            f"this server speaks {protocol} only with the {package!r} package, which is not installed",
            fix=f"install it: pip install 'slotgraph[server,{extra}]', then restart the server",
        )

    return endpoint  # type: ignore[return-value]


def _a2a(conversations: Conversations, api_key_required: bool) -> list[BaseRoute]:
    try:
        from slotgraph.server.protocols.a2a import a2a_routes
    except ImportError:
        missing = _unavailable("A2A", "a2a", "a2a-sdk")
        return [
            Route("/a2a/{path:path}", missing, methods=["GET", "POST"]),
            Route("/.well-known/agent-card.json", missing, methods=["GET"]),
        ]
    return a2a_routes(conversations, api_key_required=api_key_required)


def install_protocols(app: FastAPI, service: SessionService, *, api_key_required: bool) -> Running:
    """Add the protocol endpoints for ``service``'s agents to ``app``; what its lifespan must enter."""
    conversations = Conversations(service)
    from slotgraph.server.protocols.chat_completions import chat_completions_router

    app.include_router(chat_completions_router(conversations))
    app.router.routes.extend(_a2a(conversations, api_key_required))
    mounts: list[Running] = []
    try:
        from slotgraph.server.protocols.mcp_server import mcp_http_routes
    except ImportError:
        app.router.routes.append(
            Route("/mcp/{path:path}", _unavailable("MCP", "mcp", "mcp"), methods=["GET", "POST", "DELETE"])
        )
    else:
        for routes, running in mcp_http_routes(conversations):
            app.router.routes.extend(routes)
            mounts.append(running)

    @asynccontextmanager
    async def run() -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for running in mounts:
                await stack.enter_async_context(running())
            yield

    return run
