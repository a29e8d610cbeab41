"""The runtime's ports onto optional parts that sit above it, found through entry points.

The runtime never imports the packages that build on it. Where it needs one of them it asks for a plugin
by name, in an entry-point group Slotgraph's own ``pyproject.toml`` declares (a third-party package can add
its own to the same groups):

* ``slotgraph.tool_sources`` — ``mcp``: the tools of MCP servers an agent names
  (:func:`slotgraph.mcp_tools.load_mcp_tools`);
* ``slotgraph.tracers`` — ``otel``: the OpenTelemetry tracer ``tracing: true`` or ``SLOTGRAPH_OTEL=1`` ask
  for (:meth:`slotgraph.tracing.SessionTracer.from_env`).

A plugin is looked up only when an agent needs it (it names MCP servers, it asks for tracing).
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

from slotgraph.runtime.errors import AgentLoadError

__all__ = ["TOOL_SOURCES", "TRACERS", "plugin"]

TOOL_SOURCES = "slotgraph.tool_sources"
TRACERS = "slotgraph.tracers"


def plugin(group: str, name: str) -> Any:
    """The object the entry point ``name`` of ``group`` names; :class:`AgentLoadError` when none does."""
    for point in entry_points(group=group, name=name):
        return point.load()
    raise AgentLoadError(
        f"no plugin {name!r} in the entry-point group {group!r}: the slotgraph installation is incomplete",
        fix="reinstall slotgraph (pip install -e . from a checkout, or pip install slotgraph)",
    )
