"""A tolerant, read-only view of a raw DAG config for the semantic checks.

The checks must run even when pydantic refused parts of the config, so they read plain data through this
view: entries that are not mappings are skipped, lists of names keep only the strings, and every item
keeps its index so issues point at the right place.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from slotgraph.names import READBACK_TOOLS, SESSION_ENDING_TOOLS

__all__ = ["BUILTIN_TOOLS", "RESERVED_TOOLS", "View", "names_in", "sources_of"]

RESERVED_TOOLS: Final = READBACK_TOOLS
"""Readback tools the framework provides; no setter or task may take these names."""
BUILTIN_TOOLS: Final = RESERVED_TOOLS | SESSION_ENDING_TOOLS
"""Tools the runtime always provides, whatever the agent's tools module defines (it may override them)."""
SOURCE_KINDS: Final = ("user", "event", "announce")


def names_in(value: Any) -> Iterator[tuple[int, str]]:
    """``(index, name)`` for every string in a list (other items are reported by the structure check)."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, str):
                yield index, item


def sources_of(slot: Mapping[str, Any]) -> list[tuple[int | None, str]]:
    """The slot's sources with their list index (None for the single-string form); default ``user``."""
    source = slot.get("source", "user")
    if isinstance(source, str):
        return [(None, source)]
    return list(names_in(source))


def _entries(value: Any) -> list[tuple[int, Mapping[str, Any]]]:
    if not isinstance(value, list):
        return []
    return [(i, item) for i, item in enumerate(value) if isinstance(item, Mapping)]


def _mapping(value: Any) -> Mapping[str, Any]:
    # a plain dict first: isinstance against the Mapping ABC costs several times more, on every lookup
    return value if isinstance(value, Mapping) else {}


@dataclass(frozen=True)
class View:
    """Slots and tasks of a raw config with their indexes, plus the lookups every check needs."""

    raw: Mapping[str, Any]
    tool_names: frozenset[str] | None = None
    slots: list[tuple[int, Mapping[str, Any]]] = field(init=False)
    tasks: list[tuple[int, Mapping[str, Any]]] = field(init=False)
    slot_index: dict[str, int] = field(init=False)
    task_index: dict[str, int] = field(init=False)
    slot_at: dict[int, Mapping[str, Any]] = field(init=False)
    """``slots`` by index (a lookup, so checks stay linear in the config's size)."""
    task_at: dict[int, Mapping[str, Any]] = field(init=False)

    def __post_init__(self) -> None:
        slots = _entries(self.raw.get("slots"))
        tasks = _entries(self.raw.get("tasks"))
        slot_index: dict[str, int] = {}
        for index, slot in slots:
            if isinstance(slot.get("name"), str):
                slot_index.setdefault(slot["name"], index)
        task_index: dict[str, int] = {}
        for index, task in tasks:
            if isinstance(task.get("name"), str):
                task_index.setdefault(task["name"], index)
        object.__setattr__(self, "slots", slots)
        object.__setattr__(self, "tasks", tasks)
        object.__setattr__(self, "slot_index", slot_index)
        object.__setattr__(self, "task_index", task_index)
        object.__setattr__(self, "slot_at", dict(slots))
        object.__setattr__(self, "task_at", dict(tasks))

    def slot_named(self, name: str) -> Mapping[str, Any] | None:
        index = self.slot_index.get(name)
        return None if index is None else self.slot_at[index]

    def slot_source_names(self, name: str) -> list[str]:
        slot = self.slot_named(name)
        return [] if slot is None else [s for _, s in sources_of(slot)]

    def sources_valid(self, slot: Mapping[str, Any]) -> bool:
        """True when the slot's source is well-formed and names only known kinds and tasks."""
        source = slot.get("source", "user")
        if not isinstance(source, str | list) or (isinstance(source, list) and not source):
            return False
        return all(
            kind in SOURCE_KINDS
            or (kind.startswith("task:") and kind[len("task:") :].strip() in self.task_index)
            for _, kind in sources_of(slot)
        )

    def outputs(self, task: Mapping[str, Any]) -> Mapping[str, Any]:
        return _mapping(task.get("outputs"))

    @property
    def result_keys(self) -> set[str]:
        """Every result key a task declares in its ``outputs``."""
        return {str(key) for _, task in self.tasks for key in self.outputs(task)}

    @property
    def setters(self) -> dict[str, list[tuple[int, Mapping[str, Any]]]]:
        """``{setter: [(slot index, slot), ...]}`` in declaration order."""
        groups: dict[str, list[tuple[int, Mapping[str, Any]]]] = {}
        for index, slot in self.slots:
            setter = slot.get("setter")
            if isinstance(setter, str) and setter:
                groups.setdefault(setter, []).append((index, slot))
        return groups

    def exhausts(self) -> Iterator[tuple[str, Mapping[str, Any]]]:
        """Every ``on_exhaust`` block with its location."""
        for index, slot in self.slots:
            block = _mapping(_mapping(slot.get("validation")).get("on_exhaust"))
            if block:
                yield f"slots[{index}].validation.on_exhaust", block
        for index, task in self.tasks:
            block = _mapping(_mapping(task.get("on_failure")).get("on_exhaust"))
            if block:
                yield f"tasks[{index}].on_failure.on_exhaust", block
        block = _mapping(_mapping(self.raw.get("steer_back")).get("on_exhaust"))
        if block:
            yield "steer_back.on_exhaust", block

    @staticmethod
    def mapping(value: Any) -> Mapping[str, Any]:
        return _mapping(value)
