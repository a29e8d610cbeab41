"""Chips whose options come from a slot (the platform's ``options_from``, docs/migration.md).

A chips object inside a response part's ``data`` may name a slot instead of listing its options::

    {"type": "chips", "options_from": "available_times"}

At render time it gets ``options: [{"text": ...}, ...]``, one per item of the slot's filled value (a list, or
a string split on commas; blank items skipped; nothing filled: no options). A sibling ``event_name`` makes
each option send that event: ``{"text": item, "event_name": name}``. Everything else in the object is kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["fill_options", "option_items"]


def option_items(value: Any) -> list[str]:
    """The option texts of a slot value: list items, or comma-separated parts of a string; blanks skipped."""
    if value is None:
        return []
    items = value if isinstance(value, list | tuple) else str(value).split(",")
    return [text for text in (str(item).strip() for item in items) if text]


def fill_options(value: Any, filled: Mapping[str, Any]) -> Any:
    """``value`` with every ``options_from`` object given its ``options`` (recursively; a new value)."""
    if isinstance(value, Mapping):
        out = {key: fill_options(item, filled) for key, item in value.items()}
        source = value.get("options_from")
        if isinstance(source, str):
            event = value.get("event_name")
            out["options"] = [
                {"text": text, "event_name": event} if isinstance(event, str) else {"text": text}
                for text in option_items(filled.get(source))
            ]
        return out
    if isinstance(value, list | tuple):
        return [fill_options(item, filled) for item in value]
    return value
