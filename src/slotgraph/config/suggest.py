"""Did-you-mean suggestions for misspelled names (keys, slots, tasks, tools, sources, formatters)."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["closest", "did_you_mean"]


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate closest to ``word`` (case-insensitive), or None when nothing is similar enough."""
    pool = sorted({c for c in candidates if isinstance(c, str)})
    if not pool or not isinstance(word, str):
        return None
    by_lower = {c.lower(): c for c in pool}
    if word.lower() in by_lower and by_lower[word.lower()] != word:
        return by_lower[word.lower()]
    import difflib  # only a misspelt name needs it (not imported by every process that compiles a config)

    matches = difflib.get_close_matches(word.lower(), list(by_lower), n=1, cutoff=0.6)
    return by_lower[matches[0]] if matches else None


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` or the empty string; meant to be appended to a message."""
    match = closest(word, candidates)
    return f" (did you mean {match!r}?)" if match is not None else ""
