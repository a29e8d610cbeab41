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

import hmac
import json
from collections.abc import Sequence

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from slotgraph.server.problems import PROBLEM_MEDIA_TYPE, problem_body

__all__ = ["ApiKeyMiddleware", "BodyLimitMiddleware"]

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
    """Refuse request bodies over ``max_bytes``."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

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
        while True:
            message = await receive()
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
