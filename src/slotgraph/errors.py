"""The root of every error Slotgraph raises on purpose: :class:`SlotgraphError`, with ``code`` and ``fix``.

Every package's errors inherit it (``ConfigError``, ``ExpressionError``, ``EngineError``, ``LogicError``,
``ModelError``, ``SlotgraphRuntimeError``, ``WorkflowError``, ``EvalError``, ``ServerError``), so a host can
catch one class, and the HTTP service maps an error to its problem+json answer by its type
(:mod:`slotgraph.server.problems`), never by its message.

- ``code`` is stable and machine-readable (tests, hosts and the HTTP ``code`` field match on it);
- ``fix`` says how to fix the problem, in one sentence, when there is something to say (``""`` otherwise).

This module sits below every layer and imports nothing of Slotgraph.
"""

from __future__ import annotations

__all__ = ["SlotgraphError"]


class SlotgraphError(Exception):
    """Base of every error Slotgraph raises on purpose. ``code`` is stable; ``fix`` tells what to do."""

    code: str = "slotgraph_error"
    fix: str = ""

    def __init__(self, *args: object, fix: str | None = None) -> None:
        super().__init__(*args)
        if fix is not None:
            self.fix = fix
