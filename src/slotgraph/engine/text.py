"""Message text: ``{slot}`` placeholder rendering, default messages, joining.

Placeholders are ``{slot_name}`` resolved from ``filled`` (docs/engine.md#messages-and-placeholders).
Rendering is a plain substitution, not ``str.format``: only ``{identifier}`` is replaced, ``{{``/``}}`` are
literal braces, an unknown placeholder is left as-is, and no attribute or index access is possible from config
text. A value is said in at most :data:`MAX_PLACEHOLDER_CHARS` characters: a longer one (an executor that
returned a megabyte) is cut there and ends with ``…``, so a reply stays something a person can read; the
state keeps the whole value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from slotgraph.config.compiled import CompiledSlot

__all__ = [
    "DEFAULT_EXHAUST_MESSAGE",
    "DEFAULT_RETRY_MESSAGE",
    "DEFAULT_TRANSITION_PREFIX",
    "MAX_PLACEHOLDER_CHARS",
    "default_error_message",
    "join",
    "question_for",
    "render",
    "render_value",
    "slot_label",
]

_PLACEHOLDER: Final = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")

DEFAULT_RETRY_MESSAGE: Final = "Sorry, that didn't go through. Let me try again."
DEFAULT_EXHAUST_MESSAGE: Final = (
    "I'm sorry, I'm not able to complete this right now. Let me get someone to help you."
)
DEFAULT_TRANSITION_PREFIX: Final = "Great!"
MAX_PLACEHOLDER_CHARS: Final = 1000
"""The most characters of one value a placeholder puts in a message (then ``…``)."""


def render(template: str, filled: Mapping[str, Any]) -> str:
    """Replace ``{name}`` with ``str(filled[name])``; unknown names stay as written."""
    if "{" not in template and "}" not in template:
        return template

    def sub(match: re.Match[str]) -> str:
        whole = match.group(0)
        if whole == "{{":
            return "{"
        if whole == "}}":
            return "}"
        name = match.group(1)
        if name not in filled:
            return whole
        shown = str(filled[name])
        return shown if len(shown) <= MAX_PLACEHOLDER_CHARS else shown[: MAX_PLACEHOLDER_CHARS - 1] + "…"

    return _PLACEHOLDER.sub(sub, template)


def render_value(value: Any, filled: Mapping[str, Any]) -> Any:
    """Render every string inside ``value`` (dicts and lists recursively); other values unchanged."""
    if isinstance(value, str):
        return render(value, filled)
    if isinstance(value, Mapping):
        return {k: render_value(v, filled) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [render_value(v, filled) for v in value]
    return value


def slot_label(slot: CompiledSlot | None, name: str) -> str:
    """How a slot is named in default messages: its ``label``, else its name with spaces."""
    if slot is not None and slot.label:
        return slot.label
    return name.replace("_", " ")


def question_for(slot: CompiledSlot, filled: Mapping[str, Any]) -> str:
    """The slot's rendered ``ask``; a slot without one is asked as ``"What is the <label>?"``."""
    if slot.ask:
        return render(slot.ask, filled)
    return f"What is the {slot_label(slot, slot.name)}?"


def default_error_message(slot: CompiledSlot | None, name: str, filled: Mapping[str, Any]) -> str:
    """The message for a slot error code the config has no message for: an apology and the question again."""
    lead = f"Sorry, I couldn't use that {slot_label(slot, name)}."
    if slot is not None and (slot.ask or slot.is_user):
        return f"{lead} {question_for(slot, filled)}"
    return lead


def join(parts: list[str]) -> str | None:
    """Join non-empty message parts with a space; ``None`` when there are none."""
    kept = [p.strip() for p in parts if p and p.strip()]
    return " ".join(kept) if kept else None
