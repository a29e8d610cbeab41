"""Warnings about how texts read once the engine assembles them.

``doubled_interjection``: right after a confirmed readback the engine asks the next question behind a
transition prefix (``confirm_transition_prefix``, by default ``"Great!"``), so an ``ask`` that opens with
its own interjection reads "Great! Lovely! What date…". Only configs that read anything back are checked
(no readback, no transition prefix).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from slotgraph.config.errors import ConfigIssue
from slotgraph.config.validation.view import View

__all__ = ["DEFAULT_TRANSITION_PREFIX", "leading_interjection", "phrasing_issues"]

DEFAULT_TRANSITION_PREFIX: Final = "Great!"
"""The engine's prefix when the config sets none (``slotgraph.engine.text``; a test keeps them equal)."""

_EXCLAIMED = re.compile(r"^\s*((?:[A-Za-z']+[ ,]+){0,2}[A-Za-z']+!)(?=\s|$)")
_COMMA_WORDS = (
    "great|perfect|wonderful|lovely|excellent|awesome|fantastic|brilliant|cool|nice|thanks|thank you|"
    "ok|okay|alright|all right|got it|sure|sounds good|splendid|super"
)
_COMMA = re.compile(rf"^\s*((?:{_COMMA_WORDS}),)(?=\s)", re.IGNORECASE)


def leading_interjection(text: str) -> str | None:
    """The interjection a text opens with (``"Lovely!"``, ``"Perfect,"``), else None."""
    for pattern in (_EXCLAIMED, _COMMA):
        match = pattern.match(text)
        if match:
            return match.group(1)
    return None


def _reads_back(view: View) -> bool:
    if any(slot.get("requires_readback") for _, slot in view.slots):
        return True
    return any(task.get("readback_inputs") for _, task in view.tasks)


def _prefixes(view: View) -> list[str]:
    configured = view.raw.get("confirm_transition_prefix")
    if isinstance(configured, str):
        return [configured]
    if isinstance(configured, list) and configured:
        return [p for p in configured if isinstance(p, str)]
    return [DEFAULT_TRANSITION_PREFIX]


def phrasing_issues(view: View) -> Iterator[ConfigIssue]:
    if not _reads_back(view):
        return
    prefix = next(iter(_prefixes(view)), DEFAULT_TRANSITION_PREFIX)
    for index, slot in view.slots:
        ask = slot.get("ask")
        if not isinstance(ask, str):
            continue
        own = leading_interjection(ask)
        if own is None:
            continue
        yield ConfigIssue(
            "doubled_interjection",
            f"slots[{index}].ask",
            f"the ask opens with {own!r}; after a confirmed readback the engine puts a transition prefix "
            f"in front of it, so it reads {prefix + ' ' + ask.strip()!r}",
            "drop the interjection from the ask (the engine adds one after a readback); set "
            "confirm_transition_prefix to choose the engine's words",
            severity="warning",
        )
