"""Agent logic: typed session variables, ``#when`` prompt sections, prompt programs and lifecycle rules.

The layer between the runtime and the expression language. Natural-language instructions and deterministic
rules share one set of session variables (:class:`VariableStore`); every condition, value and argument is a
:mod:`slotgraph.expr` expression (``dot_paths`` dialect, so ``filled.party_size`` reads a slot).

* :mod:`~slotgraph.logic.variables` — the store: declarations, defaults seeded with setdefault, linked
  (read-only) variables, reads falling through to session metadata by presence, change notifications.
* :mod:`~slotgraph.logic.templates` / :mod:`~slotgraph.logic.render` — the instruction grammar and its
  renderer (``#when`` sections, ``{{name}}``, ``{{run}}``/``{{set}}``/``{{= }}`` statements).
* :mod:`~slotgraph.logic.tooling` — the tool-invoker interface the host provides, budgets, the run cache.
* :mod:`~slotgraph.logic.conditions` — conditions (expressions, or an LLM judge) and the judge's shared core.
* :mod:`~slotgraph.logic.rules` — lifecycle rules and their typed :class:`RuleEvent`.
* :mod:`~slotgraph.logic.gates` — per-tool gates (``tool_logic:``): availability, bound arguments, captures.
* :mod:`~slotgraph.logic.set_variables` — the ``set_variables`` built-in's schema and writes.
* :mod:`~slotgraph.logic.guards` — response guards on the assistant's text, the decimal-safe sentence
  buffer, and their typed :class:`GuardEvent`.
* :mod:`~slotgraph.logic.safety` — safety classifier checks (Llama Guard's format, versioned profiles, a
  latency limit and a failure policy) for guards and tool settings.
* :mod:`~slotgraph.logic.handoff` — warm hand-off: ``start_consult``, routing rules (fail open), the context.
* :mod:`~slotgraph.logic.topics` — topics (subagents): prompt takeover, ``current_topic``, the return stack,
  ``entry_when``/``return_when``, and their typed :class:`TopicEvent`.
* :mod:`~slotgraph.logic.session` — :class:`AgentLogic` (per agent) and :class:`LogicSession` (per session),
  the small interface a host drives.
* :mod:`~slotgraph.logic.validation` — publish-time checks; :func:`load_definition` is
  :func:`slotgraph.config.load_definition` with them.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only; the names load lazily (below)
    from slotgraph.config import Definition
    from slotgraph.logic.errors import LogicError, VariableWriteError
    from slotgraph.logic.gates import CompiledToolLogic, GateRefusal, ToolGates, compile_tool_logic
    from slotgraph.logic.guards import (
        GuardedReply,
        GuardEvent,
        GuardJudge,
        SentenceBuffer,
        guard_reply,
        split_sentences,
    )
    from slotgraph.logic.render import Rendered, format_value, render_template
    from slotgraph.logic.rules import RuleEffects, RuleEngine, RuleEvent, compile_rules
    from slotgraph.logic.session import (
        RECORD_KEY,
        AgentLogic,
        LogicRecord,
        LogicSession,
        variables_snapshot,
    )
    from slotgraph.logic.set_variables import SET_VARIABLES, apply_set_variables, set_variables_parameters
    from slotgraph.logic.templates import Template, TemplateIssue, parse_template
    from slotgraph.logic.tooling import ProgramBudget, RunCache, ToolInvoker, ToolRun
    from slotgraph.logic.topics import TopicEvent, TopicManager
    from slotgraph.logic.validation import logic_issues
    from slotgraph.logic.variables import SlotFillingFacts, VariableChange, VariableStore

__all__ = [
    "RECORD_KEY",
    "SET_VARIABLES",
    "AgentLogic",
    "CompiledToolLogic",
    "GateRefusal",
    "GuardEvent",
    "GuardJudge",
    "GuardedReply",
    "LogicError",
    "LogicRecord",
    "LogicSession",
    "ProgramBudget",
    "Rendered",
    "RuleEffects",
    "RuleEngine",
    "RuleEvent",
    "RunCache",
    "SentenceBuffer",
    "SlotFillingFacts",
    "Template",
    "TemplateIssue",
    "ToolGates",
    "ToolInvoker",
    "ToolRun",
    "TopicEvent",
    "TopicManager",
    "VariableChange",
    "VariableStore",
    "VariableWriteError",
    "apply_set_variables",
    "compile_rules",
    "compile_tool_logic",
    "format_value",
    "guard_reply",
    "load_definition",
    "logic_issues",
    "parse_template",
    "render_template",
    "set_variables_parameters",
    "split_sentences",
    "variables_snapshot",
]


_EXPORTS: dict[str, str] = {
    "AgentLogic": "slotgraph.logic.session",
    "CompiledToolLogic": "slotgraph.logic.gates",
    "GateRefusal": "slotgraph.logic.gates",
    "GuardEvent": "slotgraph.logic.guards",
    "GuardJudge": "slotgraph.logic.guards",
    "GuardedReply": "slotgraph.logic.guards",
    "LogicError": "slotgraph.logic.errors",
    "LogicRecord": "slotgraph.logic.session",
    "LogicSession": "slotgraph.logic.session",
    "ProgramBudget": "slotgraph.logic.tooling",
    "RECORD_KEY": "slotgraph.logic.session",
    "Rendered": "slotgraph.logic.render",
    "RuleEffects": "slotgraph.logic.rules",
    "RuleEngine": "slotgraph.logic.rules",
    "RuleEvent": "slotgraph.logic.rules",
    "RunCache": "slotgraph.logic.tooling",
    "SET_VARIABLES": "slotgraph.logic.set_variables",
    "SentenceBuffer": "slotgraph.logic.guards",
    "SlotFillingFacts": "slotgraph.logic.variables",
    "Template": "slotgraph.logic.templates",
    "TemplateIssue": "slotgraph.logic.templates",
    "ToolGates": "slotgraph.logic.gates",
    "ToolInvoker": "slotgraph.logic.tooling",
    "ToolRun": "slotgraph.logic.tooling",
    "TopicEvent": "slotgraph.logic.topics",
    "TopicManager": "slotgraph.logic.topics",
    "VariableChange": "slotgraph.logic.variables",
    "VariableStore": "slotgraph.logic.variables",
    "VariableWriteError": "slotgraph.logic.errors",
    "apply_set_variables": "slotgraph.logic.set_variables",
    "compile_rules": "slotgraph.logic.rules",
    "compile_tool_logic": "slotgraph.logic.gates",
    "format_value": "slotgraph.logic.render",
    "guard_reply": "slotgraph.logic.guards",
    "logic_issues": "slotgraph.logic.validation",
    "parse_template": "slotgraph.logic.templates",
    "render_template": "slotgraph.logic.render",
    "set_variables_parameters": "slotgraph.logic.set_variables",
    "split_sentences": "slotgraph.logic.guards",
    "variables_snapshot": "slotgraph.logic.session",
}
"""Where each public name lives. They are imported on first use (PEP 562), so that importing one submodule
(``slotgraph validate`` needs only :mod:`~slotgraph.logic.validation`) does not load the renderer, the rules,
the gates, the guards, the topics and the session, with ``asyncio`` (~150 ms of ``validate``'s start-up)."""


def __dir__() -> list[str]:
    return sorted({*__all__, *(n for n in globals() if n.startswith("__") and n.endswith("__"))})


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'slotgraph.logic' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def load_definition(path: str | os.PathLike[str]) -> Definition:
    """:func:`slotgraph.config.load_definition` plus the logic layer's publish-time checks."""
    from slotgraph.config import load_definition as load
    from slotgraph.logic.validation import logic_issues

    return load(path, checks=(logic_issues,))
