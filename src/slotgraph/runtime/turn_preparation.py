"""Before every model call: one engine invocation, tool visibility and the instruction
(docs/runtime.md#one-turn).

:func:`prepare_call` decides what the next model call looks like:

- **terminal status** (``complete``/``escalated``): the engine is not invoked and the state is not touched
  (docs/engine.md#terminal-states). The framework suffix is removed, and the model sees only tools that cannot
  change slot state — no setters, no executors, no readback tools — which keeps ``end_session`` and any
  informational tools of the agent, and the config's ``bootstrap`` routing tool (with ``reset_on_complete`` it
  restarts the flow). The conversation cannot otherwise regress to slot filling.
- **gate closed** — the engine's own verdict (:func:`slotgraph.engine.gate_open`: a gate slot that is active
  and has no value in ``filled``, ``pending`` or ``deferred``): the engine is skipped; the model sees every
  setter whose slot has no unmet ``requires``, with the collection protocol and its tool-selection guide;
  the user's text is remembered in the session state (``_gate_user_text``, the runtime's key: the engine
  never sees it) and passed to the first engine invocation after the gate opens as its explicit
  ``gate_user_text`` input, which the engine gives back to the model as ``<user_context>``.
- otherwise the engine runs; its ``hide_tools`` (plus every executor, always) are removed from the model's
  tools, and the phase suffix replaces the previous one after the sentinel. While the flow is active (a
  DAG with slots that still has something to ask, read back or fire) ``end_session`` is hidden too, as the
  platform hides it: ending mid-flow is the engine's ``on_exhaust``, not the model's choice. ``escalate``
  stays: a person who asks for a human mid-flow is handed over.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from slotgraph.config.compiled import CompiledDag
from slotgraph.engine.actions import EngineAction, Reason
from slotgraph.engine.gate import gate_open
from slotgraph.engine.state import TERMINAL_STATUSES
from slotgraph.names import END_SESSION, GATE_USER_TEXT
from slotgraph.runtime.builtin_tools import READBACK_TOOLS
from slotgraph.runtime.engine_port import Engine
from slotgraph.runtime.fencing import fence_text, fence_value
from slotgraph.runtime.instructions import build_phase_suffix, inject_suffix
from slotgraph.runtime.tools import ToolRegistry

__all__ = ["GATE_TEXT_KEY", "TERMINAL_STATUSES", "Preparation", "is_terminal", "prepare_call"]

GATE_TEXT_KEY = GATE_USER_TEXT


@dataclass(frozen=True, slots=True)
class Preparation:
    """The state after the engine ran, its action, the tools the model may see and the instruction."""

    sm: dict[str, Any]
    action: EngineAction | None
    """The engine's action; ``None`` when the engine did not run (terminal status, closed gate)."""
    visible: tuple[str, ...]
    instruction: str
    engine_ran: bool
    directive: str = ""
    notes: Mapping[str, Any] = field(default_factory=dict)
    debug_log: tuple[Mapping[str, Any], ...] = ()


def is_terminal(sm: Mapping[str, Any]) -> bool:
    return sm.get("status") in TERMINAL_STATUSES


def _slot_tools(dag: CompiledDag) -> set[str]:
    """Tools that change slot state; never the ``bootstrap`` routing tool (it re-opens a finished flow)."""
    tools = set(dag.setter_slots) | set(dag.executor_tasks) | set(READBACK_TOOLS)
    if dag.bootstrap is not None:
        tools.discard(dag.bootstrap.tool)
    return tools


def _closing_tools(dag: CompiledDag, action: EngineAction) -> set[str]:
    """``end_session`` while a flow is active — a DAG with slots that still has something to ask, read back
    or fire: as on the platform, the model cannot end a conversation in the middle of a flow (only the
    engine's own ``on_exhaust`` does). Once nothing is left (``done``) or the flow is finished, it is offered
    again. ``escalate`` is never hidden: a person asking for a human is handed over."""
    active = dag.slots and action.phase != "terminal" and action.reason is not Reason.DONE
    return {END_SESSION} if active else set()


def _blocked_setters(dag: CompiledDag, sm: Mapping[str, Any]) -> set[str]:
    """Setters none of whose slots can be set yet (every slot has an unmet ``requires``)."""
    filled = sm.get("filled") or {}
    blocked = set()
    for setter, slots in dag.setter_slots.items():
        if all(any(r not in filled for r in dag.slot(s).requires) for s in slots):
            blocked.add(setter)
    return blocked


def prepare_call(
    *,
    engine: Engine,
    dag: CompiledDag,
    registry: ToolRegistry,
    sm: Mapping[str, Any],
    instruction: str,
    last_user_text: str,
    event_data: Mapping[str, Any] | None,
    channel: str | None,
    debug: bool,
    variables: Mapping[str, Any] | None = None,
) -> Preparation:
    """Run the engine for the next model call (or skip it: terminal status, closed gate)."""
    if is_terminal(sm):
        slot_tools = _slot_tools(dag)
        visible = tuple([n for n in registry.names if n not in slot_tools])
        return Preparation(dict(sm), None, visible, inject_suffix(instruction, None), engine_ran=False)
    if not gate_open(dag, sm):
        new_sm = dict(sm)
        if last_user_text:
            new_sm[GATE_TEXT_KEY] = last_user_text
        hidden = set(dag.executor_tasks) | set(READBACK_TOOLS) | _blocked_setters(dag, new_sm)
        visible = tuple([n for n in registry.names if n not in hidden])
        suffix = build_phase_suffix(dag, None, new_sm, hidden=hidden)
        return Preparation(new_sm, None, visible, inject_suffix(instruction, suffix), engine_ran=False)
    extra: dict[str, Any] = {"variables": variables} if variables is not None else {}
    engine_sm = sm
    if GATE_TEXT_KEY in sm:  # the gate just opened: the kept text is an input of this invocation
        engine_sm = {key: value for key, value in sm.items() if key != GATE_TEXT_KEY}
        gate_text = str(sm.get(GATE_TEXT_KEY) or "")
        if gate_text:
            extra["gate_user_text"] = fence_text(gate_text)  # untrusted, like the user's text below
    outcome = engine.invoke(
        dag,
        engine_sm,
        last_user_text=fence_text(last_user_text),  # untrusted: never a framework tag in a directive
        event_data=fence_value(event_data),
        channel=channel,
        debug=debug,
        **extra,
    )
    new_sm = outcome.sm
    action = outcome.action
    hidden = set(action.hidden_tools) | set(dag.executor_tasks) | _closing_tools(dag, action)
    visible = tuple([n for n in registry.names if n not in hidden])
    suffix = build_phase_suffix(dag, action, new_sm, hidden=hidden)
    return Preparation(
        new_sm,
        action,
        visible,
        inject_suffix(instruction, suffix),
        engine_ran=True,
        directive=action.message or "",
        debug_log=outcome.debug_log,
    )
