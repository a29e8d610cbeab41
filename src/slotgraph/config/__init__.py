"""Typed config of Slotgraph agents: loading, whole-config validation and compilation.

- :func:`load_dag` reads a DAG (file or the plain dict a host passes as ``raw_config``) and validates it;
- :func:`validate_dag` reports every error and warning at once, never raising for config problems;
- :func:`compile_config` turns a config into the engine's frozen :class:`CompiledDag` (cached by content);
- :func:`load_definition` reads an agent directory, ``agent.yaml`` or bare DAG file into a
  :class:`Definition`;
- :func:`dag_json_schema`, :func:`agent_json_schema` publish the JSON Schemas for editors.

Errors: :class:`ConfigError` (base, stable ``code``) → :class:`ConfigLoadError`,
:class:`ConfigValidationError` (``.issues``: every :class:`ConfigIssue`).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only; the names load lazily (below)
    from slotgraph.config.agent import AgentConfig, Definition, discover_tool_names, load_definition
    from slotgraph.config.compile import clear_compile_cache, compile_config, config_fingerprint
    from slotgraph.config.compiled import (
        CompiledCondition,
        CompiledDag,
        CompiledSlot,
        CompiledTask,
        Exhaust,
        ExhaustCall,
        FailurePolicy,
        Formatter,
        Responses,
        SlotValidation,
        SteerBack,
        ValidateAgainst,
    )
    from slotgraph.config.errors import (
        ConfigError,
        ConfigIssue,
        ConfigLoadError,
        ConfigValidationError,
        ValidationReport,
    )
    from slotgraph.config.formatters import compile_formatter
    from slotgraph.config.nodes import DagConfig, SlotConfig, TaskConfig
    from slotgraph.config.schema import agent_json_schema, dag_json_schema

__all__ = [
    "AgentConfig",
    "CompiledCondition",
    "CompiledDag",
    "CompiledSlot",
    "CompiledTask",
    "ConfigError",
    "ConfigIssue",
    "ConfigLoadError",
    "ConfigValidationError",
    "DagConfig",
    "Definition",
    "Exhaust",
    "ExhaustCall",
    "FailurePolicy",
    "Formatter",
    "Responses",
    "SlotConfig",
    "SlotValidation",
    "SteerBack",
    "TaskConfig",
    "ValidateAgainst",
    "ValidationReport",
    "agent_json_schema",
    "clear_compile_cache",
    "compile_config",
    "compile_formatter",
    "config_fingerprint",
    "dag_json_schema",
    "discover_tool_names",
    "load_dag",
    "load_definition",
    "validate_dag",
]

_EXPORTS: dict[str, str] = {
    **dict.fromkeys(("AgentConfig", "Definition", "discover_tool_names", "load_definition"), "agent"),
    **dict.fromkeys(("clear_compile_cache", "compile_config", "config_fingerprint"), "compile"),
    **dict.fromkeys(
        (
            "CompiledCondition",
            "CompiledDag",
            "CompiledSlot",
            "CompiledTask",
            "Exhaust",
            "ExhaustCall",
            "FailurePolicy",
            "Formatter",
            "Responses",
            "SlotValidation",
            "SteerBack",
            "ValidateAgainst",
        ),
        "compiled",
    ),
    **dict.fromkeys(
        ("ConfigError", "ConfigIssue", "ConfigLoadError", "ConfigValidationError", "ValidationReport"),
        "errors",
    ),
    "compile_formatter": "formatters",
    **dict.fromkeys(("DagConfig", "SlotConfig", "TaskConfig"), "nodes"),
    **dict.fromkeys(("agent_json_schema", "dag_json_schema"), "schema"),
}
"""The submodule of each public name (``slotgraph.config.<module>``). Names are imported on first use (PEP
562): the engine's spec-compatible entry needs only the compiler and the compiled types, not the agent
loader, YAML, the agent-logic models and the JSON schemas (~200 ms of a fresh process's start-up)."""


def __dir__() -> list[str]:
    return sorted({*__all__, *(n for n in globals() if n.startswith("__") and n.endswith("__"))})


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'slotgraph.config' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"slotgraph.config.{module}"), name)
    globals()[name] = value
    return value


def validate_dag(raw: Mapping[str, Any], *, tool_names: Collection[str] | None = None) -> ValidationReport:
    """Every error and warning of a raw DAG config in one pass; never raises for config problems.

    ``tool_names`` (the functions of the agent's tools module) enables the "tool not defined" checks.
    """
    from slotgraph.config.validation import validate_raw

    return validate_raw(raw, tool_names=tool_names)


def load_dag(source: str | os.PathLike[str] | Mapping[str, Any]) -> DagConfig:
    """Read a DAG config from a YAML/JSON file or a plain mapping and validate it fully.

    Raises :class:`ConfigLoadError` when a file cannot be read, :class:`ConfigValidationError` with every
    problem when the config is invalid. Issues of a file carry its name and the line/column of their
    location; a mapping has no positions.
    """
    from slotgraph.config.errors import ConfigValidationError
    from slotgraph.config.loader import read_located_mapping, read_mapping
    from slotgraph.config.nodes import DagConfig
    from slotgraph.config.validation import validate_raw

    if isinstance(source, Mapping):
        raw = read_mapping(source, what="DAG config")
        validate_raw(raw).raise_for_errors()
    else:
        raw, source_map = read_located_mapping(source, what="DAG config")
        report = validate_raw(raw)
        if report.errors:
            raise ConfigValidationError(
                (source_map.locate(i) for i in report.errors), source=os.fspath(source)
            )
    return DagConfig.model_validate(raw)
