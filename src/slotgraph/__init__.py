"""Slotgraph: a runtime for LLM agents whose control flow is deterministic.

The LLM owns language (turning what a person says into tool calls, phrasing replies); Python owns control
flow (what to ask next, when a backend task fires, retries, escalation, which tools the model may see).

Layers, imports pointing only downwards (see ``DESIGN.md`` and ``tests/test_layering.py``):

- :mod:`slotgraph.expr` — the safe expression language (conditions, formatters, rules);
- :mod:`slotgraph.config` — typed config models, loading, whole-config validation, compilation;
- :mod:`slotgraph.engine` — the pure slot-filling DAG decision engine;
- the edges: :mod:`slotgraph.adapters` (the spec-compatible entry), :mod:`slotgraph.cli`.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
