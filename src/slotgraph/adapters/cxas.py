"""The spec-compatible engine entry (DESIGN.md "Public contracts" 1; spec §3, §6a, §7.1).

The original platform's tool interface, on plain data:

* :func:`slot_filling_engine` ``(input_data) -> {"action": {...}, "sm": {...}}`` — ``input_data`` carries
  ``raw_config`` (the DAG config exactly as the spec writes it), ``sm``, ``last_user_text`` (``""`` on
  post-tool and first-turn invocations) and optionally ``event_data``, ``debug``, ``channel``. With ``debug``
  the result also has ``_debug_log`` (a list of ``{"tag": ..., ...}`` entries, spec §19.4);
* :func:`after_tool` ``(sm, raw_config, tool_name, args, result) -> sm`` — tool-result routing (§6a);
* :func:`confirm_pending` / :func:`reject_pending` ``(sm) -> sm`` — the readback tools (§7.1).

The input ``sm`` is never mutated; the returned one is new. The raw config is compiled through
:func:`slotgraph.config.compile_config` (cached by content, so repeated calls with the same config compile
once). Config problems raise :class:`slotgraph.config.ConfigValidationError`; any other malformed input raises
:class:`slotgraph.engine.EngineInputError` / :class:`~slotgraph.engine.EngineStateError` with a ``code`` and a
fix. The transition prefix is chosen deterministically (the first of ``confirm_transition_prefix``), so the
same input always gives the same output — a host wanting variety calls :func:`slotgraph.engine.run_engine`
with its own ``choose``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from slotgraph.config import CompiledDag, compile_config
from slotgraph.engine import EngineInputError, run_engine
from slotgraph.engine import after_tool as _after_tool
from slotgraph.engine import confirm_pending as _confirm_pending
from slotgraph.engine import reject_pending as _reject_pending

__all__ = ["after_tool", "confirm_pending", "reject_pending", "slot_filling_engine"]

_KNOWN_KEYS = frozenset({"raw_config", "sm", "last_user_text", "event_data", "debug", "channel"})


def _compiled(raw_config: Any, where: str) -> CompiledDag:
    if isinstance(raw_config, CompiledDag):
        return raw_config
    if not isinstance(raw_config, Mapping):
        raise EngineInputError(
            f"raw_config must be the DAG config dict, got {type(raw_config).__name__}",
            code="invalid_raw_config",
            where=where,
            fix="pass the dict the {config_id}_dag tool returns (slots, tasks, ...)",
        )
    return compile_config(raw_config)


def slot_filling_engine(input_data: dict[str, Any]) -> dict[str, Any]:
    """One engine invocation with the spec's plain-dict interface."""
    where = "slot_filling_engine(input_data)"
    if not isinstance(input_data, Mapping):
        raise EngineInputError(
            f"input_data must be a dict, got {type(input_data).__name__}",
            code="invalid_input_data",
            where=where,
            fix="pass {'raw_config': ..., 'sm': ..., 'last_user_text': ...}",
        )
    if "raw_config" not in input_data:
        raise EngineInputError(
            "missing 'raw_config'",
            code="missing_raw_config",
            where=where,
            fix="add the DAG config dict under 'raw_config'",
        )
    unknown = sorted(str(k) for k in input_data if k not in _KNOWN_KEYS)
    if unknown:
        raise EngineInputError(
            f"unknown keys {unknown}",
            code="unknown_input_key",
            where=where,
            fix=f"use only {sorted(_KNOWN_KEYS)}",
        )
    dag = _compiled(input_data["raw_config"], f"{where}['raw_config']")
    sm = input_data.get("sm")
    if sm is None:
        sm = {}
    last_user_text = input_data.get("last_user_text")
    debug = input_data.get("debug", False)
    if not isinstance(debug, bool):
        raise EngineInputError(
            f"'debug' must be true or false, got {debug!r}",
            code="invalid_debug",
            where=where,
            fix="pass a bool",
        )
    result = run_engine(
        dag,
        sm,
        last_user_text="" if last_user_text is None else last_user_text,
        event_data=input_data.get("event_data"),
        channel=input_data.get("channel"),
        debug=debug,
    )
    out: dict[str, Any] = {"action": result.action, "sm": result.sm}
    if debug:
        out["_debug_log"] = list(result.debug_log)
    return out


def after_tool(
    sm: dict[str, Any], raw_config: Any, tool_name: str, args: Mapping[str, Any] | None, result: Any
) -> dict[str, Any]:
    """Route a tool result into a new state (spec §6a)."""
    return _after_tool(sm, _compiled(raw_config, "after_tool(raw_config)"), tool_name, args, result)


def confirm_pending(sm: dict[str, Any]) -> dict[str, Any]:
    """The ``confirm_pending`` tool: pending values move to ``filled``, ``_readback_transition`` is set."""
    return _confirm_pending(sm)


def reject_pending(sm: dict[str, Any]) -> dict[str, Any]:
    """The ``reject_pending`` tool: the rejection is recorded and applied at the next invocation/turn."""
    return _reject_pending(sm)
