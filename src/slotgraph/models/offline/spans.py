"""Found values with their place in the user's text, and masking of text already used.

Every extractor returns :class:`Found` items (value + character span). The planner masks each span it
assigns (replacing it with spaces, so offsets stay valid) before the next extractor runs: "June 25th"
becomes a date and never a party size of 25.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar, cast

__all__ = [
    "WORD_RE",
    "Claimed",
    "Found",
    "kept_parse",
    "mask",
    "parses_kept_for_one_plan",
    "stem",
    "words",
]

_F = TypeVar("_F", bound=Callable[..., Any])

WORD_RE = re.compile(r"[A-Za-z0-9]+(?:['’\-][A-Za-z0-9]+)*")


_ONE_PLAN: contextvars.ContextVar[dict[tuple[Any, ...], Any] | None] = contextvars.ContextVar(
    "slotgraph_offline_one_plan", default=None
)
"""The parses kept while one plan is made (:func:`parses_kept_for_one_plan`); nothing outlives a plan."""


@contextlib.contextmanager
def parses_kept_for_one_plan() -> Iterator[None]:
    """Within the block (one plan), a text is parsed once per parser and arguments; its answers are
    forgotten when the block ends.

    A plan reads its message once per parameter of a kind (twice for dates when two date parameters are
    visible): without this, an 8,000-character message was parsed for dates and for times twice each, so a
    long message cost more than its length. Nothing is kept across plans: there is no process-wide cache."""
    token = _ONE_PLAN.set({})
    try:
        yield
    finally:
        _ONE_PLAN.reset(token)


def kept_parse(fn: _F) -> _F:
    """``fn`` (a pure parse whose first argument is the text) with its answers kept while one plan is made
    (:func:`parses_kept_for_one_plan`); outside a plan every call parses."""

    @functools.wraps(fn)
    def parse(text: str, *args: Any) -> Any:
        one_plan = _ONE_PLAN.get()
        if one_plan is None:
            return fn(text, *args)
        key = (fn, text, *args)
        if key not in one_plan:
            one_plan[key] = fn(text, *args)
        return one_plan[key]

    return cast(_F, parse)


@dataclass(frozen=True, slots=True)
class Found:
    """A value found in the text, the characters it came from, and an optional unit word after it."""

    value: Any
    start: int
    end: int
    unit: str | None = None


class Claimed:
    """Which characters of a text already belong to a found value.

    Extractors skip a match that overlaps an earlier one ("June 25th" is a date, never also a count of 25).
    Checking each match against every earlier span was quadratic in the number of values found, so a
    long message full of numbers took seconds; a byte per character keeps the test linear in the text.
    """

    __slots__ = ("_taken",)

    def __init__(self, length: int) -> None:
        self._taken = bytearray(length + 1)

    def overlaps(self, start: int, end: int) -> bool:
        """Whether any character in ``[start, end)`` is already claimed."""
        return self._taken.find(1, start, end) != -1

    def is_claimed(self, index: int) -> bool:
        """Whether the character at ``index`` is already claimed."""
        return bool(self._taken[index])

    def claim(self, start: int, end: int) -> bool:
        """Claim ``[start, end)`` unless it overlaps a claimed character; whether it was claimed."""
        if self._taken.find(1, start, end) != -1:
            return False
        self._taken[start:end] = b"\x01" * (end - start)
        return True


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


def stem(word: str) -> str:
    """A word without its possessive or plural ``s`` ("guests" → guest, "Chen's" → chen; "glass" stays)."""
    word = word.removesuffix("'s")
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word
