"""Errors of :mod:`slotgraph.logic`.

Hierarchy::

    LogicError                 (code "logic_error")
    └── VariableWriteError     (code "variable_write_refused") - a linked variable or a mistyped value

Rendering and rules never raise these into a turn: a failing statement or rule is logged and reported as an
event, and the turn goes on.
"""

from __future__ import annotations

from slotgraph.errors import SlotgraphError

__all__ = ["LogicError", "VariableWriteError"]


class LogicError(SlotgraphError):
    """Base of the logic layer's errors."""

    code = "logic_error"


class VariableWriteError(LogicError):
    """A write was refused: the variable is linked (read-only) or the value is not of its declared type."""

    code = "variable_write_refused"
