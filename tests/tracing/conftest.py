"""Fixtures for the tracing tests: the OpenTelemetry SDK's in-memory exporter."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the tracing tests need 'slotgraph[otel]'")

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

_GLOBAL = InMemorySpanExporter()


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    """A fresh in-memory exporter behind a provider of its own (not the global one)."""
    memory = InMemorySpanExporter()
    yield memory
    memory.clear()


@pytest.fixture
def provider(exporter: InMemorySpanExporter) -> TracerProvider:
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    return tracer_provider


@pytest.fixture
def global_exporter() -> Iterator[InMemorySpanExporter]:
    """The in-memory exporter behind the process-wide provider (installed once: OTel allows one)."""
    current = trace.get_tracer_provider()
    if not isinstance(current, TracerProvider):
        installed = TracerProvider()
        installed.add_span_processor(SimpleSpanProcessor(_GLOBAL))
        trace.set_tracer_provider(installed)
    elif _GLOBAL not in [
        getattr(p, "span_exporter", None) for p in current._active_span_processor._span_processors
    ]:
        current.add_span_processor(SimpleSpanProcessor(_GLOBAL))
    _GLOBAL.clear()
    yield _GLOBAL
    _GLOBAL.clear()
