"""Found values with their place in the user's text, and masking of text already used.

Every extractor returns :class:`Found` items (value + character span). The planner masks each span it
assigns (replacing it with spaces, so offsets stay valid) before the next extractor runs: "June 25th"
becomes a date and never a party size of 25.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["WORD_RE", "Found", "mask", "words"]

WORD_RE = re.compile(r"[A-Za-z0-9]+(?:['’\-][A-Za-z0-9]+)*")


@dataclass(frozen=True, slots=True)
class Found:
    """A value found in the text, the characters it came from, and an optional unit word after it."""

    value: Any
    start: int
    end: int
    unit: str | None = None


def mask(text: str, spans: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> str:
    """``text`` with every span replaced by spaces (same length, so later offsets stay valid)."""
    chars = list(text)
    for start, end in spans:
        for i in range(max(start, 0), min(end, len(chars))):
            chars[i] = " "
    return "".join(chars)


def words(text: str) -> list[str]:
    """Lower-cased words of ``text`` (apostrophes and hyphens kept inside words)."""
    return [w.lower().replace("’", "'") for w in WORD_RE.findall(text)]
