"""The web playground: one static page (inline CSS and JS, no external assets) served at ``/``.

The page talks to the same API as any client: it lists agents (``GET /v1/agents``), draws the chosen agent's
DAG as inline SVG from ``GET /v1/agents/{name}/graph`` (nodes coloured by the session's state), creates a
session and sends each message through the SSE endpoint, updating the transcript, the slot panel (filled,
pending, deferred), tasks fired, hidden tools and the current directive as the turn's events arrive.
"""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

__all__ = ["playground_html", "playground_router"]


def playground_html() -> str:
    """The page's HTML (a package resource)."""
    return resources.files("slotgraph.server").joinpath("playground/index.html").read_text(encoding="utf-8")


def playground_router() -> APIRouter:
    """A router serving the page; the HTML is read once, here."""
    page = playground_html()
    router = APIRouter(include_in_schema=False)

    @router.get("/", response_class=HTMLResponse)
    async def index() -> HTMLResponse:
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    return router
