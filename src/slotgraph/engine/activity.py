"""Which slots and tasks are active (docs/engine.md#conditions-and-deactivation): each ``condition`` evaluated
once per ``filled`` state.

A condition is a function of ``filled``. Within one engine invocation the same conditions are asked for again
and again — by auto-deactivation, the DAG decision, the announce cascade, the next-question finder and tool
visibility — while ``filled`` changes only at a few known points (an auto-promotion, a confirmation, an
announce, a task output or clear, an event pre-fill, a deactivation). :class:`Activity` remembers each
verdict for the current ``filled``; the code that changes ``filled`` calls :meth:`Activity.changed`, which
forgets them. As a safety net a change of ``len(filled)`` also forgets them.

An :class:`Activity` belongs to one invocation (or to one call of a public helper such as
:func:`slotgraph.engine.compute_dag_state`); it is never shared, so two sessions never see each other's
verdicts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from slotgraph.config.compiled import (
    CompiledCondition,
    CompiledDag,
    CompiledSlot,
    CompiledTask,
    condition_env,
)

__all__ = ["Activity"]


class Activity:
    """Memoised condition verdicts for one ``filled`` mapping (see the module docstring)."""

    __slots__ = ("_dag", "_env", "_filled", "_slots", "_tasks")

    def __init__(
        self, dag: CompiledDag, filled: Mapping[str, Any], variables: Mapping[str, Any] | None = None
    ) -> None:
        self._dag = dag
        self._filled: dict[str, Any] = filled if type(filled) is dict else dict(filled)
        """``filled`` itself (the engine's dict, read live); a copy of another mapping (public helpers)."""
        self._env = condition_env(self._filled, variables)
        """What conditions read: ``filled``, then the session variables (constant within an invocation)."""
        self._slots: dict[str, bool] = {}
        self._tasks: dict[str, bool] = {}

    @property
    def filled(self) -> dict[str, Any]:
        return self._filled

    def changed(self, names: Iterable[str] | None = None) -> None:
        """``filled`` changed (at ``names``; ``None``: anywhere): forget the verdicts that may depend on it.

        A verdict is kept when its condition provably reads none of ``names``
        (:attr:`~slotgraph.config.CompiledCondition.reads`).
        """
        if names is None:
            self._slots.clear()
            self._tasks.clear()
            return
        changed = frozenset(names)
        if not changed:
            return
        slot_by_name, task_by_name = self._dag.slot_by_name, self._dag.task_by_name
        for name in [n for n in self._slots if _stale(slot_by_name[n].condition, changed)]:
            del self._slots[name]
        for name in [n for n in self._tasks if _stale(task_by_name[n].condition, changed)]:
            del self._tasks[name]

    def slot_active(self, name: str) -> bool:
        """Whether slot ``name`` is active. Names the config does not know, and unconditional slots, are."""
        slot = self._dag.slot_by_name.get(name)
        if slot is None or slot.condition is None:
            return True
        verdict = self._slots.get(name)
        if verdict is None:
            verdict = self._slots[name] = slot.condition.is_active(self._env)
        return verdict

    def task_active(self, task: CompiledTask) -> bool:
        if task.condition is None:
            return True
        verdict = self._tasks.get(task.name)
        if verdict is None:
            verdict = self._tasks[task.name] = task.condition.is_active(self._env)
        return verdict

    def requires_met(self, slot: CompiledSlot) -> bool:
        """Every *active* slot in ``slot.requires`` is filled (an inactive requirement never blocks)."""
        filled = self._filled
        for name in slot.requires:  # noqa: SIM110 -- a plain loop: no generator per call (hot path)
            if name not in filled and self.slot_active(name):
                return False
        return True

    def task_ready(self, task: CompiledTask) -> bool:
        """All active inputs and active requires of ``task`` are filled."""
        filled = self._filled
        for name in task.inputs:
            if name not in filled and self.slot_active(name):
                return False
        for name in task.requires:  # noqa: SIM110 -- a plain loop: no generator per call (hot path)
            if name not in filled and self.slot_active(name):
                return False
        return True


def _stale(condition: CompiledCondition | None, changed: frozenset[str]) -> bool:
    reads = None if condition is None else condition.reads
    return reads is None or not reads.isdisjoint(changed)
