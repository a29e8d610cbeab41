"""The web playground: a static page at ``/`` with its stylesheet, scripts and icon (no external assets).

The files live in the package (``slotgraph/server/playground/``): ``index.html``, ``playground.css``,
``playground.js``, ``runs.html``/``runs.js`` (the workflow runs page) and ``favicon.svg``, plus the graph
layout library the page draws the DAG with: ``elk.bundled.js``, `ELK <https://eclipse.dev/elk/>`_'s layered
layout compiled to JavaScript (the npm package ``elkjs`` 0.12.1, ``lib/elk.bundled.js`` byte for byte,
:data:`ELK_SHA256`), under the Eclipse Public License 2.0 (``elkjs.LICENSE.md`` beside it). To update it:
``npm pack elkjs@VERSION``, copy ``lib/elk.bundled.js`` and ``LICENSE.md``, and update the version and digest
here.

They are read once, when the router is built, and served from ``/static/playground/NAME`` (the icon also at
``/favicon.svg`` and ``/favicon.ico``, which browsers ask for by themselves) with an ``ETag`` (a browser
revalidates and gets ``304`` while the file is unchanged) and gzip-compressed for browsers that accept it.
A new page part is a new file in that folder: every file there is served.

The page talks to the same API as any client: it asks for the API key first when the server needs one (kept
in the tab's ``sessionStorage``), lists agents (``GET /v1/agents``), draws the chosen agent's DAG as inline
SVG from ``GET /v1/agents/{name}/graph`` (laid out by ELK, nodes coloured by the session's state), creates a
session and sends each message through the SSE endpoint, updating the transcript, the slot panel, the tasks
fired, the tools, the current directive and the turn's trace (its steps with their timings, its events) as
they arrive. The session id is kept in the page's address (``?agent=NAME&session=ID``), so a reload resumes
the conversation from ``GET /v1/sessions/{id}``.
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from importlib import resources

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

__all__ = ["ASSETS_PREFIX", "ELK_SHA256", "playground_assets", "playground_html", "playground_router"]

ASSETS_PREFIX = "/static/playground"
ELK_SHA256 = "b1032b7cfd2a57c54c6f0e8369d7665e19a579954f7cd20a6dae28f1912ea0d7"
"""The digest of the vendored ``elk.bundled.js`` (elkjs 0.12.1, unmodified)."""

_MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".md": "text/markdown; charset=utf-8",
}
_COMPRESS_FROM = 1024
"""Files from this size on are also kept gzip-compressed."""


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


@dataclass(frozen=True, slots=True)
class _Asset:
    content: bytes
    media_type: str
    etag: str
    compressed: bytes | None

    @classmethod
    def of(cls, content: bytes, media_type: str) -> _Asset:
        etag = '"' + hashlib.sha256(content).hexdigest()[:32] + '"'
        compressed = gzip.compress(content, mtime=0) if len(content) >= _COMPRESS_FROM else None
        return cls(content, media_type, etag, compressed)

    def response(self, request: Request, cache_control: str) -> Response:
        headers = {"Cache-Control": cache_control, "ETag": self.etag, "Vary": "Accept-Encoding"}
        if self.etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        if self.compressed is not None and "gzip" in request.headers.get("accept-encoding", ""):
            headers["Content-Encoding"] = "gzip"
            return Response(self.compressed, media_type=self.media_type, headers=headers)
        return Response(self.content, media_type=self.media_type, headers=headers)


def playground_router() -> APIRouter:
    """A router serving the page and its assets; the files are read once, here."""
    assets = {name: _Asset.of(content, kind) for name, (content, kind) in playground_assets().items()}
    page, icon = assets["index.html"], assets["favicon.svg"]
    router = APIRouter(include_in_schema=False)

    @router.get("/", response_class=HTMLResponse)
    async def index(request: Request) -> Response:
        return page.response(request, "no-cache")

    @router.get("/favicon.svg")
    @router.get("/favicon.ico")
    async def favicon(request: Request) -> Response:
        return icon.response(request, "max-age=86400")

    @router.get(ASSETS_PREFIX + "/{name}")
    async def asset(name: str, request: Request) -> Response:
        found = assets.get(name)
        if found is None:
            raise HTTPException(status_code=404, detail=f"no playground asset {name!r}")
        return found.response(request, "no-cache")

    return router
