"""The runtime's hook for tracing: what a session asks of a tracer, as a small typed interface.

A :class:`TurnTracer` wraps the session's model, engine and tools (so each model call, engine invocation and
tool call can be observed where it happens) and opens a scope around each turn. The runtime knows nothing
of OpenTelemetry: :mod:`slotgraph.tracing` implements this with spans; a session without a tracer pays
nothing.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol

from slotgraph.models.protocol import Model, UserMessage
from slotgraph.runtime.engine_port import Engine
from slotgraph.runtime.tools import ToolRegistry

if TYPE_CHECKING:
    from slotgraph.runtime.events import TurnResult

__all__ = ["TurnScope", "TurnTracer"]


class TurnScope(Protocol):
    """An open turn: told how it ended."""

    def finished(self, result: TurnResult) -> None: ...


class TurnTracer(Protocol):
    """What a session needs from a tracer."""

    def wrap_model(self, model: Model, *, session_id: str) -> Model: ...

    def wrap_engine(self, engine: Engine, *, session_id: str) -> Engine: ...

    def wrap_tools(self, tools: ToolRegistry, *, session_id: str) -> ToolRegistry: ...

    def turn(
        self, *, session_id: str, number: int, user: UserMessage
    ) -> AbstractContextManager[TurnScope]: ...
