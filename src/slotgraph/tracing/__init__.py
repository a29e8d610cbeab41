"""OpenTelemetry traces of Slotgraph sessions: a span per turn, engine invocation, model call and tool call.

Opt in with ``SLOTGRAPH_OTEL=1`` (or ``tracing: true`` in ``agent.yaml``, or ``agent.session(tracer=...)``).
With the variable set and no tracer provider configured by the application, one is installed that exports
over OTLP/HTTP, configured by the standard variables (``OTEL_EXPORTER_OTLP_ENDPOINT``,
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``, ``OTEL_EXPORTER_OTLP_HEADERS``, ``OTEL_SERVICE_NAME``, ...).
Tool arguments and results are redacted unless ``SLOTGRAPH_OTEL_CAPTURE_CONTENT=1``. Needs the
``opentelemetry`` SDK: ``pip install 'slotgraph[otel]'``. See ``docs/tracing.md``.
"""

from slotgraph.tracing.settings import (
    CAPTURE_ENV,
    OTEL_ENV,
    TracingUnavailableError,
    configure_from_env,
    tracing_requested,
)
from slotgraph.tracing.spans import REDACTED, SessionTracer

__all__ = [
    "CAPTURE_ENV",
    "OTEL_ENV",
    "REDACTED",
    "SessionTracer",
    "TracingUnavailableError",
    "configure_from_env",
    "tracing_requested",
]
