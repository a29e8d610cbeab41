"""``slotgraph serve`` with tracing: a turn's span joins the trace of the request that carried it."""

from __future__ import annotations

import httpx
import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from tests.server.live import live_server
from tests.server.support import app_for

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"


def test_an_incoming_traceparent_is_the_turn_spans_parent(
    monkeypatch: pytest.MonkeyPatch, global_exporter: InMemorySpanExporter
) -> None:
    monkeypatch.setenv("SLOTGRAPH_OTEL", "1")
    with live_server(app_for()) as base:
        created = httpx.post(f"{base}/v1/sessions", json={"agent": "bella_notte"}, timeout=30)
        assert created.status_code == 201, created.text
        session_id = created.json()["session_id"]
        headers = {"traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01"}
        said = httpx.post(
            f"{base}/v1/sessions/{session_id}/messages", json={"text": "Hi"}, headers=headers, timeout=30
        )
        assert said.status_code == 200, said.text
    turns = [s for s in global_exporter.get_finished_spans() if s.name.startswith("invoke_agent")]
    (turn,) = [s for s in turns if s.attributes["session.id"] == session_id]
    assert format(turn.context.trace_id, "032x") == TRACE_ID
    assert turn.parent is not None and format(turn.parent.span_id, "016x") == PARENT_ID
    assert turn.parent.is_remote


def test_without_tracing_no_middleware_and_no_spans(
    monkeypatch: pytest.MonkeyPatch, global_exporter: InMemorySpanExporter
) -> None:
    monkeypatch.delenv("SLOTGRAPH_OTEL", raising=False)
    app = app_for()
    assert not [m for m in app.user_middleware if m.cls.__name__ == "TraceContextMiddleware"]
