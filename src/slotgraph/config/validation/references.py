"""Reference checks (the config's rules and the mistakes people make): names, sources, requires, cycles.

Every function takes a :class:`~slotgraph.config.validation.view.View` and yields issues; none stops at
the first problem.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from slotgraph.config.errors import ConfigIssue
from slotgraph.config.suggest import closest, did_you_mean
from slotgraph.config.validation.view import SOURCE_KINDS, View, names_in, sources_of

__all__ = ["reference_issues"]


def _unknown_slot(view: View, name: str, where: str, role: str) -> ConfigIssue:
    return ConfigIssue(
        "unknown_slot",
        where,
        f"unknown slot {name!r}{did_you_mean(name, view.slot_index)}",
        f"{role} must name a slot declared under 'slots'; fix the spelling or declare the slot",
    )


def _duplicates(view: View) -> Iterator[ConfigIssue]:
    for kind, entries, plural in (("slot", view.slots, "slots"), ("task", view.tasks, "tasks")):
        first: dict[str, int] = {}
        for index, entry in entries:
            name = entry.get("name")
            if not isinstance(name, str):
                continue
            if name in first:
                yield ConfigIssue(
                    f"duplicate_{kind}",
                    f"{plural}[{index}].name",
                    f"duplicate {kind} name {name!r} (already used by {plural}[{first[name]}])",
                    f"give every {kind} a unique name",
                )
            else:
                first[name] = index


def _sources(view: View) -> Iterator[ConfigIssue]:
    choices = [*SOURCE_KINDS, *(f"task:{t}" for t in view.task_index)]
    for index, slot in view.slots:
        sources = sources_of(slot)
        kinds = {s for _, s in sources}
        if isinstance(slot.get("source"), list) and not slot["source"]:
            yield ConfigIssue(
                "unknown_source",
                f"slots[{index}].source",
                "the source list is empty, so nothing can ever fill this slot",
                "list at least one source: 'user', 'event', 'announce' or 'task:<TaskName>'",
            )
        for position, source in sources:
            where = f"slots[{index}].source" + ("" if position is None else f"[{position}]")
            if source in SOURCE_KINDS:
                continue
            if source.startswith("task:"):
                task = source[len("task:") :].strip()
                if task not in view.task_index:
                    yield ConfigIssue(
                        "unknown_task",
                        where,
                        f"source {source!r} names no task{did_you_mean(task, view.task_index)}",
                        "use 'task:<TaskName>' with the name of a task declared under 'tasks'",
                    )
                continue
            yield ConfigIssue(
                "unknown_source",
                where,
                f"unknown source {source!r}{did_you_mean(source, choices)}",
                "use 'user', 'event', 'announce' or 'task:<TaskName>' (or a list of them in priority order)",
            )
        if "announce" in kinds:
            if not isinstance(slot.get("message"), str) or not slot.get("message"):
                yield ConfigIssue(
                    "announce_without_message",
                    f"slots[{index}].message",
                    "an announce slot needs a 'message' to deliver",
                    "add message: <text to say> (placeholders like {slot} are allowed)",
                )
            if slot.get("setter") is not None:
                yield ConfigIssue(
                    "announce_with_setter",
                    f"slots[{index}].setter",
                    "an announce slot must not have a setter (the framework fills it with True)",
                    "remove 'setter', or change the source to 'user' if the user should provide this value",
                )


def _slot_references(view: View) -> Iterator[ConfigIssue]:
    for index, slot in view.slots:
        for position, name in names_in(slot.get("requires")):
            if name not in view.slot_index:
                yield _unknown_slot(view, name, f"slots[{index}].requires[{position}]", "requires")
        against = View.mapping(slot.get("validate_against"))
        target = against.get("filled_slot")
        if isinstance(target, str) and target not in view.slot_index:
            yield _unknown_slot(view, target, f"slots[{index}].validate_against.filled_slot", "filled_slot")
    gate = view.raw.get("gate_slot")
    bootstrap_slot = View.mapping(view.raw.get("bootstrap")).get("slot")
    if isinstance(gate, str) and gate not in view.slot_index and closest(gate, view.slot_index):
        yield _unknown_slot(view, gate, "gate_slot", "gate_slot")  # close to a declared slot: a typo
    elif isinstance(gate, str) and gate not in view.slot_index and gate != bootstrap_slot:
        # A gate value may be written by another agent's tool (multi-agent apps): legal, but worth a word.
        yield ConfigIssue(
            "undeclared_gate_slot",
            "gate_slot",
            f"gate_slot {gate!r} names no slot of this config; the "
            "engine stays idle until something else (another agent's routing tool) writes "
            f"filled[{gate!r}]",
            f"declare the slot, or name the routing tool in bootstrap: {{tool: <tool>, slot: {gate}}}",
            severity="warning",
        )


def _producers(view: View) -> dict[str, list[str]]:
    """``{slot: [task, ...]}`` for every task output."""
    produced: dict[str, list[str]] = {}
    for _, task in view.tasks:
        name = task.get("name")
        for target in view.outputs(task).values():
            if isinstance(target, str) and isinstance(name, str):
                produced.setdefault(target, []).append(name)
    return produced


def _task_references(view: View) -> Iterator[ConfigIssue]:
    produced = _producers(view)
    for index, task in view.tasks:
        name = task.get("name")
        for key in ("inputs", "requires"):
            for position, slot in names_in(task.get(key)):
                where = f"tasks[{index}].{key}[{position}]"
                if slot not in view.slot_index:
                    yield _unknown_slot(view, slot, where, f"a task's {key}")
                    continue
                definition = view.slot_named(slot)
                if definition is None or not view.sources_valid(definition):
                    continue  # the bad source is reported on the slot itself
                kinds = view.slot_source_names(slot)
                fillable = any(k in SOURCE_KINDS for k in kinds) or slot in produced
                if not fillable:
                    yield ConfigIssue(
                        "unfillable_slot",
                        where,
                        f"slot {slot!r} can never be filled: it has no user, event or announce source and "
                        "no task outputs it",
                        f"add a task output mapping into {slot!r}, or give the slot a 'user' source "
                        "and a setter",
                    )
        for result_key, target in view.outputs(task).items():
            where = f"tasks[{index}].outputs.{result_key}"
            if not isinstance(target, str):
                continue
            if target not in view.slot_index:
                yield _unknown_slot(view, target, where, "outputs values")
                continue
            if isinstance(name, str) and f"task:{name}" not in view.slot_source_names(target):
                yield ConfigIssue(
                    "output_source_mismatch",
                    where,
                    f"task {name!r} writes slot {target!r}, but that slot's source is not 'task:{name}'",
                    f"set source: task:{name} on slot {target!r} (or add it to its source list)",
                )
        clear = View.mapping(task.get("on_failure")).get("clear_slots")
        for position, slot in names_in(clear):
            if slot not in view.slot_index:
                yield _unknown_slot(
                    view, slot, f"tasks[{index}].on_failure.clear_slots[{position}]", "clear_slots"
                )
    for index, slot_entry in view.slots:
        slot_name = slot_entry.get("name")
        for source_position, source in sources_of(slot_entry):
            task_name = source[len("task:") :] if source.startswith("task:") else None
            task_index = view.task_index.get(task_name) if task_name else None
            if task_index is None or not isinstance(slot_name, str):
                continue
            task = view.task_at[task_index]
            if slot_name not in view.outputs(task).values():
                suffix = "" if source_position is None else f"[{source_position}]"
                where = f"slots[{index}].source{suffix}"
                yield ConfigIssue(
                    "task_output_missing",
                    where,
                    f"slot {slot_name!r} is sourced from task {task_name!r}, whose outputs never map into it",
                    f"add '<result_key>: {slot_name}' to the outputs of task {task_name!r}",
                )


def _cycles(view: View) -> Iterator[ConfigIssue]:
    """Cycles through slot ``requires`` (and through the inputs of the task that fills a slot)."""
    edges: dict[str, list[str]] = {}
    for _, slot in view.slots:
        name = slot.get("name")
        if not isinstance(name, str):
            continue
        targets = [r for _, r in names_in(slot.get("requires")) if r in view.slot_index]
        for _, source in sources_of(slot):
            task_index = view.task_index.get(source[len("task:") :]) if source.startswith("task:") else None
            if task_index is not None:
                task = view.task_at[task_index]
                for key in ("inputs", "requires"):
                    targets += [s for _, s in names_in(task.get(key)) if s in view.slot_index and s != name]
        edges.setdefault(name, targets)
    seen_cycles: set[frozenset[str]] = set()
    for cycle in _find_cycles(edges):
        members = frozenset(cycle)
        if members in seen_cycles:
            continue
        seen_cycles.add(members)
        head = cycle[0]
        yield ConfigIssue(
            "requires_cycle",
            f"slots[{view.slot_index[head]}].requires",
            f"circular dependency: {' → '.join(cycle)}; none of these slots can ever be asked",
            "remove one of the requires (or task inputs) in this chain",
        )


def _find_cycles(edges: Mapping[str, list[str]]) -> Iterator[list[str]]:
    """Every back edge of a depth-first walk as the cycle it closes, in walk order.

    Iterative (an explicit stack), so a chain of thousands of slots declared in any order never meets the
    interpreter's recursion limit.
    """
    visiting, done = 1, 2
    state: dict[str, int] = {}
    for start in edges:
        if start in state:
            continue
        state[start] = visiting
        path = [start]
        pending = [iter(edges.get(start, ()))]
        while pending:
            nxt = next(pending[-1], None)
            if nxt is None:
                state[path.pop()] = done
                pending.pop()
            elif state.get(nxt) == visiting:
                yield [*path[path.index(nxt) :], nxt]
            elif nxt not in state:
                state[nxt] = visiting
                path.append(nxt)
                pending.append(iter(edges.get(nxt, ())))


def _steer_back(view: View) -> Iterator[ConfigIssue]:
    block: Mapping[str, Any] = View.mapping(view.raw.get("steer_back"))
    tiers = {"soft_after": 2, "hard_after": 4, "escalate_after": 6}
    values = {k: block.get(k, default) for k, default in tiers.items()}
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values.values()):
        return
    soft, hard, escalate = values["soft_after"], values["hard_after"], values["escalate_after"]
    if not soft < hard:
        yield ConfigIssue(
            "steer_back_order",
            "steer_back.hard_after",
            f"hard_after ({hard}) must be greater than soft_after ({soft})",
            "order the tiers soft_after < hard_after < escalate_after (defaults 2, 4, 6)",
        )
    if not hard < escalate:
        yield ConfigIssue(
            "steer_back_order",
            "steer_back.escalate_after",
            f"escalate_after ({escalate}) must be greater than hard_after ({hard})",
            "order the tiers soft_after < hard_after < escalate_after (defaults 2, 4, 6)",
        )


def reference_issues(view: View) -> Iterator[ConfigIssue]:
    yield from _duplicates(view)
    yield from _sources(view)
    yield from _slot_references(view)
    yield from _task_references(view)
    yield from _cycles(view)
    yield from _steer_back(view)
