"""``slotgraph chat --show-state``: what one turn did and where the conversation stands, as a rich panel.

:func:`turn_summary` reads a turn's :class:`~slotgraph.runtime.TurnResult` (its events: tool calls with their
arguments and results, refusals with their reasons) and the session state after it, and asks the engine's
pure functions about the next step: the slot it will ask for, the slots still to collect, the slots whose
condition is false (inactive), and the tools the model will *not* see when the person answers (computed for
the next turn, so ``confirm_pending`` is never listed as hidden while a readback waits for exactly that).
:func:`state_panel` renders it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from slotgraph.config import CompiledDag
from slotgraph.engine import Ask, AwaitReadback, compute_dag_state, compute_hidden_tools
from slotgraph.engine.stages.changes import changing
from slotgraph.engine.state import TERMINAL_STATUSES
from slotgraph.names import CANDIDATES, CHANGES, HELD
from slotgraph.runtime import Event, RefusalEvent, ToolCallEvent, ToolResultEvent

__all__ = ["ToolStep", "TurnSummary", "state_panel", "turn_summary"]

_VALUE_LIMIT = 120


@dataclass(frozen=True, slots=True)
class ToolStep:
    """One tool call of the turn: who made it, with what, and what came back (or why it was refused)."""

    name: str
    args: Mapping[str, Any]
    origin: str
    result: Any = None
    failed: bool = False
    refused: str | None = None
    refusal_message: str = ""


@dataclass(frozen=True, slots=True)
class TurnSummary:
    """Everything the panel shows."""

    status: str
    filled: Mapping[str, Any]
    pending: Mapping[str, Any]
    deferred: Mapping[str, Any]
    steps: tuple[ToolStep, ...] = ()
    asking: str | None = None
    to_collect: tuple[str, ...] = ()
    inactive: tuple[str, ...] = ()
    hidden_next: tuple[str, ...] = ()
    tasks: Mapping[str, bool] = field(default_factory=dict)
    directive: str | None = None
    variables: Mapping[str, Any] | None = None
    """The agent's logic variables (agents with a ``logic`` block), else None."""
    early: Mapping[str, Any] = field(default_factory=dict)
    """Early answers waiting for their slot (``_candidates``)."""
    changing: Mapping[str, Any] = field(default_factory=dict)
    """Confirmed values being changed: slot → the confirmed value (``_changes``)."""
    held: Mapping[str, Any] = field(default_factory=dict)
    """Confirmed values set aside after a change upstream (``_held``)."""


def _steps(events: Iterable[Event]) -> tuple[ToolStep, ...]:
    calls: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    for event in events:
        if isinstance(event, ToolCallEvent):
            calls[event.call_id] = {"name": event.name, "args": dict(event.args), "origin": event.origin}
            order.append(event.call_id)
        elif isinstance(event, ToolResultEvent) and event.call_id in calls:
            calls[event.call_id].update(result=event.result, failed=event.failed)
        elif isinstance(event, RefusalEvent):
            key = f"refused:{event.call_id}:{len(order)}"
            calls[key] = {
                "name": event.name,
                "args": dict(event.args),
                "origin": "model",
                "refused": event.refused,
                "refusal_message": event.message,
            }
            order.append(key)
    return tuple(ToolStep(**calls[key]) for key in order)


def _task_outcomes(dag: CompiledDag, results: Mapping[str, Any]) -> dict[str, bool]:
    outcomes: dict[str, bool] = {}
    for task in dag.tasks:
        if task.name in results:
            result = results[task.name]
            ok = isinstance(result, Mapping) and (
                task.success_check is None or bool(result.get(task.success_check))
            )
            outcomes[task.name] = ok
    return outcomes


