"""``SLOTGRAPH_OTEL=1`` with the standard OTLP variables: spans reach a real OTLP/HTTP endpoint on loopback.

The conversation runs in a subprocess (a process installs one global tracer provider, and this one is the
default Slotgraph installs when the application configured none); a loopback HTTP server plays the
collector and records what it receives. The batch exporter flushes when the process exits.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import datetime
from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep
model = ScriptedModel([ScriptedStep(text="Welcome! How many guests?")])
noon = datetime.datetime(2026, 7, 10, 12)
session = Agent.load("examples/bella_notte").session(model=model, clock=lambda: noon)
session.send("Hi")
print(session.id)
"""


class Collector:
    """Records the bodies POSTed to it; answers 200 with an empty export response."""

    def __init__(self) -> None:
        self.received: list[tuple[str, dict[str, str], bytes]] = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                collector.received.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}"


@pytest.fixture
def collector() -> Iterator[Collector]:
    server = Collector()
    server.thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()


def test_spans_are_exported_over_otlp_http(collector: Collector) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "SLOTGRAPH_OTEL": "1",
        "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url,
        "OTEL_EXPORTER_OTLP_HEADERS": "x-team-key=abc123",
        "OTEL_SERVICE_NAME": "bella-frontdesk",
    }
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    session_id = done.stdout.strip()
    assert collector.received, "nothing was exported"
    path, headers, _ = collector.received[0]
    assert path == "/v1/traces" and headers["x-team-key"] == "abc123"
    request = ExportTraceServiceRequest()
    for _, _, raw in collector.received:
        request.MergeFromString(raw)
    (resource,) = {
        attr.value.string_value
        for spans in request.resource_spans
        for attr in spans.resource.attributes
        if attr.key == "service.name"
    }
    assert resource == "bella-frontdesk"
    spans = [span for rs in request.resource_spans for ss in rs.scope_spans for span in ss.spans]
    names = {span.name for span in spans}
    assert {"invoke_agent bella_notte", "chat ScriptedModel"} <= names
    assert any(name.startswith("slotgraph.engine") for name in names)
    for span in spans:
        ids = [a.value.string_value for a in span.attributes if a.key == "session.id"]
        assert ids == [session_id]
