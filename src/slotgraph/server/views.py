"""What the API shows of a session: wire events, the transcript, the slot view — never internals.

A tool that raises leaves its exception text in two places the runtime keeps for the model and the engine:
the failed tool result and, for a task executor, ``task_results[task]["error"]`` (``"<ExcType>: message"``).
Neither reaches the wire: failed results become a fixed message and exception-shaped task errors are
replaced (the full text is in the server log, where the runtime wrote it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from slotgraph.config import CompiledDag
from slotgraph.config.compiled import condition_env
from slotgraph.engine import Ask, compute_dag_state
from slotgraph.logic.topics import TOPIC_VARIABLE
from slotgraph.names import CANDIDATES, CHANGES, HELD, READBACK_TOOLS, SESSION_ENDING_TOOLS
from slotgraph.runtime import Agent, Event, StateSnapshotEvent, ToolResultEvent, event_to_json

__all__ = [
    "TOOL_FAILED_MESSAGE",
    "agents_view",
    "dag_in_play",
    "public_event",
    "public_state",
    "session_view",
    "transcript",
]

TOOL_FAILED_MESSAGE = "The tool failed; the details are in the server log."
_EXCEPTION_TEXT = re.compile(r"^[A-Za-z_][\w.]*: ")


def _json_safe(value: Any) -> Any:
    """``value`` as JSON data (a new structure): mappings become dicts with string keys, lists and tuples
    lists, anything that is not JSON its ``str``."""
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def public_state(sm: Mapping[str, Any]) -> dict[str, Any]:
    """The session state as JSON, exception texts in task results replaced."""
    state: dict[str, Any] = _json_safe(sm)
    results = state.get("task_results")
    if isinstance(results, dict):
        for name, result in list(results.items()):
            error = result.get("error") if isinstance(result, dict) else None
            if isinstance(error, str) and _EXCEPTION_TEXT.match(error):
                results[name] = {**result, "error": TOOL_FAILED_MESSAGE}
    return state


def public_event(event: Event) -> dict[str, Any]:
    """One event as JSON for the wire."""
    if isinstance(event, ToolResultEvent) and event.failed:
        return {
            "kind": event.kind,
            "call_id": event.call_id,
            "name": event.name,
            "result": {"error": True, "message": TOOL_FAILED_MESSAGE},
            "failed": True,
            "duration_ms": event.duration_ms,
        }
    if isinstance(event, StateSnapshotEvent):
        return {"kind": event.kind, "after_tool": event.after_tool, "state": public_state(event.state)}
    data: dict[str, Any] = _json_safe(event_to_json(event))
    return data


def _field(message: Any, name: str) -> Any:
    if isinstance(message, Mapping):
        return message.get(name)
    return getattr(message, name, None)


def transcript(history: Iterable[Any]) -> list[dict[str, Any]]:
    """The conversation as ``{"role", "text"}`` / ``{"role": "tool_call", "name", "args"}`` entries.

    Tool results stay out (they may hold a tool's exception text); the events of each turn carry them.
    """
    out: list[dict[str, Any]] = []
    for message in history:
        role = _field(message, "role")
        if role == "user":
            entry: dict[str, Any] = {"role": "user", "text": str(_field(message, "text") or "")}
            if _field(message, "event"):
                entry["event"] = str(_field(message, "event"))
            out.append(entry)
        elif role == "assistant" and _field(message, "calls") is not None:
            for call in _field(message, "calls") or ():
                out.append(
                    {
                        "role": "tool_call",
                        "name": str(_field(call, "name")),
                        "args": _json_safe(_field(call, "args") or {}),
                    }
                )
        elif role == "assistant":
            out.append({"role": "agent", "text": str(_field(message, "text") or "")})
    return out


def _asking(dag: CompiledDag, sm: Mapping[str, Any]) -> str | None:
    if sm.get("status", "in_progress") != "in_progress" or not sm:
        return None
    try:
        action = compute_dag_state(
            dag,
            sm.get("filled") or {},
            sm.get("pending") or {},
            sm.get("deferred") or {},
            sm.get("task_results") or {},
        )
    except Exception:  # a state the engine refuses has nothing being asked; the turn itself reports why
        return None
    return action.slot if isinstance(action, Ask) else None


def _tasks(dag: CompiledDag, sm: Mapping[str, Any]) -> list[dict[str, Any]]:
    results = sm.get("task_results") or {}
    out: list[dict[str, Any]] = []
    for task in dag.tasks:
        if task.name not in results:
            continue
        result = results[task.name]
        ok = True
        if task.success_check and isinstance(result, Mapping):
            ok = bool(result.get(task.success_check))
        out.append({"name": task.name, "tool": task.tool, "succeeded": ok})
    return out


def _inactive(dag: CompiledDag, sm: Mapping[str, Any], variables: Mapping[str, Any] | None) -> list[str]:
    env = condition_env(sm.get("filled") or {}, variables)
    return [slot.name for slot in dag.slots if not slot.is_active(env)]


def dag_in_play(
    agent: Agent,
    sm: Mapping[str, Any],
    topic_states: Mapping[str, Mapping[str, Any]],
    variables: Mapping[str, Any] | None,
) -> tuple[CompiledDag, Mapping[str, Any], str | None]:
    """The DAG the conversation is on and its state: the active topic's own when it has one (with its id),
    else the agent's (``None``)."""
    topic = (variables or {}).get(TOPIC_VARIABLE)
    if isinstance(topic, str) and topic in agent.topic_dags:
        return agent.topic_dags[topic], topic_states.get(topic) or {}, topic
    return agent.dag, sm, None


def agents_view(states: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every agent's slots of a multi-agent session (``Session.agent_states``), for the playground."""
    out: dict[str, dict[str, Any]] = {}
    for name, sm in states.items():
        state = public_state(sm)
        out[name] = {
            "status": str(sm.get("status", "in_progress")) if sm else "not_started",
            "filled": state.get("filled") or {},
            "pending": state.get("pending") or {},
            "deferred": state.get("deferred") or {},
        }
    return out


def _spoken(dag: CompiledDag, sm: Mapping[str, Any]) -> dict[str, str]:
    """How the agent reads each value back (the slot's formatter), for the slots read back that have one."""
    out: dict[str, str] = {}
    for part in ("deferred", "pending", "filled"):  # a filled value wins over one being changed
        values = sm.get(part) or {}
        for slot in dag.slots:
            if slot.requires_readback and slot.name in values:
                out[slot.name] = str(slot.formatter(values[slot.name]))
    return out


def _hidden_by_the_dag(dag: CompiledDag, hidden: Sequence[str]) -> list[str]:
    """The agent's own tools among ``hidden``: not the task executors (the engine runs them, never the
    model), the built-in readback tools (offered only while an answer to a readback is awaited) nor
    ``end_session`` (hidden while a flow is active, by the runtime's rule)."""
    built_in = READBACK_TOOLS | SESSION_ENDING_TOOLS
    return sorted(name for name in hidden if name not in dag.executor_tasks and name not in built_in)


def session_view(
    dag: CompiledDag,
    sm: Mapping[str, Any],
    *,
    hidden_tools: Sequence[str] | None = None,
    visible_tools: Sequence[str] | None = None,
    directive: str | None = None,
    variables: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What the playground shows: slots by state and how each value is read back (``spoken``), tasks
    fired, the slot asked, inactive slots, the tools the model could call and the agent's tools the DAG hid
    at the last call, directive — and the values waiting beside the slots: early answers (``candidates``),
    confirmed values being changed (``changes``: slot → the confirmed value) and values held after a change
    (``held``)."""
    state = public_state(sm)
    return {
        "status": str(sm.get("status", "in_progress")),
        "filled": state.get("filled") or {},
        "pending": state.get("pending") or {},
        "deferred": state.get("deferred") or {},
        "candidates": state.get(CANDIDATES) or {},
        "changes": state.get(CHANGES) or {},
        "held": state.get(HELD) or {},
        "tasks": _tasks(dag, sm),
        "asking": _asking(dag, sm),
        "inactive": _inactive(dag, sm, variables),
        "hidden_tools": _hidden_by_the_dag(dag, hidden_tools) if hidden_tools is not None else None,
        "visible_tools": sorted(visible_tools) if visible_tools is not None else None,
        "spoken": _spoken(dag, sm),
        "directive": directive,
        "variables": _json_safe(dict(variables or {})),
    }
