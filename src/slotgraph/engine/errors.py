"""Errors raised by the engine.

Hierarchy::

    EngineError                 base of everything the engine raises on purpose (carries ``code`` and ``fix``)
    ├── EngineStateError        the ``sm`` state given to an entry point is malformed (names the key)
    └── EngineInputError        any other entry input is malformed (tool name, result shape, input_data)

Config problems are not engine errors: they are :class:`slotgraph.config.ConfigValidationError`, raised by
``compile_config`` before the engine ever runs.
"""

from __future__ import annotations

from slotgraph.errors import SlotgraphError

__all__ = ["EngineError", "EngineInputError", "EngineStateError"]


class EngineError(SlotgraphError):
    """Base class. ``code`` is stable (tests and hosts match on it); ``fix`` tells the caller what to do."""

    code: str = "engine_error"

    def __init__(self, message: str, *, code: str | None = None, fix: str = "", where: str = "") -> None:
        self.code = code or type(self).code
        self.where = where
        text = message
        if where:
            text = f"{where}: {text}"
        if fix:
            text = f"{text} (fix: {fix})"
        super().__init__(text, fix=fix)


class EngineStateError(EngineError):
    """The state dict ``sm`` does not have the shape described in docs/engine.md#the-state-sm."""

    code = "invalid_state"


class EngineInputError(EngineError):
    """An entry-point input other than ``sm`` (or the config) is malformed."""

    code = "invalid_input"
