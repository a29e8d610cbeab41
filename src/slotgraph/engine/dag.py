"""The pure DAG decision (docs/engine.md#the-dag-decision) and the activity predicates everything else shares.

:func:`compute_dag_state` is a strict priority cascade over *copies it never mutates*:

1. **fire** — the first task, in declaration order, that is active, has not succeeded, and whose *active*
   ``inputs`` and ``requires`` are all in ``filled`` (none of them being changed, ``changing``); its
   ``args`` are the active inputs except announce slots
   (an announce's completion bit is never a task argument). When that task is ``parallel``, every
   later ``parallel`` task that is ready too and independent of the group (neither reads what the other
   writes) fires in the same decision (``Fire.parallel``);
2. **awaiting readback** — ``pending`` is non-empty;
3. **announce / next question** — the first slot, in declaration order, that is not in
   ``filled``/``pending``/``deferred``, is active, has its requires met, and is an announce slot or a user
   slot;
4. **all done**.

Inactive slots (their ``condition`` is false) never block: they are skipped as questions, dropped from
task inputs and requires, and count as met when another slot requires them. A condition reads ``filled``,
then the agent's session ``variables`` (a filled slot wins); it is evaluated whenever it is asked about.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from types import MappingProxyType
from typing import Any, Final

from slotgraph.config.compiled import CompiledDag, CompiledSlot, CompiledTask, condition_env
from slotgraph.engine.actions import AllDone, AwaitReadback, DagAction, Fire
from slotgraph.engine.plan import plan_of, readback_order
from slotgraph.engine.state import plain

__all__ = [
    "compute_dag_state",
    "find_next_question",
    "requires_met",
    "slot_active",
    "task_active",
    "task_ready",
    "task_result_ok",
    "task_succeeded",
]

_EMPTY: Mapping[str, Any] = MappingProxyType({})
ALL_DONE: Final = AllDone()
"""The one "nothing to do" decision (an immutable value: made once)."""


def slot_active(
    dag: CompiledDag, name: str, filled: Mapping[str, Any], variables: Mapping[str, Any] | None = None
) -> bool:
    """Whether slot ``name`` is active now. Names the config does not know count as active."""
    slot = dag.slot_by_name.get(name)
    return slot is None or slot.is_active(condition_env(filled, variables))


def task_active(
    task: CompiledTask, filled: Mapping[str, Any], variables: Mapping[str, Any] | None = None
) -> bool:
    return task.is_active(condition_env(filled, variables))


def requires_met(
    dag: CompiledDag,
    slot: CompiledSlot,
    filled: Mapping[str, Any],
    variables: Mapping[str, Any] | None = None,
) -> bool:
    """Every *active* slot in ``slot.requires`` is filled (an inactive requirement never blocks)."""
    return _all_filled_or_inactive(dag, slot.requires, filled, variables)


def task_result_ok(task: CompiledTask, result: Any) -> bool:
    """The success rule (docs/engine.md#the-dag-decision): ``success_check`` truthy (no check: success) AND
    every declared output key present. A result that is not a mapping is a failure."""
    if not isinstance(result, Mapping):
        return False
    if task.success_check is not None and not result.get(task.success_check):
        return False
    return all(key in result for key in task.outputs)


def task_succeeded(task: CompiledTask, task_results: dict[str, Any]) -> bool:
    """``task_results`` holds the last result of every task, failed ones included."""
    return task.name in task_results and task_result_ok(task, task_results[task.name])


def task_ready(
    dag: CompiledDag,
    task: CompiledTask,
    filled: Mapping[str, Any],
    variables: Mapping[str, Any] | None = None,
) -> bool:
    """All active inputs and active requires of ``task`` are filled."""
    return _all_filled_or_inactive(dag, (*task.inputs, *task.requires), filled, variables)


def _all_filled_or_inactive(
    dag: CompiledDag, names: Collection[str], filled: Mapping[str, Any], variables: Mapping[str, Any] | None
) -> bool:
    return all(name in filled or not slot_active(dag, name, filled, variables) for name in names)


def _independent(a: CompiledTask, b: CompiledTask) -> bool:
    """Neither task reads (``inputs``/``requires``) a slot the other one writes (``outputs``), and they do not
    write the same slot: running them in either order, or at once, gives the same state."""
    reads_a, reads_b = {*a.inputs, *a.requires}, {*b.inputs, *b.requires}
    writes_a, writes_b = set(a.outputs.values()), set(b.outputs.values())
    return reads_a.isdisjoint(writes_b) and reads_b.isdisjoint(writes_a) and writes_a.isdisjoint(writes_b)


def _fire(
    dag: CompiledDag, task: CompiledTask, filled: dict[str, Any], variables: Mapping[str, Any] | None
) -> Fire:
    """An input is passed to the tool when it is filled and active — and not an announce slot, whose value
    (a completion bit) is never a task argument; it still gates the fire."""
    args = {}
    for name in task.inputs:
        if name not in filled or not slot_active(dag, name, filled, variables):
            continue
        slot = dag.slot_by_name.get(name)
        if slot is None or not slot.is_announce:
            args[name] = filled[name]
    return Fire(task=task.name, tool=task.tool, args=args)


def compute_dag_state(
    dag: CompiledDag,
    filled: Mapping[str, Any],
    pending: Mapping[str, Any] = _EMPTY,
    deferred: Mapping[str, Any] = _EMPTY,
    task_results: Mapping[str, Any] = _EMPTY,
    variables: Mapping[str, Any] | None = None,
    changing: Collection[str] = frozenset(),
) -> DagAction:
    """Decide what happens next. Pure: the same arguments always give the same (equal) action.

    ``variables`` are the agent's session variables, which conditions read after ``filled``.
    ``changing`` names slots whose confirmed value the user is changing (``_changes``): a task that reads one
    does not fire until the change is confirmed or rejected.
    """
    return _decide(
        dag, plain(filled), plain(pending), plain(deferred), plain(task_results), variables, changing
    )


def _decide(
    dag: CompiledDag,
    filled: dict[str, Any],
    pending: dict[str, Any],
    deferred: dict[str, Any],
    task_results: dict[str, Any],
    variables: Mapping[str, Any] | None,
    changing: Collection[str],
) -> DagAction:
    """:func:`compute_dag_state` on plain dicts."""
    tasks = dag.tasks
    for index, task in enumerate(tasks):
        if not _ready(dag, task, filled, task_results, variables, changing):
            continue
        fire = _fire(dag, task, filled, variables)
        if not task.parallel:
            return fire
        group = [task]
        for other in tasks[index + 1 :]:
            if (
                other.parallel
                and _ready(dag, other, filled, task_results, variables, changing)
                and all(_independent(other, t) for t in group)
            ):
                group.append(other)
        if len(group) == 1:
            return fire
        others = tuple(_fire(dag, other, filled, variables) for other in group[1:])
        return Fire(task=fire.task, tool=fire.tool, args=fire.args, parallel=others)
    plan = plan_of(dag)
    if pending:
        return AwaitReadback(slots=readback_order(plan, pending))
    for slot, decision in plan.askable:
        if _askable(dag, slot, filled, pending, deferred, variables):
            return decision
    return ALL_DONE


def _ready(
    dag: CompiledDag,
    task: CompiledTask,
    filled: dict[str, Any],
    task_results: dict[str, Any],
    variables: Mapping[str, Any] | None,
    changing: Collection[str],
) -> bool:
    """Whether ``task`` may fire now: it has not succeeded, is active, its active inputs and requires are
    filled, and none of them is being changed."""
    # the cheap result lookup first: a task that succeeded never fires, whatever its condition says
    if task_succeeded(task, task_results):
        return False
    if not task_active(task, filled, variables) or not task_ready(dag, task, filled, variables):
        return False
    return not (changing and any(name in changing for name in (*task.inputs, *task.requires)))


def _askable(
    dag: CompiledDag,
    slot: CompiledSlot,
    filled: Mapping[str, Any],
    pending: Mapping[str, Any],
    deferred: Mapping[str, Any],
    variables: Mapping[str, Any] | None,
) -> bool:
    """Not in ``filled``/``pending``/``deferred``, active, and its requires met."""
    name = slot.name
    if name in filled or name in pending or name in deferred:
        return False
    return slot_active(dag, name, filled, variables) and requires_met(dag, slot, filled, variables)


def find_next_question(
    dag: CompiledDag,
    filled: Mapping[str, Any],
    pending: Mapping[str, Any] = _EMPTY,
    deferred: Mapping[str, Any] = _EMPTY,
    variables: Mapping[str, Any] | None = None,
) -> CompiledSlot | None:
    """The spec's ``_find_next_question``: the first *user* slot (announces are not questions) that is not in
    ``filled``/``pending``/``deferred``, is active and has its requires met."""
    for slot in plan_of(dag).user_slots:
        if _askable(dag, slot, filled, pending, deferred, variables):
            return slot
    return None
