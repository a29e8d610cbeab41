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
    "CACHED_TEXT_CHARS",
    "PARSE_CACHE_SIZE",
    "WORD_RE",
    "Claimed",
    "Found",
    "clear_parse_caches",
    "forget_with_parses",
    "kept_parse",
    "mask",
    "parses_kept_for_one_plan",
    "words",
]

_F = TypeVar("_F", bound=Callable[..., Any])

WORD_RE = re.compile(r"[A-Za-z0-9]+(?:['’\-][A-Za-z0-9]+)*")


PARSE_CACHE_SIZE = 512
"""Short texts whose dates and times the parsers keep (least recently used dropped): a plan reads the same
message once per parameter of a kind, and an agent's directives repeat from turn to turn."""
CACHED_TEXT_CHARS = 1000
"""Only texts up to this long are kept (a user's turn, a directive), so the caches stay under ~1 MB."""

_PARSE_CACHES: list[Callable[[], None]] = []
"""The ``cache_clear`` of every parser cache (each parser module registers its own)."""


def forget_with_parses(clear: Callable[[], None]) -> None:
    """Register another kept-answers table: :func:`clear_parse_caches` empties it too."""
    _PARSE_CACHES.append(clear)


_ONE_PLAN: contextvars.ContextVar[dict[tuple[Any, ...], Any] | None] = contextvars.ContextVar(
    "slotgraph_offline_one_plan", default=None
)
"""The answers for long texts kept while one plan is made (:func:`parses_kept_for_one_plan`)."""


@contextlib.contextmanager
def parses_kept_for_one_plan() -> Iterator[None]:
    """Within the block (one plan), a text longer than :data:`CACHED_TEXT_CHARS` is parsed once per parser
    and arguments too; its answers are forgotten when the block ends.

    A plan reads its message once per parameter of a kind: an 8,000-character message was parsed for dates
    and for times twice each (a short one only once: the second read is a kept answer), so a long message
    cost more than its length and the offline model's growth benchmark measured the cache's limit."""
    token = _ONE_PLAN.set({})
    try:
        yield
    finally:
        _ONE_PLAN.reset(token)


def kept_parse(fn: _F) -> _F:
    """``fn`` (a pure parse whose first argument is the text) with its answers kept for texts of up to
    :data:`CACHED_TEXT_CHARS`: :data:`PARSE_CACHE_SIZE` of them, least recently used dropped;
    :func:`clear_parse_caches` forgets them. ``cache_info`` is the cache's. A longer text is parsed every
    time, except within :func:`parses_kept_for_one_plan`, which keeps its answers until the plan is made."""
    cached = functools.lru_cache(maxsize=PARSE_CACHE_SIZE)(fn)
    _PARSE_CACHES.append(cached.cache_clear)

    @functools.wraps(fn)
    def parse(text: str, *args: Any) -> Any:
        if len(text) <= CACHED_TEXT_CHARS:
            return cached(text, *args)
        one_plan = _ONE_PLAN.get()
        if one_plan is None:
            return fn(text, *args)
        key = (fn, text, *args)
        if key not in one_plan:
            one_plan[key] = fn(text, *args)
        return one_plan[key]

    parse.cache_info = cached.cache_info  # type: ignore[attr-defined]  # what the tests read
    return cast(_F, parse)


def clear_parse_caches() -> None:
    """Forget every kept parse (a benchmark measuring parsing itself, a test comparing fresh parses)."""
    for clear in _PARSE_CACHES:
        clear()


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
