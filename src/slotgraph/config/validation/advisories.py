"""Warnings: configs that are legal but probably not what the author meant.

None of these stop loading; they are returned in :attr:`ValidationReport.warnings`.
"""

from __future__ import annotations

from collections.abc import Iterator

from slotgraph.config.errors import ConfigIssue
from slotgraph.config.validation.view import View, names_in, sources_of

__all__ = ["LARGE_MAX_RETRIES", "advisory_issues"]

LARGE_MAX_RETRIES = 10
"""``max_retries`` above this is suspicious: a user would be asked the same thing that many times."""


def _warn(code: str, location: str, message: str, fix: str) -> ConfigIssue:
    return ConfigIssue(code, location, message, fix, severity="warning")


def _slots(view: View) -> Iterator[ConfigIssue]:
    used: set[str] = set()
    for _, task in view.tasks:
        used.update(n for key in ("inputs", "requires") for _, n in names_in(task.get(key)))
    for _, slot in view.slots:
        used.update(n for _, n in names_in(slot.get("requires")))
        target = View.mapping(slot.get("validate_against")).get("filled_slot")
        if isinstance(target, str):
            used.add(target)
    if isinstance(view.raw.get("gate_slot"), str):
        used.add(view.raw["gate_slot"])
    for index, slot in view.slots:
        name = slot.get("name")
        kinds = {s for _, s in sources_of(slot)}
        is_user = "user" in kinds
        if isinstance(name, str) and view.tasks and name not in used and kinds & {"user", "event"}:
            yield _warn(
                "unused_slot",
                f"slots[{index}]",
                f"slot {name!r} is collected but no task uses it (not in any inputs or requires)",
                "add it to a task's inputs (or requires), or remove the slot if it is not needed",
            )
        if slot.get("accept_early") is True and not list(names_in(slot.get("requires"))):
            yield _warn(
                "accept_early_without_requires",
                f"slots[{index}].accept_early",
                "accept_early has no effect on a slot without requires: it can always be answered",
                "remove accept_early, or add the requires the slot waits for",
            )
        if slot.get("changeable") is True and not (is_user and slot.get("setter")):
            yield _warn(
                "changeable_without_setter",
                f"slots[{index}].changeable",
                "changeable has no effect on a slot the user cannot set (no 'user' source or no setter)",
                "remove changeable, or give the slot a 'user' source and a setter",
            )
        if slot.get("requires_readback") is True and not is_user:
            yield _warn(
                "readback_on_non_user_slot",
                f"slots[{index}].requires_readback",
                "requires_readback has no effect on a slot that is not user-sourced",
                "remove requires_readback, or add 'user' to the slot's sources",
            )
        if is_user and "announce" not in kinds and not slot.get("ask") and not slot.get("response"):
            yield _warn(
                "missing_ask",
                f"slots[{index}].ask",
                "a user slot without 'ask': the engine cannot ask for it and relies on the model's wording",
                "add ask: <the question to ask>",
            )
        if slot.get("event_key") is not None and "event" not in kinds:
            yield _warn(
                "event_key_without_event",
                f"slots[{index}].event_key",
                "event_key is set but the slot has no 'event' source, so it is never read",
                "add 'event' to the slot's source list (e.g. source: [event, user]) or remove event_key",
            )
        if slot.get("setter") and not is_user and "announce" not in kinds and view.sources_valid(slot):
            yield _warn(
                "setter_on_non_user_slot",
                f"slots[{index}].setter",
                "the slot has a setter but no 'user' source, so the setter is never offered to the model",
                "add 'user' to the slot's sources or remove the setter",
            )
        against = View.mapping(slot.get("validate_against"))
        if against:
            code = against.get("error_code", "not_available")
            errors = View.mapping(View.mapping(slot.get("validation")).get("errors"))
            if isinstance(code, str) and code not in errors:
                yield _warn(
                    "error_code_without_message",
                    f"slots[{index}].validate_against.error_code",
                    f"validate_against signals {code!r} but validation.errors has no message for it",
                    f"add validation: {{errors: {{{code}: <what to say>}}}} to the slot",
                )
        retries = View.mapping(slot.get("validation")).get("max_retries")
        if isinstance(retries, int) and retries > LARGE_MAX_RETRIES:
            yield _large_retries(f"slots[{index}].validation.max_retries", retries)


def _large_retries(where: str, retries: int) -> ConfigIssue:
    return _warn(
        "large_max_retries",
        where,
        f"max_retries is {retries}: the user could be asked the same thing {retries} times",
        f"use a small bound (at most {LARGE_MAX_RETRIES}) and hand over with on_exhaust",
    )


def _tasks(view: View) -> Iterator[ConfigIssue]:
    if view.slots and not view.tasks:
        yield _warn(
            "no_tasks",
            "tasks",
            "the config declares slots but no task, so nothing is ever done with the collected data",
            "add a task whose inputs are the slots it needs",
        )
    seen_terminal: str | None = None
    for index, task in view.tasks:
        name = task.get("name")
        if task.get("success_check") is None:
            yield _warn(
                "no_success_check",
                f"tasks[{index}].success_check",
                "no success_check: every result of this task counts as a success",
                "add success_check: <result key that is truthy on success> (e.g. success)",
            )
        retries = View.mapping(task.get("on_failure")).get("max_retries")
        if isinstance(retries, int) and retries > LARGE_MAX_RETRIES:
            yield _large_retries(f"tasks[{index}].on_failure.max_retries", retries)
        if seen_terminal is not None and task.get("terminal") is not True and task.get("condition") is None:
            yield _warn(
                "terminal_not_last",
                f"tasks[{index}]",
                f"task {name!r} is declared after terminal task {seen_terminal!r}; if it is not ready before "
                "that task succeeds it never runs",
                "declare the terminal task last, or make this task a requirement of it",
            )
        if task.get("terminal") is True and isinstance(name, str):
            seen_terminal = name
        if task.get("parallel") is True and task.get("terminal") is True:
            yield _warn(
                "parallel_terminal_task",
                f"tasks[{index}].parallel",
                "a terminal task never fires in parallel (its success ends the session); parallel is ignored",
                "remove parallel from the terminal task",
            )
        if task.get("readback_together") is True and task.get("readback_inputs") is not True:
            yield _warn(
                "readback_together_without_group",
                f"tasks[{index}].readback_together",
                "readback_together only applies to the grouped readback of readback_inputs: true",
                "add readback_inputs: true, or remove readback_together",
            )


def advisory_issues(view: View) -> Iterator[ConfigIssue]:
    yield from _slots(view)
    yield from _tasks(view)
