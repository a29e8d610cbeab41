"""Incoming trace context for ``slotgraph serve``: a turn's span joins the caller's trace.

:class:`TraceContextMiddleware` is a plain ASGI middleware: it reads the request's propagation headers
(W3C ``traceparent``/``tracestate`` and ``baggage`` by default, or whatever ``OTEL_PROPAGATORS`` configures)
with OpenTelemetry's global propagator and makes that context current while the request is handled, so the
turn span of ``POST /v1/sessions/{id}/turns`` is a child of the caller's span.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from slotgraph.tracing.settings import import_otel

__all__ = ["TraceContextMiddleware"]

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


class TraceContextMiddleware:
    """Makes the incoming request's trace context current for the request's handling."""

    def __init__(self, app: ASGIApp) -> None:
        import_otel()
        from opentelemetry import context, propagate

        self.app = app
        self._context = context
        self._propagate = propagate

    async def __call__(
        self, scope: Scope, receive: Callable[[], Awaitable[Any]], send: Callable[[Any], Awaitable[None]]
    ) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        carrier = {
            bytes(name).decode("latin-1").lower(): bytes(value).decode("latin-1")
            for name, value in scope.get("headers") or ()
        }
        token = self._context.attach(self._propagate.extract(carrier))
        try:
            await self.app(scope, receive, send)
        finally:
            self._context.detach(token)
