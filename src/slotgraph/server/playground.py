"""The web playground: a static page at ``/`` with its stylesheet, script and icon (no external assets).

The files live in the package (``slotgraph/server/playground/``): ``index.html``, ``playground.css``,
``playground.js`` and ``favicon.svg``. They are read once, when the router is built, and served from
``/static/playground/NAME`` (the icon also at ``/favicon.svg`` and ``/favicon.ico``, which browsers ask for
by themselves). A new page part is a new file in that folder: every file there is served.

The page talks to the same API as any client: it asks for the API key first when the server needs one (kept
in the tab's ``sessionStorage``), lists agents (``GET /v1/agents``), draws the chosen agent's DAG as inline
SVG from ``GET /v1/agents/{name}/graph`` (nodes coloured by the session's state), creates a session and sends
each message through the SSE endpoint, updating the transcript, the slot panel, the tasks fired, the hidden
tools, the current directive and the turn's events as they arrive.
"""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter, HTTPException
from fastapi.responses import HTMLResponse, Response

__all__ = ["ASSETS_PREFIX", "playground_assets", "playground_html", "playground_router"]

ASSETS_PREFIX = "/static/playground"
_MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}


def playground_assets() -> dict[str, tuple[bytes, str]]:
    """Every file of the page: ``{name: (content, media type)}`` (package resources)."""
    folder = resources.files("slotgraph.server").joinpath("playground")
    assets: dict[str, tuple[bytes, str]] = {}
    for item in folder.iterdir():
        suffix = "." + item.name.rpartition(".")[2]
        if item.is_file() and suffix in _MEDIA_TYPES:
            assets[item.name] = (item.read_bytes(), _MEDIA_TYPES[suffix])
    return assets


def playground_html() -> str:
    """The page's HTML (a package resource)."""
    return playground_assets()["index.html"][0].decode("utf-8")


def playground_router() -> APIRouter:
    """A router serving the page and its assets; the files are read once, here."""
    assets = playground_assets()
    page, _ = assets["index.html"]
    icon, icon_type = assets["favicon.svg"]
    router = APIRouter(include_in_schema=False)
    no_cache = {"Cache-Control": "no-cache"}

    @router.get("/", response_class=HTMLResponse)
    async def index() -> HTMLResponse:
        return HTMLResponse(page, headers=no_cache)

    @router.get("/favicon.svg")
    @router.get("/favicon.ico")
    async def favicon() -> Response:
        return Response(icon, media_type=icon_type, headers={"Cache-Control": "max-age=86400"})

    @router.get(ASSETS_PREFIX + "/{name}")
    async def asset(name: str) -> Response:
        found = assets.get(name)
        if found is None:
            raise HTTPException(status_code=404, detail=f"no playground asset {name!r}")
        return Response(found[0], media_type=found[1], headers=no_cache)

    return router
