"""Spans of a Bella Notte conversation, read back from the OpenTelemetry SDK's in-memory exporter."""

from __future__ import annotations

import builtins
import datetime
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from tests.runtime.test_bella_notte import AGENT_DIR, _opening

from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep
from slotgraph.tracing import REDACTED, SessionTracer, TracingUnavailableError

NOW = datetime.datetime(2026, 7, 10, 12, 0)
TURNS = ["Hi", "A table for 4 on July 17th", "Yes"]


def _play(tracer: Any, steps: list[ScriptedStep] | None = None, turns: list[str] = TURNS) -> str:
    model = ScriptedModel(steps if steps is not None else _opening())
    session = Agent.load(AGENT_DIR).session(model=model, clock=lambda: NOW, seed=0, tracer=tracer)
    for text in turns:
        session.send(text)
    return session.id


def _by_name(spans: tuple[ReadableSpan, ...], prefix: str) -> list[ReadableSpan]:
    return [s for s in spans if s.name.startswith(prefix)]


def _children(spans: tuple[ReadableSpan, ...], parent: ReadableSpan) -> list[ReadableSpan]:
    return [s for s in spans if s.parent is not None and s.parent.span_id == parent.context.span_id]


def test_a_conversation_as_spans(provider: TracerProvider, exporter: InMemorySpanExporter) -> None:
    session_id = _play(SessionTracer(provider, agent_name="bella_notte"))
    spans = exporter.get_finished_spans()
    assert all(s.attributes["session.id"] == session_id for s in spans)
    assert all(s.attributes["gen_ai.conversation.id"] == session_id for s in spans)

    turns = _by_name(spans, "invoke_agent bella_notte")
    assert [t.attributes["slotgraph.turn.number"] for t in turns] == [1, 2, 3]
    assert all(t.parent is None for t in turns) and len({t.context.trace_id for t in turns}) == 3
    first, second, third = turns
    assert first.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert (
        second.attributes["slotgraph.turn.model_calls"],
        second.attributes["slotgraph.turn.preempted"],
    ) == (
        2,
        False,
    )
    assert (third.attributes["slotgraph.turn.model_calls"], third.attributes["slotgraph.turn.preempted"]) == (
        0,
        True,
    )

    # turn 2: the engine reads back after the model's setter call
    engines = [s for s in _children(spans, second) if s.name.startswith("slotgraph.engine")]
    assert [e.attributes["slotgraph.engine.user_turn"] for e in engines] == [True, False]
    readback = engines[-1]
    assert readback.attributes["slotgraph.engine.reason"] == "readback"
    assert readback.attributes["slotgraph.engine.phase"] == "readback"
    assert {"set_reservation_basics", "find_available_times", "confirm_pending"} <= set(
        readback.attributes["slotgraph.engine.hidden_tools"]
    )
    models = [s for s in _children(spans, second) if s.name.startswith("chat ")]
    assert len(models) == 2 and all(m.attributes["gen_ai.operation.name"] == "chat" for m in models)
    assert models[0].attributes["gen_ai.request.model"] == "ScriptedModel"
    assert models[0].attributes["slotgraph.model.tool_calls"] == ("set_reservation_basics",)
    assert "find_available_times" not in models[0].attributes["slotgraph.model.tools"]
    assert "gen_ai.usage.input_tokens" in models[0].attributes
    (setter,) = [s for s in _children(spans, second) if s.name == "execute_tool set_reservation_basics"]
    assert setter.attributes["gen_ai.tool.call.arguments"] == REDACTED
    assert setter.attributes["gen_ai.tool.call.result"] == REDACTED

    # turn 3: preempted; the engine fires the executor, the readback tool is a span too
    engine3 = next(s for s in _children(spans, third) if s.name.startswith("slotgraph.engine"))
    assert engine3.attributes["slotgraph.engine.preempt"] is True
    assert engine3.attributes["slotgraph.engine.reason"] == "auto_confirm"
    assert engine3.attributes["slotgraph.engine.function_call"] == "confirm_pending"
    names = [s.name for s in _children(spans, third)]
    assert "execute_tool confirm_pending" in names and "execute_tool find_available_times" in names
    assert not [s for s in _children(spans, third) if s.name.startswith("chat ")]


def test_content_capture_puts_arguments_and_results_in(
    provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    _play(SessionTracer(provider, capture_content=True, agent_name="bella_notte"), turns=TURNS[:2])
    (setter,) = _by_name(exporter.get_finished_spans(), "execute_tool set_reservation_basics")
    assert (
        setter.attributes["gen_ai.tool.call.arguments"] == '{"party_size": 4, "preferred_date": "2026-07-17"}'
    )
    assert '"stored": true' in setter.attributes["gen_ai.tool.call.result"]


class Broken:
    async def generate(self, request: Any) -> Any:
        raise RuntimeError("the model is down")


def test_a_failing_model_call_is_an_error_span(
    provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    session = Agent.load(AGENT_DIR).session(model=Broken(), clock=lambda: NOW, tracer=SessionTracer(provider))
    with pytest.raises(RuntimeError, match="the model is down"):
        session.send("Hi")
    spans = exporter.get_finished_spans()
    (model,) = _by_name(spans, "chat ")
    (turn,) = _by_name(spans, "invoke_agent")
    for span in (model, turn):
        assert span.status.status_code == StatusCode.ERROR and span.attributes["error.type"] == "RuntimeError"
    assert model.events[0].name == "exception"


@pytest.mark.scripted_leftover("one turn of the shared script is enough")
def test_slotgraph_otel_turns_spans_on(
    monkeypatch: pytest.MonkeyPatch, global_exporter: InMemorySpanExporter
) -> None:
    monkeypatch.setenv("SLOTGRAPH_OTEL", "1")
    session_id = _play(None, turns=TURNS[:1])
    (turn,) = _by_name(global_exporter.get_finished_spans(), "invoke_agent bella_notte")
    assert turn.attributes["session.id"] == session_id


@pytest.mark.scripted_leftover("one turn of the shared script is enough")
def test_tracing_is_off_by_default(
    monkeypatch: pytest.MonkeyPatch, global_exporter: InMemorySpanExporter
) -> None:
    monkeypatch.delenv("SLOTGRAPH_OTEL", raising=False)
    _play(None, turns=TURNS[:1])
    assert global_exporter.get_finished_spans() == ()


def test_a_malformed_switch_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLOTGRAPH_OTEL", "maybe")
    with pytest.raises(TracingUnavailableError, match="SLOTGRAPH_OTEL='maybe' is not a switch; use 1"):
        Agent.load(AGENT_DIR).session(model=ScriptedModel([]))


def test_without_opentelemetry_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_otel(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_otel)
    monkeypatch.setenv("SLOTGRAPH_OTEL", "1")
    with pytest.raises(TracingUnavailableError, match=r"pip install 'slotgraph\[otel\]'"):
        Agent.load(AGENT_DIR).session(model=ScriptedModel([]))
