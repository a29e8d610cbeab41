"""The interactive OpenAPI page (``/docs``, Swagger UI) served entirely by the app.

FastAPI's default pages load their JavaScript and CSS from a CDN, so without internet ``/docs`` is blank.
Here the assets come from the ``fastapi-offline`` package (part of the ``server`` extra), which ships a
Swagger UI build, and are served under ``/static/api-docs/``; nothing is fetched from elsewhere. (ReDoc is
left out: its page loads a logo from the internet.) Without that package ``/docs`` explains how to install
it instead of staying blank.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

__all__ = ["ASSETS_URL", "DOCS_HINT", "install_api_docs"]

ASSETS_URL = "/static/api-docs"
DOCS_HINT = "install the server extra: pip install 'slotgraph[server]' (it ships the Swagger UI assets)"
_FAVICON = "/favicon.svg"


def _assets_dir() -> Path | None:
    try:
        folder = resources.files("fastapi_offline").joinpath("static")
    except ModuleNotFoundError:
        return None
    path = Path(str(folder))
    return path if (path / "swagger-ui-bundle.js").is_file() else None


def _missing_page(title: str) -> HTMLResponse:
    body = (
        f"<!doctype html><title>{title}</title><h1>{title}</h1>"
        f"<p>The API documentation assets are not installed: {DOCS_HINT}.</p>"
        '<p>The OpenAPI document itself is at <a href="/openapi.json">/openapi.json</a>.</p>'
    )
    return HTMLResponse(body, status_code=503)


def install_api_docs(app: FastAPI) -> None:
    """Add ``/docs`` and ``/docs/oauth2-redirect`` to ``app`` (built with ``docs_url=None``)."""
    assets = _assets_dir()
    openapi_url = app.openapi_url or "/openapi.json"
    redirect_url = "/docs/oauth2-redirect"
    if assets is not None:
        app.mount(ASSETS_URL, StaticFiles(directory=assets), name="api-docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        if assets is None:
            return _missing_page(f"{app.title} API")
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} API",
            oauth2_redirect_url=redirect_url,
            swagger_js_url=f"{ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url=_FAVICON,
        )

    @app.get(redirect_url, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()
