"""Routing for the offline model: pick a target of a routing tool by the words of its description.

A *routing tool* is a tool with one parameter whose schema enumerates its values (``enum``) and describes
each on a line of the parameter's description — ``- `takeout`: Order food to pick up`` — as Slotgraph's
multi-agent apps advertise ``transfer_to_agent`` and the routing tools an app declares (docs/agents.md).

:func:`route` scores every value by the content words the person's message shares with the value's name
and description (case-insensitive; ``book`` matches ``booking``, ``appointment`` ``appointments`` — a word
matches another that only adds a common suffix; underscores separate words). The value with the highest
score is chosen when it is the only one with that score; no shared word, or a tie, is no routing. This is a
deterministic stand-in for an LLM reading the descriptions: it never invents a target.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

__all__ = ["route", "routing_targets"]

_LINE: Final = re.compile(r"^\s*-\s*`([^`]+)`\s*:\s*(.+?)\s*$", re.MULTILINE)
_WORD: Final = re.compile(r"[a-z0-9]+")
_SUFFIXES: Final = ("s", "es", "ed", "ing", "er", "ers", "ment", "ments")
_STOPWORDS: Final = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "do", "does", "for",
        "from", "get", "got", "had", "has", "have", "hello", "hi", "how", "i", "i'd", "i'm", "if", "in",
        "into", "is", "it", "its", "just", "like", "me", "my", "need", "no", "not", "now", "of", "on", "or",
        "our", "please", "so", "some", "than", "thanks", "thank", "that", "the", "their", "them", "then",
        "there", "this", "to", "up", "us", "want", "was", "we", "what", "when", "where", "which", "who",
        "will", "with", "would", "yes", "you", "your", "about", "also", "any", "all", "one",
    }
)  # fmt: skip


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower().replace("_", " ")) if w not in _STOPWORDS and len(w) > 2}


def _same(a: str, b: str) -> bool:
    if a == b:
        return True
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return len(short) >= 4 and long.startswith(short) and long[len(short) :] in _SUFFIXES


def routing_targets(tool: Mapping[str, Any]) -> tuple[str, dict[str, str]] | None:
    """``(parameter, {value: description})`` when ``tool`` (a JSON tool schema) is a routing tool."""
    params = tool.get("parameters")
    properties = params.get("properties") if isinstance(params, Mapping) else None
    if not isinstance(properties, Mapping) or len(properties) != 1:
        return None
    [(name, prop)] = properties.items()
    if not isinstance(prop, Mapping) or not isinstance(prop.get("enum"), list):
        return None
    described = dict(_LINE.findall(str(prop.get("description") or "")))
    values = [v for v in prop["enum"] if isinstance(v, str)]
    if not values or any(v not in described for v in values):
        return None
    return str(name), {v: described[v] for v in values}


def route(tools: Sequence[Mapping[str, Any]], user_text: str) -> tuple[str, dict[str, str]] | None:
    """The routing call ``(tool name, {parameter: value})`` the message asks for, or None."""
    said = _words(user_text)
    if not said:
        return None
    scored: list[tuple[int, str, str, str]] = []
    for tool in tools:
        found = routing_targets(tool)
        if found is None:
            continue
        param, targets = found
        for value, description in targets.items():
            known = _words(f"{value} {description}")
            score = sum(1 for word in said if any(_same(word, k) for k in known))
            if score:
                scored.append((score, str(tool.get("name")), param, value))
    if not scored:
        return None
    scored.sort(key=lambda item: item[0], reverse=True)
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None
    _, name, param, value = scored[0]
    return name, {param: value}
