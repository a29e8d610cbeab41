"""What the engine derives once per compiled config: :class:`EnginePlan`.

Every invocation walks the same parts of the config in the same way — the slots that can be asked or
announced, the setters whose visibility depends on their slots, the tools ``hide_tools`` may name, the order
in which pending values are read back. :func:`plan_of` builds these views on the first invocation for a
:class:`~slotgraph.config.CompiledDag` and keeps them in the DAG's ``derived`` memo, so later invocations
read them instead of filtering and sorting the config again. A plan is a function of the compiled config
alone (never of a session's state), immutable, and shared freely between sessions and threads: two threads
that build it at once build equal plans and either one is kept.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Final

from slotgraph.config.compiled import CompiledDag, CompiledSlot
from slotgraph.engine.actions import Announce, Ask
from slotgraph.engine.state import CONFIRM_PENDING, REJECT_PENDING

__all__ = ["EnginePlan", "plan_of", "readback_order"]

_KEY: Final = "slotgraph.engine.plan"


@dataclass(frozen=True, slots=True)
class EnginePlan:
    """The engine's per-config views (see the module docstring)."""

    askable: tuple[tuple[CompiledSlot, Announce | Ask], ...]
    """The announce and user slots in declaration order, each with the decision that names it (an
    :class:`Announce` or an :class:`Ask`, made once: they are immutable values, and a frozen dataclass
    costs a microsecond or more to build): the candidates of the DAG decision's next announce or question."""
    user_slots: tuple[CompiledSlot, ...]
    """The user slots in declaration order (the question finder's candidates)."""
    setters: tuple[tuple[str, tuple[CompiledSlot, ...]], ...]
    """``(setter tool, its slots)`` in ``setter_slots`` order, for every setter whose visibility depends on
    its slots: neither an executor nor the ``bootstrap`` routing tool. Slots the config does not know are
    left out (they never want a setter)."""
    executor_tools: frozenset[str]
    """Tools that are always hidden (executors)."""
    all_tools: tuple[str, ...]
    """Every tool ``hide_tools`` may name, sorted (never the ``bootstrap`` routing tool)."""
    slot_index: Mapping[str, int]
    """Declaration position of every slot (readback order)."""
    defers: bool
    """Some task has ``readback_inputs``: values can be deferred and grouped (else deferred routing has
    nothing to do)."""


def plan_of(dag: CompiledDag) -> EnginePlan:
    """The plan of ``dag``, built on first use and kept with the DAG."""
    plan: EnginePlan | None = dag.derived.get(_KEY)
    if plan is None:
        plan = dag.derived[_KEY] = _build(dag)
    return plan


def _build(dag: CompiledDag) -> EnginePlan:
    bootstrap = dag.bootstrap.tool if dag.bootstrap is not None else None
    setters = []
    for tool, names in dag.setter_slots.items():
        if tool in dag.executor_tasks or tool == bootstrap:
            continue
        slots = tuple(dag.slot_by_name[name] for name in names if name in dag.slot_by_name)
        setters.append((tool, slots))
    tools: set[Any] = {*dag.setter_slots, *dag.executor_tasks, CONFIRM_PENDING, REJECT_PENDING}
    tools.discard(bootstrap)
    return EnginePlan(
        askable=tuple(
            (s, Announce(slot=s.name) if s.is_announce else Ask(slot=s.name))
            for s in dag.slots
            if s.is_announce or s.is_user
        ),
        user_slots=tuple(s for s in dag.slots if s.is_user),
        setters=tuple(setters),
        executor_tools=frozenset(dag.executor_tasks),
        all_tools=tuple(sorted(tools)),
        slot_index={s.name: i for i, s in enumerate(dag.slots)},
        defers=any(task.readback_inputs for task in dag.tasks),
    )


def readback_order(plan: EnginePlan, pending: Collection[str]) -> tuple[str, ...]:
    """The pending slots in declaration order, then those the config does not know, sorted by name."""
    index = plan.slot_index
    known = sorted((name for name in pending if name in index), key=index.__getitem__)
    return (*known, *sorted(name for name in pending if name not in index))
