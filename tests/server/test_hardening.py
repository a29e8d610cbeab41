"""The service's outer guards, on a real uvicorn server: allowed host names, hardening headers, and a body
that never arrives.

Before: any ``Host`` was answered (a page on another domain resolving to 127.0.0.1 — DNS rebinding — could
drive a loopback server), responses carried no hardening headers, and a request whose ``Content-Length``
exceeded the bytes sent was held open with no read timeout.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import httpx
import pytest

from slotgraph.cli.serve import serve
from slotgraph.server import ServerSettings, create_app
from slotgraph.server.middleware import AllowedHostsMiddleware, host_allowed
from slotgraph.server.settings import LOOPBACK_HOSTS, default_allowed_hosts
from slotgraph.stores.memory import InMemoryStore

from .live import live_server
from .support import BELLA, bella


def _app(**settings: Any) -> Any:
    return create_app(bella(), store=InMemoryStore(), settings=ServerSettings(**settings))


def test_a_loopback_server_answers_only_its_loopback_names() -> None:
    with live_server(_app(allowed_hosts=LOOPBACK_HOSTS)) as base:
        port = base.rsplit(":", 1)[1]
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", f"[::1]:{port}"):
            assert httpx.get(f"{base}/healthz", headers={"host": host}).status_code == 200, host
        for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1.evil.example:{port}"):
            refused = httpx.get(f"{base}/v1/agents", headers={"host": host})
            assert refused.status_code == 400, host
            assert refused.json()["code"] == "host_not_allowed"


def test_every_response_carries_the_hardening_headers_and_api_answers_are_not_cached() -> None:
    with live_server(_app()) as base:
        page, agents, problem = (
            httpx.get(f"{base}/"),
            httpx.get(f"{base}/v1/agents"),
            httpx.get(f"{base}/v1/x"),
        )
    for response in (page, agents, problem):
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        assert response.headers["referrer-policy"] == "no-referrer"
    assert agents.headers["cache-control"] == "no-store" and problem.status_code == 404
    assert page.status_code == 200 and page.headers.get("cache-control") != "no-store"


def test_a_body_that_never_arrives_is_a_408_not_a_request_held_forever() -> None:
    with live_server(_app(body_timeout=0.5)) as base:
        host, port = base.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=30) as conn:
            conn.sendall(
                b"POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100\r\n\r\n" + b'{"agent": '  # 10 of the 100 bytes promised
            )
            answer = b""
            while chunk := conn.recv(65536):  # the server answers, then closes: no sleep, no fixed wait
                answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b'"request_timeout"' in body and b"did not arrive within 0.5 s" in body


@pytest.mark.parametrize(
    ("bind", "hosts"),
    [("127.0.0.1", LOOPBACK_HOSTS), ("localhost", LOOPBACK_HOSTS), ("0.0.0.0", ("*",)), ("::", ("*",))],
)
def test_the_default_depends_on_the_interface_served(bind: str, hosts: tuple[str, ...]) -> None:
    assert default_allowed_hosts(bind) == hosts


def test_serve_sets_the_allowed_hosts_from_its_options(tmp_path: Path) -> None:
    seen: list[tuple[str, ...]] = []

    def run(app: Any, **_: Any) -> None:
        (guard,) = [m for m in app.user_middleware if m.cls is AllowedHostsMiddleware]
        seen.append(tuple(guard.kwargs["allowed"]))

    store = f"sqlite:///{tmp_path / 's.db'}"
    assert serve([BELLA], store=store, run=run) == 0
    assert serve([BELLA], store=store, host="0.0.0.0", run=run) == 0
    assert (
        serve([BELLA], store=store, host="0.0.0.0", allowed_hosts=["example.com", "*.example.com"], run=run)
        == 0
    )
    assert seen == [LOOPBACK_HOSTS, ("*",), ("example.com", "*.example.com")]


def test_host_patterns() -> None:
    allowed = ("example.com", "*.example.org")
    assert host_allowed("example.com:443", allowed) and host_allowed("EXAMPLE.com.", allowed)
    assert host_allowed("a.b.example.org", allowed) and host_allowed("example.org", allowed)
    assert not host_allowed("badexample.org", allowed) and not host_allowed("example.com.evil", allowed)
    assert not host_allowed(None, allowed) and host_allowed(None, ("*",))
