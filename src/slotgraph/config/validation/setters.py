"""Setter and tool checks: user slots need setters, shared setters need ``setter_field``, reserved names,
executor tools, and (for agent definitions) tools the agent's tools module does not define."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from slotgraph.config.errors import ConfigIssue
from slotgraph.config.suggest import did_you_mean
from slotgraph.config.validation.view import BUILTIN_TOOLS, RESERVED_TOOLS, View, sources_of

__all__ = ["setter_issues"]


def _then_tool(block: Mapping[str, Any]) -> str | None:
    then = block.get("then")
    if isinstance(then, str):
        return then
    if isinstance(then, Mapping) and isinstance(then.get("tool"), str):
        return str(then["tool"])
    return None


def _slot_setters(view: View) -> Iterator[ConfigIssue]:
    for index, slot in view.slots:
        kinds = {s for _, s in sources_of(slot)}
        setter = slot.get("setter")
        if "user" in kinds and "announce" not in kinds and not setter:
            yield ConfigIssue(
                "missing_setter",
                f"slots[{index}].setter",
                "a user-sourced slot has no setter, so the model can never fill it",
                "add setter: <tool name> (a function in the agent's tools module)",
            )
        if slot.get("setter_field") is not None and not setter:
            yield ConfigIssue(
                "setter_field_without_setter",
                f"slots[{index}].setter_field",
                "setter_field is set but the slot has no setter",
                "add the multi-slot setter's name as 'setter', or remove 'setter_field'",
            )
        if isinstance(setter, str) and setter in RESERVED_TOOLS:
            yield ConfigIssue(
                "reserved_tool_name",
                f"slots[{index}].setter",
                f"{setter!r} is a built-in readback tool and cannot be a setter",
                "name the setter after the slot, e.g. set_<slot>",
            )


_NAMED = 5
"""How many slots an issue about a shared setter names (each slot of the group gets its own issue, so
naming all of them in each was quadratic: 5,000 slots sharing one setter took a gigabyte)."""


def _some_names(names: list[object]) -> str:
    """``'a', 'b', 'c'`` — or the first few and how many more."""
    shown = ", ".join(repr(name) for name in names[:_NAMED])
    return shown if len(names) <= _NAMED else f"{shown} and {len(names) - _NAMED:,} more"


def _shared_setters(view: View) -> Iterator[ConfigIssue]:
    for setter, group in view.setters.items():
        if len(group) < 2:
            continue
        with_field = [(i, s) for i, s in group if isinstance(s.get("setter_field"), str)]
        without = [(i, s) for i, s in group if not isinstance(s.get("setter_field"), str)]
        names = _some_names([s.get("name") for _, s in group])
        if not with_field:
            for index, _ in group[1:]:
                yield ConfigIssue(
                    "shared_setter_without_field",
                    f"slots[{index}].setter",
                    f"setter {setter!r} is shared by slots {names} but none has a setter_field",
                    "give each slot a distinct setter_field (the tool's parameter for it), or use one setter "
                    "per slot",
                )
        elif without:
            for index, _ in without:
                yield ConfigIssue(
                    "inconsistent_setter_field",
                    f"slots[{index}].setter_field",
                    f"multi-slot setter {setter!r} maps its other slots with setter_field, "
                    "but this one has none",
                    "add setter_field: <parameter name> to every slot of a multi-slot setter",
                )
        fields: dict[str, int] = {}
        for index, slot in with_field:
            field = slot["setter_field"]
            if field in fields:
                yield ConfigIssue(
                    "duplicate_setter_field",
                    f"slots[{index}].setter_field",
                    f"setter_field {field!r} of {setter!r} is already mapped by slots[{fields[field]}]",
                    "use a distinct setter_field for each slot of the same setter",
                )
            else:
                fields[field] = index


def _task_tools(view: View) -> Iterator[ConfigIssue]:
    setters = view.setters
    owners: dict[str, int] = {}
    for index, task in view.tasks:
        tool = task.get("tool")
        if not isinstance(tool, str) or not tool:
            continue
        where = f"tasks[{index}].tool"
        if tool in RESERVED_TOOLS:
            yield ConfigIssue(
                "reserved_tool_name",
                where,
                f"{tool!r} is a built-in readback tool and cannot execute a task",
                "name the executor tool after what it does, e.g. book_reservation",
            )
        if tool in setters:
            yield ConfigIssue(
                "tool_is_setter",
                where,
                f"tool {tool!r} is both a task executor and the setter of slot "
                f"{setters[tool][0][1].get('name')!r}; its results could not be routed",
                "use separate tools for setting slots and executing tasks",
            )
        if tool in owners:
            yield ConfigIssue(
                "shared_task_tool",
                where,
                f"tool {tool!r} already executes tasks[{owners[tool]}]; "
                "its results could not be routed to one task",
                "give each task its own executor tool",
            )
        else:
            owners[tool] = index


def _defined_tools(view: View) -> Iterator[ConfigIssue]:
    if view.tool_names is None:
        return
    known = set(view.tool_names) | BUILTIN_TOOLS
    used: list[tuple[str, str, str]] = []
    for setter, group in view.setters.items():
        used.append((f"slots[{group[0][0]}].setter", setter, "setter"))
    for index, task in view.tasks:
        if isinstance(task.get("tool"), str):
            used.append((f"tasks[{index}].tool", task["tool"], "task tool"))
    for location, block in view.exhausts():
        tool = _then_tool(block)
        if tool is not None:
            then = block.get("then")
            used.append((f"{location}.then" + (".tool" if isinstance(then, Mapping) else ""), tool, "tool"))
    for where, tool, role in used:
        if tool not in known:
            yield ConfigIssue(
                "unknown_tool",
                where,
                f"{role} {tool!r} is not defined in the agent's tools module{did_you_mean(tool, known)}",
                f"define a function named {tool} in the tools module, or fix the name",
            )


def setter_issues(view: View) -> Iterator[ConfigIssue]:
    yield from _slot_setters(view)
    yield from _shared_setters(view)
    yield from _task_tools(view)
    yield from _defined_tools(view)
