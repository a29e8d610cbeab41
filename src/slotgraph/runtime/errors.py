"""Errors of the runtime layer.

Hierarchy (every class carries a stable ``code`` and inherits :class:`slotgraph.errors.SlotgraphError`)::

    SlotgraphRuntimeError                 base of everything raised by slotgraph.runtime
    ├── AgentLoadError                    the agent directory / YAML / tools module cannot be loaded
    │   └── ToolDefinitionError           a tool function cannot be turned into a schema
    ├── ModelOutputError                a model's generate() returned something that is not a ModelResponse
    ├── SessionError                      misuse of a session (sync call inside a running loop, ended session)
    │   ├── SessionNotCompleteError       result() of a session that has not completed (without partial=True)
    │   └── SlotsValidationError          the session's slot values do not fit the slots model
    └── StoreError                        a session store failed (slotgraph.stores raises these too)
        ├── StoreConflictError            a store's version moved under a save (another writer won)
        ├── StoreLockTimeoutError         a session's lock was not free within the store's lock timeout
        ├── StorePayloadError             a stored payload is corrupted, or from a newer schema
        ├── LedgerError                   the execution ledger was misused or holds a damaged entry
        └── StoreConfigError              a store URL / path / driver / server cannot be used

The model errors (``ModelNotAvailableError``, ``ScriptedModelError``, ``ModelError`` and its kinds) live with
the models in :mod:`slotgraph.models.errors`; this module re-exports the first two.

Refusals of model tool calls and failures of tools are *not* exceptions: they become tool results the
model can read and events on the turn (see :mod:`slotgraph.runtime.tool_execution`).
"""

from __future__ import annotations

from slotgraph.errors import SlotgraphError
from slotgraph.models.errors import ModelNotAvailableError, ScriptedModelError

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


class SessionNotCompleteError(SessionError):
    """``Session.result()`` of a session that has not completed, without ``partial=True``."""

    code = "session_not_complete"


class SlotsValidationError(SessionError):
    """A session's slot values do not fit the slots model; the message names each slot and its value."""

    code = "slots_invalid"


class StoreError(SlotgraphRuntimeError):
    """A session store could not do what was asked; the message says what, where and how to fix it."""

    code = "store_error"


class StoreConflictError(StoreError):
    """A session was saved concurrently: the stored version is not the one this turn started from."""

    code = "store_conflict"


class StoreLockTimeoutError(StoreError):
    """Another turn of the same session held its lock for longer than the store's lock timeout."""

    code = "store_lock_timeout"


class StorePayloadError(StoreError):
    """A stored payload cannot be read: corrupted JSON, a wrong shape, or a schema newer than this code.

    The payload is left in the store untouched.
    """

    code = "store_payload_error"


class LedgerError(StoreError):
    """The execution ledger was used wrongly (completing a key never reserved, a result JSON cannot carry),
    or one of its entries is damaged."""

    code = "ledger_error"


class StoreConfigError(StoreError, ValueError):
    """A store URL, file path, driver or server cannot be used (an unknown scheme, a missing driver, ...)."""

    code = "store_config_error"