def turn_summary(
    dag: CompiledDag,
    state: Mapping[str, Any],
    events: Sequence[Event] = (),
    directive: str | None = None,
    variables: Mapping[str, Any] | None = None,
) -> TurnSummary:
    """The panel's content for the session ``state`` after a turn that produced ``events``."""
    filled: Mapping[str, Any] = state.get("filled") or {}
    pending: Mapping[str, Any] = state.get("pending") or {}
    deferred: Mapping[str, Any] = state.get("deferred") or {}
    results: Mapping[str, Any] = state.get("task_results") or {}
    status = str(state.get("status", "in_progress"))
    terminal = status in TERMINAL_STATUSES
    asking = None
    if not terminal:
        try:
            action = compute_dag_state(dag, filled, pending, deferred, results, changing=changing(state))
        except Exception:  # a state the engine refuses asks nothing; the turn itself reported why
            action = None
        if isinstance(action, Ask):
            asking = action.slot
        elif isinstance(action, AwaitReadback):
            asking = "confirmation of " + ", ".join(action.slots)
    inactive = tuple(s.name for s in dag.slots if not s.is_active(filled))
    to_collect = tuple(
        s.name
        for s in dag.slots
        if (s.is_user or s.is_event) and s.name not in filled and s.name not in inactive
    )
    hidden = compute_hidden_tools(dag, filled, pending, deferred, fresh_pending=False, terminal=terminal)
    return TurnSummary(
        status=status,
        filled=filled,
        pending=pending,
        deferred=deferred,
        steps=_steps(events),
        asking=asking,
        to_collect=to_collect,
        inactive=inactive,
        hidden_next=tuple(hidden),
        tasks=_task_outcomes(dag, results),
        directive=directive,
        variables=variables,
        early=state.get(CANDIDATES) or {},
        changing=state.get(CHANGES) or {},
        held=state.get(HELD) or {},
    )


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= _VALUE_LIMIT else text[: _VALUE_LIMIT - 1] + "…"


def _call(step: ToolStep) -> str:
    args = ", ".join(f"{k}={_short(v)}" for k, v in step.args.items())
    who = " [dim](engine)[/dim]" if step.origin == "engine" else ""
    head = f"{escape(step.name)}({escape(args)}){who}"
    if step.refused is not None:
        return f"{head} [yellow]refused: {escape(step.refused)}[/yellow] — {escape(step.refusal_message)}"
    if step.failed:
        return f"{head} [red]→ failed:[/red] {escape(_short(step.result))}"
    return f"{head} → {escape(_short(step.result))}"


def _names(names: Iterable[str]) -> str:
    listed = list(names)
    return escape(", ".join(listed)) if listed else "—"


def _values(values: Mapping[str, Any]) -> str:
    return escape(", ".join(f"{k}={_short(v)}" for k, v in values.items())) if values else "—"


def state_panel(summary: TurnSummary) -> Panel:
    """A rich panel: the turn's tool calls, then the conversation's position."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    if summary.steps:
        for index, step in enumerate(summary.steps):
            table.add_row("tool calls" if index == 0 else "", _call(step))
    else:
        table.add_row("tool calls", "— (none this turn)")
    table.add_row("status", escape(summary.status))
    table.add_row("asking next", escape(summary.asking or "—"))
    table.add_row("to collect", _names(summary.to_collect))
    table.add_row("inactive", _names(summary.inactive))
    table.add_row("filled", _values(summary.filled))
    table.add_row("pending", _values(summary.pending))
    table.add_row("deferred", _values(summary.deferred))
    if summary.early:
        table.add_row("early answers", _values(summary.early) + " [dim](used once askable)[/dim]")
    if summary.changing:
        table.add_row(
            "changing", _values(summary.changing) + " [dim](confirmed value, until the change is)[/dim]"
        )
    if summary.held:
        table.add_row("held", _values(summary.held) + " [dim](re-checked after a change)[/dim]")
    table.add_row("tasks", _names(f"{name} {'✓' if ok else '✗'}" for name, ok in summary.tasks.items()))
    table.add_row("hidden tools", _names(summary.hidden_next) + " [dim](when you answer)[/dim]")
    table.add_row("directive", escape(summary.directive or "—"))
    if summary.variables is not None:
        table.add_row("variables", _values(summary.variables))
    return Panel(table, title="turn", expand=False)
