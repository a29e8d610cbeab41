"""Fixtures of the workflow tests: the example purchases API on a real loopback port, and helpers."""

from __future__ import annotations

import importlib.util
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "purchase_refund"


def _load_api_module() -> Any:
    spec = importlib.util.spec_from_file_location("purchases_api", EXAMPLE / "purchases_api.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("purchases_api", module)
    spec.loader.exec_module(module)
    return module


@dataclass
class RunningApi:
    """The example purchases API serving on 127.0.0.1 in a thread of the test process."""

    url: str
    api: Any

    def bodies(self, path: str) -> list[dict[str, Any]]:
        return [r["body"] for r in self.api.requests if r["path"] == path]


@pytest.fixture
def purchases_api() -> Iterator[RunningApi]:
    module = _load_api_module()
    server = module.make_server(0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield RunningApi(f"http://127.0.0.1:{server.server_address[1]}", server.api)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class EchoServer:
    """A loopback HTTP server that records every request and answers ``{"ok": true, "echo": body}``."""

    def __init__(self) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                import json

                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"null")
                with owner.lock:
                    owner.requests.append(
                        {"path": self.path, "body": body, "key": self.headers.get("Idempotency-Key")}
                    )
                status = 500 if self.path.startswith("/fail") else 200
                data = json.dumps({"ok": status == 200, "echo": body}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


@pytest.fixture
def echo_server() -> Iterator[EchoServer]:
    server = EchoServer()
    try:
        yield server
    finally:
        server.close()
