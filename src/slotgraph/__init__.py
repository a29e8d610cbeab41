"""Slotgraph: a runtime for LLM agents whose control flow is deterministic.

The LLM owns language (turning what a person says into tool calls, phrasing replies); Python owns control
flow (what to ask next, when a backend task fires, retries, escalation, which tools the model may see).

Layers, imports pointing only downwards (see ``DESIGN.md`` and ``tests/test_layering.py``):

- :mod:`slotgraph.expr` — the safe expression language (conditions, formatters, rules);
- :mod:`slotgraph.config` — typed config nodes, loading, whole-config validation, compilation;
- :mod:`slotgraph.engine` — the pure slot-filling DAG decision engine;
- :mod:`slotgraph.runtime` — the agent loop that plays the host's part;
- the edges: :mod:`slotgraph.adapters` (the spec-compatible entry), :mod:`slotgraph.cli`.

The runtime's main names are available here (``from slotgraph import Agent``); they are imported lazily so
that ``import slotgraph.expr`` stays as light as the expression language itself.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_RUNTIME_EXPORTS = (
    "Agent",
    "Session",
    "TurnResult",
    "TurnStep",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "ScriptedModel",
    "ScriptedStep",
    "ToolContext",
    "call",
    "inline",
)

__all__ = ["__version__", *_RUNTIME_EXPORTS]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from slotgraph.runtime import (  # noqa: F401 - re-exported lazily below
        Agent,
        Model,
        ModelRequest,
        ModelResponse,
        ScriptedModel,
        ScriptedStep,
        Session,
        ToolContext,
        TurnResult,
        TurnStep,
        call,
        inline,
    )


def __dir__() -> list[str]:
    """``dir(slotgraph)`` (and completion in a REPL or notebook) lists the public API, not helper imports."""
    return sorted({*__all__, *(n for n in globals() if n.startswith("__") and n.endswith("__"))})


def __getattr__(name: str) -> Any:
    if name in _RUNTIME_EXPORTS:
        return getattr(importlib.import_module("slotgraph.runtime"), name)
    raise AttributeError(f"module 'slotgraph' has no attribute {name!r}")
