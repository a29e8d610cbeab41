"""Turning tracing on: the ``SLOTGRAPH_OTEL`` switch and the default OTLP exporter."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from slotgraph.names import OTEL_ENV
from slotgraph.runtime.errors import SlotgraphRuntimeError

__all__ = [
    "CAPTURE_ENV",
    "OTEL_ENV",
    "TracingUnavailableError",
    "capture_content",
    "configure_from_env",
    "import_otel",
    "tracing_requested",
]

CAPTURE_ENV = "SLOTGRAPH_OTEL_CAPTURE_CONTENT"
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})
_lock = threading.Lock()


class TracingUnavailableError(SlotgraphRuntimeError):
    """Tracing was asked for but the OpenTelemetry SDK is not installed, or the switch is malformed."""

    code = "tracing_unavailable"


def _flag(env: Mapping[str, str], name: str) -> bool:
    raw = env.get(name, "").strip().lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise TracingUnavailableError(f"{name}={env.get(name)!r} is not a switch; use 1 (on) or 0 (off)")


def tracing_requested(env: Mapping[str, str]) -> bool:
    """Whether ``SLOTGRAPH_OTEL`` asks for tracing."""
    return _flag(env, OTEL_ENV)


def capture_content(env: Mapping[str, str]) -> bool:
    """Whether ``SLOTGRAPH_OTEL_CAPTURE_CONTENT`` asks for tool arguments and results in spans."""
    return _flag(env, CAPTURE_ENV)


def import_otel() -> Any:
    """``opentelemetry.trace``, or :class:`TracingUnavailableError` with the install hint."""
    try:
        from opentelemetry import trace
    except ImportError:
        raise TracingUnavailableError(
            "tracing needs OpenTelemetry, which is not installed; install it with: "
            "pip install 'slotgraph[otel]' (or unset SLOTGRAPH_OTEL)"
        ) from None
    return trace


def configure_from_env() -> Any:
    """The global tracer provider; when the application installed none, an SDK one exporting over OTLP/HTTP.

    The exporter reads the standard ``OTEL_EXPORTER_OTLP_*`` variables; the resource reads
    ``OTEL_SERVICE_NAME`` / ``OTEL_RESOURCE_ATTRIBUTES`` (service name ``slotgraph`` when unset). Idempotent.
    """
    trace = import_otel()
    with _lock:
        current = trace.get_tracer_provider()
        if not isinstance(current, trace.ProxyTracerProvider | trace.NoOpTracerProvider):
            return current  # the application (or an earlier call) configured tracing: use it
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.resources import OTELResourceDetector, Resource
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor
        except ImportError:
            raise TracingUnavailableError(
                "SLOTGRAPH_OTEL=1 needs the OpenTelemetry SDK and its OTLP exporter; install them with: "
                "pip install 'slotgraph[otel]'"
            ) from None
        resource = Resource.create({"service.name": "slotgraph"}).merge(OTELResourceDetector().detect())
        provider = TracerProvider(resource=resource)
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        trace.set_tracer_provider(provider)
        return trace.get_tracer_provider()
