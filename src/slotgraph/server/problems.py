"""Errors as ``application/problem+json`` (RFC 9457): the one place HTTP statuses are chosen.

Every body has ``type`` (``urn:slotgraph:problem:<code>``), ``title``, ``status``, ``detail`` (what is
wrong), ``fix`` (how to fix it, when there is one) and the stable ``code``; validation failures add
``errors`` with the location of each problem. A model failure is ``model_unavailable`` (503, with
``Retry-After`` and ``retry_after`` when the model's server said how long to wait: the client retries later)
or ``model_failed`` (502: the upstream model is misconfigured or broken). An unexpected exception becomes
``internal_error`` with an ``error_id`` to find the traceback in the server log — never its message.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from slotgraph.server.errors import (
    ModelFailedError,
    ModelUnavailableError,
    ServerConfigError,
    ServerError,
    SessionBusyError,
    SessionConflictError,
    SessionEndedError,
    SessionNotFoundError,
    SessionUnreadableError,
    UnknownAgentError,
)

__all__ = ["PROBLEM_MEDIA_TYPE", "install_problem_handlers", "problem", "problem_body", "problem_for"]

logger = logging.getLogger("slotgraph.server")

PROBLEM_MEDIA_TYPE = "application/problem+json"

_STATUS: dict[type[ServerError], tuple[int, str]] = {
    UnknownAgentError: (404, "Unknown agent"),
    SessionNotFoundError: (404, "Session not found"),
    SessionBusyError: (409, "Session busy"),
    SessionConflictError: (409, "Conflict"),
    SessionEndedError: (409, "Session ended"),
    SessionUnreadableError: (500, "Session unreadable"),
    ServerConfigError: (500, "Server misconfigured"),
    ModelUnavailableError: (503, "Model unavailable"),
    ModelFailedError: (502, "Model failed"),
}

_SHOWN_5XX = (SessionUnreadableError, ModelUnavailableError, ModelFailedError)
"""Server-side errors whose message carries no internals: shown to the client with their own code."""

_HTTP_CODES: dict[int, tuple[str, str, str]] = {
    400: (
        "bad_request",
        "Bad request",
        "send the body as UTF-8 JSON with `Content-Type: application/json` (see /docs for the schema)",
    ),
    404: ("not_found", "Not found", "see /docs for the endpoints of this API"),
    405: ("method_not_allowed", "Method not allowed", "see /docs for the methods each endpoint accepts"),
}


def problem_body(
    status: int,
    code: str,
    title: str,
    detail: str,
    *,
    fix: str = "",
    errors: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": f"urn:slotgraph:problem:{code}",
        "title": title,
        "status": status,
        "detail": detail,
        "code": code,
    }
    if fix:
        body["fix"] = fix
    if errors:
        body["errors"] = [dict(e) for e in errors]
    return body


def problem(
    status: int,
    code: str,
    title: str,
    detail: str,
    *,
    fix: str = "",
    errors: Sequence[Mapping[str, Any]] = (),
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """A problem+json response."""
    return JSONResponse(
        problem_body(status, code, title, detail, fix=fix, errors=errors),
        status_code=status,
        media_type=PROBLEM_MEDIA_TYPE,
        headers=dict(headers or {}),
    )


def _location(loc: Sequence[Any]) -> str:
    parts = [str(p) for p in loc]
    return ".".join(parts) if parts else "body"


def problem_for(exc: Exception) -> dict[str, Any]:
    """The problem document for an exception raised while serving: a client-actionable :class:`ServerError`
    keeps its message and fix; anything else is ``internal_error`` with an id (logged with its traceback)."""
    if isinstance(exc, ServerError):
        status, title = next((v for k, v in _STATUS.items() if isinstance(exc, k)), (500, "Server error"))
        if status < 500 or isinstance(exc, _SHOWN_5XX):
            if status >= 500:
                cause = exc.__cause__ or exc
                logger.error("%s: %s", exc.code, cause, exc_info=(type(cause), cause, cause.__traceback__))
            body = problem_body(status, exc.code, title, exc.message, fix=exc.fix)
            if isinstance(exc, ModelUnavailableError) and exc.retry_after is not None:
                body["retry_after"] = _retry_after_seconds(exc.retry_after)
            return body
    error_id = uuid.uuid4().hex[:12]
    logger.error("internal error %s", error_id, exc_info=(type(exc), exc, exc.__traceback__))
    return problem_body(
        500,
        "internal_error",
        "Internal error",
        f"the server could not complete the request (error id {error_id})",
        fix="retry later; if it persists, report the error id to the operator",
    )


def _retry_after_seconds(seconds: float) -> int:
    """``Retry-After`` takes whole seconds: round up, so a client never retries too early."""
    return max(0, int(-(-seconds // 1)))


def _response(body: dict[str, Any]) -> JSONResponse:
    headers = {"Retry-After": str(body["retry_after"])} if "retry_after" in body else {}
    return JSONResponse(body, status_code=int(body["status"]), media_type=PROBLEM_MEDIA_TYPE, headers=headers)


async def _server_error(_request: Request, exc: Exception) -> JSONResponse:
    return _response(problem_for(exc))


async def _validation_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [
        {
            "location": _location(e.get("loc", ())),
            "message": str(e.get("msg", "invalid")),
            "type": e.get("type"),
        }
        for e in exc.errors()
    ]
    where = ", ".join(e["location"] for e in errors) or "the request"
    return problem(
        422,
        "invalid_request",
        "Invalid request",
        f"the request is not valid at: {where}",
        fix="correct the fields listed in `errors` (see /docs for the schema)",
        errors=errors,
    )


async def _http_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code, title, fix = _HTTP_CODES.get(exc.status_code, ("http_error", "HTTP error", ""))
    detail = "no such endpoint" if exc.status_code == 404 else title.lower()
    if exc.status_code == 400:  # FastAPI's own: the body could not be decoded (not UTF-8, say)
        detail = "the request body could not be parsed (is it UTF-8 JSON?)"
    return problem(exc.status_code, code, title, detail, fix=fix, headers=exc.headers)


async def _internal_error(_request: Request, exc: Exception) -> JSONResponse:
    return _response(problem_for(exc))


def install_problem_handlers(app: FastAPI) -> None:
    """Route every error the app can raise to a problem+json response."""
    app.add_exception_handler(ServerError, _server_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _internal_error)
