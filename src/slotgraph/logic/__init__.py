"""Agent logic: typed session variables, ``#when`` prompt sections, prompt programs and lifecycle rules.

The layer between the runtime and the expression language. Natural-language instructions and deterministic
rules share one set of session variables (:class:`VariableStore`); every condition, value and argument is a
:mod:`slotgraph.expr` expression (``dot_paths`` dialect, so ``filled.party_size`` reads a slot).

* :mod:`~slotgraph.logic.variables` — the store: declarations, defaults seeded with setdefault, linked
  (read-only) variables, reads falling through to session metadata by presence, change notifications.
* :mod:`~slotgraph.logic.templates` / :mod:`~slotgraph.logic.render` — the instruction grammar and its
  renderer (``#when`` sections, ``{{name}}``, ``{{run}}``/``{{set}}``/``{{= }}`` statements).
* :mod:`~slotgraph.logic.tooling` — the tool-invoker interface the host provides, budgets, the run cache.
* :mod:`~slotgraph.logic.rules` — lifecycle rules and their typed :class:`RuleEvent`.
* :mod:`~slotgraph.logic.gates` — per-tool gates (``tool_logic:``): availability, bound arguments, captures.
* :mod:`~slotgraph.logic.set_variables` — the ``set_variables`` built-in's schema and writes.
* :mod:`~slotgraph.logic.guards` — response guards on the assistant's text, the decimal-safe sentence
  buffer, and their typed :class:`GuardEvent`.
* :mod:`~slotgraph.logic.topics` — topics (subagents): prompt takeover, ``current_topic``, the return stack,
  ``entry_when``/``return_when``, and their typed :class:`TopicEvent`.
* :mod:`~slotgraph.logic.session` — :class:`AgentLogic` (per agent) and :class:`LogicSession` (per session),
  the small interface a host drives.
* :mod:`~slotgraph.logic.validation` — publish-time checks; :func:`load_definition` is
  :func:`slotgraph.config.load_definition` with them.
"""

from __future__ import annotations

import os

from slotgraph.config import Definition
from slotgraph.config import load_definition as _load_definition
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


def load_definition(path: str | os.PathLike[str]) -> Definition:
    """:func:`slotgraph.config.load_definition` plus the logic layer's publish-time checks."""
    return _load_definition(path, checks=(logic_issues,))
