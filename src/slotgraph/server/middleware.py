"""Two guards in front of the API, as plain ASGI middleware: the API key and the request size limit.

* :class:`ApiKeyMiddleware` — with a key configured, every ``/v1/`` request (chat completions included),
  every A2A call (``/a2a/``) and every MCP call (``/mcp/``) needs ``Authorization: Bearer KEY`` or
  ``X-API-Key: KEY`` (compared in constant time); health checks, the playground page, the OpenAPI documents
  and the A2A agent cards stay open (they hold no session data; a card declares the key). A miss is
  ``401 unauthorized``.
* :class:`BodyLimitMiddleware` — a body longer than the limit is ``413 payload_too_large``: refused from its
  ``Content-Length`` before reading, or, without one, as soon as the bytes read pass the limit.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import Sequence

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from slotgraph.server.problems import PROBLEM_MEDIA_TYPE, problem_body

__all__ = [
    "SECURITY_HEADERS",
    "AllowedHostsMiddleware",
    "ApiKeyMiddleware",
    "BodyLimitMiddleware",
    "SecurityHeadersMiddleware",
    "host_allowed",
]

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"frame-ancestors 'none'; base-uri 'none'; object-src 'none'"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
)
"""Headers every response carries (those a route set itself are kept)."""

GUARDED_PREFIXES = ("/v1/", "/a2a/", "/mcp/")
"""The paths the API key guards: the API, the A2A endpoints and the MCP endpoints."""
PUBLIC_SUFFIX = "/.well-known/agent-card.json"
"""A2A agent cards are discovery documents: public, even under a guarded prefix."""


async def _send_problem(
    send: Send,
    status: int,
    code: str,
    title: str,
    detail: str,
    fix: str,
    extra: Sequence[tuple[bytes, bytes]] = (),
) -> None:
    body = json.dumps(problem_body(status, code, title, detail, fix=fix)).encode()
    headers = [
        (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
        (b"content-length", str(len(body)).encode()),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def host_allowed(host: str | None, allowed: Sequence[str]) -> bool:
    """Whether the ``Host`` header value ``host`` (its port ignored) names one of ``allowed``."""
    if "*" in allowed:
        return True
    if not host:
        return False
    name = host.strip().lower()
    if name.startswith("["):  # [::1]:8000
        name = name[1 : name.find("]")] if "]" in name else name
    elif name.count(":") == 1:
        name = name.rsplit(":", 1)[0]
    name = name.rstrip(".")
    for pattern in allowed:
        pattern = pattern.lower()
        if pattern.startswith("*.") and (name == pattern[2:] or name.endswith(pattern[1:])):
            return True
        if name == pattern.strip("[]"):
            return True
    return False


class AllowedHostsMiddleware:
    """Refuse requests whose ``Host`` is not one of ``allowed`` (see the module docstring)."""

    def __init__(self, app: ASGIApp, allowed: Sequence[str]) -> None:
        self.app = app
        self.allowed = tuple(allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or host_allowed(_header(scope, b"host"), self.allowed):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await _send_problem(
            send,
            400,
            "host_not_allowed",
            "Host not allowed",
            "the request's Host header names a host this server does not serve",
            "call the server by one of its names; the operator lists them with slotgraph serve "
            "--allowed-hosts",
        )


class SecurityHeadersMiddleware:
    """Add :data:`SECURITY_HEADERS` to every response, and ``Cache-Control: no-store`` to ``/v1/`` ones."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = str(scope.get("path", "")).startswith("/v1/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {bytes(name).lower() for name, _ in headers}
                headers += [(name, value) for name, value in SECURITY_HEADERS if name not in present]
                if api and b"cache-control" not in present:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class ApiKeyMiddleware:
    """Require the API key on the guarded paths (:data:`GUARDED_PREFIXES`)."""

    def __init__(self, app: ASGIApp, api_key: str) -> None:
        self.app = app
        self._key = api_key.encode()

    def _authorised(self, scope: Scope) -> bool:
        presented = _header(scope, b"x-api-key")
        auth = _header(scope, b"authorization")
        if presented is None and auth is not None:
            scheme, _, token = auth.partition(" ")
            if scheme.lower() == "bearer":
                presented = token.strip()
        return presented is not None and hmac.compare_digest(presented.encode(), self._key)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] != "http" or not path.startswith(GUARDED_PREFIXES) or path.endswith(PUBLIC_SUFFIX):
            await self.app(scope, receive, send)
            return
        if self._authorised(scope):
            await self.app(scope, receive, send)
            return
        await _send_problem(
            send,
            401,
            "unauthorized",
            "Unauthorized",
            "this API needs an API key, and the request had none or a wrong one",
            "send `Authorization: Bearer <key>` or `X-API-Key: <key>`",
            [(b"www-authenticate", b'Bearer realm="slotgraph"')],
        )


class BodyLimitMiddleware:
    """Refuse request bodies over ``max_bytes``, and bodies that do not arrive within ``body_timeout``."""

    def __init__(self, app: ASGIApp, max_bytes: int, body_timeout: float = 10.0) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.body_timeout = body_timeout

    async def _timed_out(self, send: Send) -> None:
        await _send_problem(
            send,
            408,
            "request_timeout",
            "Request timeout",
            f"the request body did not arrive within {self.body_timeout:g} s (its Content-Length is larger "
            "than what was sent, or the client stalled)",
            "send the whole body at once, with a Content-Length that matches it",
            [(b"connection", b"close")],
        )

    async def _too_large(self, send: Send) -> None:
        await _send_problem(
            send,
            413,
            "payload_too_large",
            "Payload too large",
            f"the request body is larger than {self.max_bytes} bytes",
            "send a shorter message",
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _header(scope, b"content-length")
        if declared is not None and declared.strip().isdigit() and int(declared) > self.max_bytes:
            await self._too_large(send)
            return
        chunks: list[bytes] = []
        size = 0
        deadline = asyncio.get_running_loop().time() + self.body_timeout
        while True:
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                await self._timed_out(send)
                return
            if message["type"] != "http.request":  # the client went away before sending it all
                await self.app(scope, _replay([message]), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._too_large(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body: Message = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, _replay([body], then=receive), send)


def _replay(messages: list[Message], then: Receive | None = None) -> Receive:
    pending = list(messages)

    async def receive() -> Message:
        if pending:
            return pending.pop(0)
        if then is not None:
            return await then()
        return {"type": "http.disconnect"}

    return receive
