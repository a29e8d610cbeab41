"""Checks of the original platform's keys (docs/migration.md): ``bootstrap``, ``on_complete``,
``options_from`` chips, ``event_mappings`` and the legacy stall detectors ``progress_stall`` and
``readback_retry``.

The platform keys are legal; what is checked here is that they point at things that exist, and the legacy
stall keys get a warning that says what Slotgraph does with them instead (see
:func:`slotgraph.config.compile.legacy_steer_back` for the translation itself).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from slotgraph.config.errors import ConfigIssue
from slotgraph.config.suggest import did_you_mean
from slotgraph.config.validation.view import View, names_in, sources_of

__all__ = ["options_from_slots", "platform_issues"]


def _warn(code: str, location: str, message: str, fix: str) -> ConfigIssue:
    return ConfigIssue(code, location, message, fix, severity="warning")


def options_from_slots(value: Any, where: str) -> Iterator[tuple[str, Any]]:
    """``(location, slot name)`` of every ``options_from`` inside response parts (recursively)."""
    kind = type(value)
    if kind is dict or (kind is not list and isinstance(value, Mapping)):  # (the Mapping ABC is slow)
        for key, item in value.items():
            if key == "options_from":
                yield f"{where}.options_from", item
            else:
                yield from options_from_slots(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from options_from_slots(item, f"{where}[{index}]")


def _stall_keys(view: View) -> Iterator[ConfigIssue]:
    has_steer = view.raw.get("steer_back") is not None
    stall = view.raw.get("progress_stall")
    retry = view.raw.get("readback_retry")
    if stall is not None:
        if has_steer:
            yield _warn(
                "legacy_stall_key_ignored",
                "progress_stall",
                "progress_stall is a legacy stall detector and is ignored because steer_back is configured",
                "remove progress_stall (steer_back replaced it)",
            )
        else:
            turns = View.mapping(stall).get("max_turns", 8)
            yield _warn(
                "legacy_stall_key_translated",
                "progress_stall",
                f"progress_stall is a legacy stall detector; it is translated into the equivalent "
                f"steer_back: escalate_after {turns} with its on_exhaust, and no soft or hard tier",
                f"replace it with steer_back: {{soft_after: 2, hard_after: 4, escalate_after: {turns}, "
                "on_exhaust: ...}} (defaults 2/4/6)",
            )
    if retry is not None:
        if not has_steer and stall is None and View.mapping(retry).get("on_exhaust") is not None:
            message = (
                "readback_retry is a legacy stall detector with no exact equivalent; its on_exhaust becomes "
                "steer_back's on_exhaust (tiers 2/4/6), and pending values are no longer cleared on a stall"
            )
        else:
            message = (
                "readback_retry is a legacy stall detector with no equivalent in Slotgraph and is ignored; "
                "stalls during a readback are handled by steer_back"
            )
        yield _warn(
            "legacy_stall_key_translated" if "becomes" in message else "legacy_stall_key_ignored",
            "readback_retry",
            message,
            "remove readback_retry and configure steer_back "
            "(soft_after, hard_after, escalate_after, on_exhaust)",
        )


def _bootstrap(view: View) -> Iterator[ConfigIssue]:
    block = View.mapping(view.raw.get("bootstrap"))
    welcome = block.get("welcome_slot")
    if isinstance(welcome, str) and welcome not in view.slot_index:
        yield ConfigIssue(
            "unknown_slot",
            "bootstrap.welcome_slot",
            f"unknown slot {welcome!r}{did_you_mean(welcome, view.slot_index)}",
            "welcome_slot must name a slot declared under 'slots'",
        )
    tool = block.get("tool")
    if isinstance(tool, str) and tool in {t.get("tool") for _, t in view.tasks}:
        yield ConfigIssue(
            "tool_is_executor",
            "bootstrap.tool",
            f"bootstrap tool {tool!r} is also a task executor; its results could not be routed",
            "use a separate routing tool",
        )


def _on_complete(view: View) -> Iterator[ConfigIssue]:
    for index, task in view.tasks:
        block = task.get("on_complete")
        if block is None:
            continue
        if task.get("terminal") is not True:
            yield _warn(
                "on_complete_not_terminal",
                f"tasks[{index}].on_complete",
                "on_complete only acts on a terminal task; this task is not terminal, so it is never used",
                "add terminal: true to the task, or remove on_complete",
            )
        for position, slot in names_in(View.mapping(block).get("clear_slots")):
            if slot not in view.slot_index:
                yield ConfigIssue(
                    "unknown_slot",
                    f"tasks[{index}].on_complete.clear_slots[{position}]",
                    f"unknown slot {slot!r}{did_you_mean(slot, view.slot_index)}",
                    "clear_slots must name slots declared under 'slots'",
                )


def _response_locations(view: View) -> Iterator[tuple[str, Any]]:
    for key in ("readback_response", "channel_readback_response"):
        if key in view.raw:
            yield key, view.raw[key]
    for index, slot in view.slots:
        for key in ("response", "channel_responses", "channel_response", "validation"):
            if key in slot:
                yield f"slots[{index}].{key}", slot[key]
    for index, task in view.tasks:
        for key in ("then_response", "channel_then_response", "on_failure"):
            if key in task:
                yield f"tasks[{index}].{key}", task[key]


def _options_from(view: View) -> Iterator[ConfigIssue]:
    for base, value in _response_locations(view):
        for where, slot in options_from_slots(value, base):
            if not isinstance(slot, str) or slot not in view.slot_index:
                hint = did_you_mean(slot, view.slot_index) if isinstance(slot, str) else ""
                yield ConfigIssue(
                    "unknown_slot",
                    where,
                    f"options_from names no slot: {slot!r}{hint}",
                    "options_from must name a slot whose value lists the options (a list or comma-separated)",
                )


def _event_mappings(view: View) -> Iterator[ConfigIssue]:
    mappings = View.mapping(view.raw.get("event_mappings"))
    event_keys = {
        str(slot.get("event_key") or slot.get("name"))
        for _, slot in view.slots
        if "event" in {kind for _, kind in sources_of(slot)}
    }
    for event, pairs in mappings.items():
        for key in View.mapping(pairs):
            if key not in event_keys and key != "ia_event_name":
                yield _warn(
                    "event_mapping_unused",
                    f"event_mappings.{event}.{key}",
                    f"event_mappings writes {key!r}, which no event-sourced slot reads"
                    f"{did_you_mean(str(key), event_keys)}",
                    "use the event_key (or name) of a slot whose source includes 'event'",
                )


def platform_issues(view: View) -> Iterator[ConfigIssue]:
    yield from _stall_keys(view)
    yield from _bootstrap(view)
    yield from _on_complete(view)
    yield from _options_from(view)
    yield from _event_mappings(view)
