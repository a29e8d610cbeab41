"""Which tools the model may see now (docs/engine.md#tool-visibility): the sorted ``hide_tools`` list.

``hide_tools`` is drawn only from tools the config knows — its setters and executors — plus the readback
tools ``confirm_pending``/``reject_pending``; any other tool of the host is not the engine's business.

A slot's setter is *wanted* when the slot is

* unfilled, active and dependency-met (the model may capture it in any order), or
* in ``pending``/``deferred`` (inline correction) — except while the pending is *fresh* (it appeared since the
  previous invocation), when the setters of the pending slots are hidden so the model reads back first, or
* filled and ``changeable`` (the user may change it), or unfilled, active and ``accept_early`` even while
  its requires are unmet (the value is kept as a candidate).

A setter tool is visible when any of its slots wants it (a multi-slot setter is hidden only when every slot is
filled, inactive, dependency-blocked or fresh-pending). Executors are always hidden: tasks fire only through
the engine's ``function_call``. ``confirm_pending``/``reject_pending`` are visible only while values are
pending and not fresh. In a terminal state (``complete``/``escalated``) every config tool is hidden. The
``bootstrap`` routing tool is never hidden, not even when it is also a setter or the flow is finished: it is
how the user switches or restarts a flow.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from slotgraph.config.compiled import CompiledDag
from slotgraph.engine.dag import requires_met, slot_active
from slotgraph.engine.plan import plan_of
from slotgraph.engine.state import CONFIRM_PENDING, REJECT_PENDING, plain

__all__ = ["all_config_tools", "compute_hidden_tools"]


def all_config_tools(dag: CompiledDag) -> list[str]:
    """Every tool ``hide_tools`` may name, sorted (never the ``bootstrap`` routing tool)."""
    return list(plan_of(dag).all_tools)


def compute_hidden_tools(
    dag: CompiledDag,
    filled: Mapping[str, Any],
    pending: Mapping[str, Any],
    deferred: Mapping[str, Any],
    *,
    fresh_pending: bool,
    terminal: bool = False,
    variables: Mapping[str, Any] | None = None,
) -> list[str]:
    """The sorted list of config tools to hide from the model for this invocation.

    ``variables`` are the agent's session variables, which conditions read after ``filled``.
    """
    return _hidden(dag, plain(filled), plain(pending), plain(deferred), fresh_pending, terminal, variables)


def _hidden(
    dag: CompiledDag,
    filled: dict[str, Any],
    pending: dict[str, Any],
    deferred: dict[str, Any],
    fresh_pending: bool,
    terminal: bool,
    variables: Mapping[str, Any] | None,
) -> list[str]:
    """:func:`compute_hidden_tools` on plain dicts."""
    plan = plan_of(dag)
    if terminal:
        return list(plan.all_tools)
    hidden: set[str] = set(plan.executor_tools)
    if not pending or fresh_pending:
        hidden.update((CONFIRM_PENDING, REJECT_PENDING))
    for tool, slots in plan.setters:
        for slot in slots:
            # The setter is wanted by ``slot`` (see the module docstring).
            name = slot.name
            if not slot_active(dag, name, filled, variables):
                continue
            if name in filled and not slot.changeable:
                continue
            if name in pending:
                if fresh_pending:
                    continue
                break
            if name in filled or name in deferred or slot.accept_early:
                break
            if requires_met(dag, slot, filled, variables):
                break
        else:
            hidden.add(tool)
    return sorted(hidden)
