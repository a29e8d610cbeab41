"""What people say for a value, learned from real dialogues: "sushi" is the cuisine Japanese, "Chi-town" the
city Chicago.

``data/lexicon.json`` (built by ``scripts/train_offline_lexicon.py`` from the Schema-Guided Dialogue tuning
data, CC BY-SA 4.0) lists, per slot of the services it was learned on, the slot's description and surface →
canonical entries. A parameter of any agent takes the entries of the learned slots whose description means
the same as its own (cosine similarity of static embeddings at least :data:`SIMILAR`, after a shared content
word; :data:`SIMILAR_NAMES` for names, which must be about the same kind of business): a "Category of food
served by the restaurant" takes what was learned for "Cuisine of food served in the restaurant", a "Location
of the hotel" what was learned for "Location of the house". Nothing is learned about a particular parameter
name: only meanings of descriptions are compared.
"""

from __future__ import annotations

import functools
import json
import re
import threading
from collections.abc import Mapping
from importlib import resources

from slotgraph.models.offline.spans import Found, stem, words

__all__ = ["SIMILAR", "SIMILAR_NAMES", "find_learned", "learned_decimals", "learned_values"]

SIMILAR = 0.6
SIMILAR_NAMES = 0.85
_DATA = "data/lexicon.json"
_STOP = frozenset(
    {"the", "of", "in", "for", "and", "or", "to", "a", "an", "by", "with", "which", "where", "is", "at", "on",
     "name", "number", "from"}
)  # fmt: skip
_LOCK = threading.Lock()


@functools.cache
def _slots() -> tuple[tuple[str, frozenset[str], Mapping[str, str], int | None], ...]:
    """The learned slots: description, its content stems, its entries, the decimals its numbers were written
    with (loaded once, read-only)."""
    with _LOCK:
        raw = json.loads(resources.files(__package__).joinpath(_DATA).read_text(encoding="utf-8"))
    return tuple(
        (
            str(slot["description"]),
            _content(str(slot["description"])),
            dict(slot["values"]),
            slot.get("decimals"),
        )
        for slot in raw["slots"]
    )


def _content(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words(text) if w not in _STOP and len(w) > 2)


def _alike(description: str, threshold: float) -> list[tuple[Mapping[str, str], int | None]]:
    """The learned slots whose description means the same as ``description``."""
    said = _content(description)
    candidates = [(text, entries, places) for text, stems, entries, places in _slots() if stems & said]
    if not candidates:
        return []
    from slotgraph.models.offline.semantic import similarities

    scores = similarities(description, [text for text, _, _ in candidates])
    return [
        (entries, places)
        for (_, entries, places), s in zip(candidates, scores, strict=True)
        if s >= threshold
    ]


def learned_values(description: str, *, name: bool = False) -> tuple[tuple[str, str], ...]:
    """The surface → canonical entries that apply to a parameter described so (longest surface first);
    ``name``: the parameter is a name (a stricter likeness)."""
    merged: dict[str, str] = {}
    for entries, _ in _alike(description, SIMILAR_NAMES if name else SIMILAR):
        for surface, canonical in entries.items():
            merged.setdefault(surface, canonical)
    return tuple(sorted(merged.items(), key=lambda item: (-len(item[0]), item[0])))


def learned_decimals(description: str) -> int | None:
    """How many decimals the numbers of a parameter described so are written with ("4.20"), when learned."""
    return next((places for _, places in _alike(description, SIMILAR) if places is not None), None)


def find_learned(text: str, entries: tuple[tuple[str, str], ...], *, min_length: int = 1) -> Found | None:
    """The first learned surface said in ``text`` (longest first, whole words, any case) as its canonical
    value with its span; ``min_length``: shorter surfaces are not looked for."""
    lowered = text.lower()
    for surface, canonical in entries:
        if len(surface) < min_length or surface not in lowered:
            continue
        match = re.search(rf"(?<![\w]){re.escape(surface)}(?![\w])", lowered)
        if match:
            return Found(canonical, match.start(), match.end())
    return None
