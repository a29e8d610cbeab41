"""A real HTTP server on a loopback port, scripted per test: queued replies, recorded requests.

Tests talk to it through the real client code (httpx, google-genai), so the protocol, the headers, the
status codes and the timeouts are exercised end to end — nothing of the client library is mocked. A reply
can be held until the test ends (:attr:`Reply.hold`), which makes a client time out without anyone sleeping:
the handler waits on an event that the fixture sets at teardown. A request beyond the queue gets a 599 and is
recorded as unexpected; the fixture fails the test on it.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["LoopbackServer", "Recorded", "Reply", "unused_port"]

HOLD_LIMIT_SECONDS = 30.0


def unused_port() -> int:
    """A loopback port nobody listens on (bound once, then released): connecting to it is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class Reply:
    """One scripted reply: a status, a JSON body (or raw text) and headers; ``hold`` never answers in time."""

    body: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    raw: str | None = None
    hold: bool = False
    trickle: bool = False
    """Send the body one byte every 50 ms (each read is quick; the whole answer takes many seconds)."""


@dataclass(frozen=True)
class Recorded:
    """One request the server got."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


class LoopbackServer:
    """Serves queued :class:`Reply` objects on ``127.0.0.1``, one per request, recording each request."""

    def __init__(self) -> None:
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self.requests: list[Recorded] = []
        self.unexpected: list[Recorded] = []
        self.release = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                server._handle(self)

            def do_GET(self) -> None:
                server._handle(self)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> LoopbackServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=HOLD_LIMIT_SECONDS)

    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    def queue_json(self, *bodies: Any) -> None:
        self.queue(*(Reply(body) for body in bodies))

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._replies)

    @property
    def bodies(self) -> list[Any]:
        return [r.body for r in self.requests]

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length).decode("utf-8") if length else ""
        try:
            body: Any = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = raw
        record = Recorded(
            handler.command, handler.path, {k.lower(): v for k, v in handler.headers.items()}, body
        )
        with self._lock:
            self.requests.append(record)
            reply = self._replies.popleft() if self._replies else None
        if reply is None:
            self.unexpected.append(record)
            reply = Reply({"error": {"message": "unexpected request: the test queued no reply"}}, status=599)
        if reply.hold:
            self.release.wait(HOLD_LIMIT_SECONDS)
            return
        payload = (reply.raw if reply.raw is not None else json.dumps(reply.body)).encode("utf-8")
        try:
            handler.send_response(reply.status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(payload)))
            for name, value in reply.headers.items():
                handler.send_header(name, value)
            handler.end_headers()
            if reply.trickle:
                for index in range(len(payload)):
                    handler.wfile.write(payload[index : index + 1])
                    handler.wfile.flush()
                    if self.release.wait(0.05):
                        return
                return
            handler.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            return
