"""Errors of the runtime layer.

Hierarchy (every class carries a stable ``code`` and inherits :class:`slotgraph.errors.SlotgraphError`)::

    SlotgraphRuntimeError                 base of everything raised by slotgraph.runtime
    ├── AgentLoadError                    the agent directory / YAML / tools module cannot be loaded
    │   └── ToolDefinitionError           a tool function cannot be turned into a schema
    ├── ModelOutputError                a model's generate() returned something that is not a ModelResponse
    └── SessionError                      misuse of a session (sync call inside a running loop, ended session)
        ├── UnknownSessionError           a turn of a session the store does not hold (with must_exist)
        ├── SessionNotCompleteError       result() of a session that has not completed (without partial=True)
        └── SlotsValidationError          the session's slot values do not fit the slots model

The store errors (``StoreError`` and its kinds) live with the stores in :mod:`slotgraph.stores.errors`, the
model errors (``ModelNotAvailableError``, ``ScriptedModelError``, ``ModelError`` and its kinds) live with
the models in :mod:`slotgraph.models.errors`; this module re-exports the store errors and the first two
model errors.

Refusals of model tool calls and failures of tools are *not* exceptions: they become tool results the
model can read and events on the turn (see :mod:`slotgraph.runtime.tool_execution`).
"""

from __future__ import annotations

from slotgraph.errors import SlotgraphError
from slotgraph.models.errors import ModelNotAvailableError, ScriptedModelError
from slotgraph.stores.errors import (
    LedgerError,
    StoreConfigError,
    StoreConflictError,
    StoreError,
    StoreLockTimeoutError,
    StorePayloadError,
)

__all__ = [
    "AgentLoadError",
    "LedgerError",
    "ModelNotAvailableError",
    "ModelOutputError",
    "ScriptedModelError",
    "SessionError",
    "SessionNotCompleteError",
    "SlotgraphRuntimeError",
    "SlotsValidationError",
    "StoreConfigError",
    "StoreConflictError",
    "StoreError",
    "StoreLockTimeoutError",
    "StorePayloadError",
    "ToolDefinitionError",
    "UnknownSessionError",
]


class SlotgraphRuntimeError(SlotgraphError):
    """Base of the runtime's errors."""

    code = "runtime_error"


class AgentLoadError(SlotgraphRuntimeError):
    """The agent (its config, instruction or tools module) cannot be loaded."""

    code = "agent_load_error"


class ToolDefinitionError(AgentLoadError):
    """A Python function cannot be exposed as a tool (e.g. an unsupported parameter annotation)."""

    code = "tool_definition_error"


class ModelOutputError(SlotgraphRuntimeError):
    """A model backend answered with something the runtime cannot use (not a ModelResponse, a text that is
    not a string, a tool call without a string id or name). The turn is not saved, like a model exception."""

    code = "model_response_invalid"


class SessionError(SlotgraphRuntimeError):
    """A session was used in a way it does not support."""

    code = "session_error"


class UnknownSessionError(SessionError):
    """A turn of a session its store does not hold, on a session that must exist (``must_exist``)."""

    code = "unknown_session"


class SessionNotCompleteError(SessionError):
    """``Session.result()`` of a session that has not completed, without ``partial=True``."""

    code = "session_not_complete"


class SlotsValidationError(SessionError):
    """A session's slot values do not fit the slots model; the message names each slot and its value."""

    code = "slots_invalid"
