"""Choosing among enum values: exact words, misspellings (``rapidfuzz``), and everyday synonyms.

Each enum value is split into words ("annual_checkup" → annual, checkup). A word the user said scores for
every value containing it, weighted by how distinctive it is (a word shared by two values counts half), so
"queen" picks ``standard_queen`` and "the suite" picks ``family_suite``. Misspelt words ("vacination")
match by similarity. A small table of everyday synonyms links common phrasings to generic words that enum
values tend to use ("stolen" → theft, "flu shot" → vaccination); it is keyed by those generic words, never
by a particular agent's values, and applies to any enum that uses them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rapidfuzz import fuzz

from slotgraph.models.offline.freetext import asking_blanked
from slotgraph.models.offline.numbers import find_counts, names_own_unit, unit_class, word_after
from slotgraph.models.offline.spans import Found

__all__ = [
    "SYNONYMS",
    "match_choice",
    "match_described_choice",
    "match_named_choice",
    "match_number_choice",
    "mentions_flag",
    "numeric_values",
    "value_words",
]

# generic concept word → phrasings people use for it (matched on word boundaries, lower case).
SYNONYMS: dict[str, tuple[str, ...]] = {
    "theft": ("stolen", "stole", "steal", "robbed", "robbery", "burglary", "broke in", "break-in",
              "broken into"),
    "collision": ("crash", "crashed", "accident", "rear-ended", "rear ended", "hit", "backed into", "fender",
                  "bumped", "collided", "ran into"),
    "vandalism": ("vandalized", "vandalised", "keyed", "graffiti", "smashed", "slashed"),
    "weather": ("hail", "storm", "flood", "flooding", "tornado", "hurricane", "wind", "lightning", "snow"),
    "glass": ("windshield", "windscreen", "window", "cracked", "chipped"),
    "fire": ("burned", "burnt", "flames", "smoke"),
    "vaccination": ("shot", "vaccine", "jab", "immunization", "immunisation", "booster", "flu shot"),
    "annual": ("yearly", "annual", "routine", "regular"),
    "checkup": ("check-up", "check up", "physical", "wellness"),
    "sick": ("sick", "ill", "unwell", "fever", "cold", "flu", "cough", "pain"),
    "follow": ("follow-up", "follow up", "followup", "check back"),
    "therapy": ("pt", "physio", "physiotherapy", "rehab"),
    "suite": ("suite",),
    "twin": ("two beds", "two single", "separate beds", "twin"),
    "standard": ("regular", "basic", "cheapest"),
    "deluxe": ("luxury", "upgraded", "nicer"),
    "economy": ("cheapest", "basic", "budget"),
    "premium": ("luxury", "fancy", "best"),
    # Size abbreviations (clothing, portions, parcels).
    "xs": ("extra small", "extra-small", "x-small"),
    "s": ("small",),
    "m": ("medium", "med"),
    "l": ("large",),
    "xl": ("extra large", "extra-large", "x-large"),
    "xxl": ("extra extra large", "double extra large", "2xl", "xx-large"),
}  # fmt: skip
_STOP = frozenset(
    {"a", "an", "the", "of", "and", "or", "to", "in", "my", "for", "is", "it", "one", "please", "i", "i'm",
     "need", "want", "like", "just", "would", "id", "i'd", "take", "type", "room"}
)  # fmt: skip
_WORD_RE = re.compile(r"[a-z0-9]+(?:['\-][a-z0-9]+)*")
_INTENSIFIERS = frozenset({"very", "really", "too", "so", "much", "quite", "pretty", "most", "more", "less"})
"""Words that only grade another word of a value: said alone they name no value."""


_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def value_words(value: Any) -> list[str]:
    """The words of an enum value: ``annual_checkup`` → annual, checkup; ``FindRestaurants`` → find,
    restaurants."""
    return [w for w in re.split(r"[_\-\s]+", _CAMEL_RE.sub(" ", str(value)).lower()) if w]


_value_words = value_words


def _said(word: str, text: str, said_words: Sequence[str], joined: str) -> float:
    """How strongly ``word`` (from an enum value) was said: 1 for the word, its synonyms, or a near miss."""
    if word in said_words or (len(word) > 4 and word in joined):
        return 1.0
    # A longer phrase is more specific: "flu shot" (vaccination) beats "flu" (sick).
    lengths = [
        len(re.split(r"[\s-]+", p)) for p in SYNONYMS.get(word, ()) if re.search(rf"\b{re.escape(p)}\b", text)
    ]
    if lengths:
        return 0.85 + 0.05 * max(lengths)
    if len(word) >= 5:
        best = max((fuzz.ratio(word, w) for w in said_words if len(w) >= 4), default=0.0)
        if best >= 80:
            return 0.8
    return 0.0


def match_choice(text: str, values: Sequence[Any]) -> Found | None:
    """The enum value the text points at, or None when nothing (or a tie) is found."""
    lowered = text.lower()
    said_words = [w for w in _WORD_RE.findall(lowered) if w not in _STOP]
    if not said_words:
        return None
    joined = "".join(said_words)
    counts: dict[str, int] = {}
    for value in values:
        for word in set(_value_words(value)):
            counts[word] = counts.get(word, 0) + 1
    scored: list[tuple[float, int, Any]] = []
    for index, value in enumerate(values):
        score, named = 0.0, False
        for word in _value_words(value):
            if word in _STOP:
                continue
            said = _said(word, lowered, said_words, joined)
            score += said / counts[word]
            named = named or (said > 0 and word not in _INTENSIFIERS)
        if score > 0 and named:  # "thank you very much" names no "very expensive"
            scored.append((score, -index, value))
    if not scored:
        return None
    scored.sort(reverse=True)
    if len(scored) > 1 and scored[0][0] == scored[1][0]:
        return None
    return Found(scored[0][2], 0, 0)  # no span: the words stay available to free-text parameters


# How many of the smaller unit one larger unit holds, for reading "three months" as 90 days.
_UNIT_SIZES: dict[tuple[str, str], int] = {("month", "day"): 30, ("week", "day"): 7, ("month", "week"): 4}


_SAME_UNIT = {"person": {"person", "adult"}, "adult": {"adult", "person"}}


def _as_number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def numeric_values(values: Sequence[Any]) -> bool:
    """An enum of counts: its values are numbers (``1, 2, 3``, or ``"1", "2", "3"`` as strings), with at
    most one word beside them for "any" (``"dontcare"``) — a filter's number of rooms or star rating."""
    numbers = [v for v in values if _as_number(v) is not None]
    return len(numbers) >= 2 and len(values) - len(numbers) <= 1


def match_number_choice(
    text: str, values: Sequence[Any], param_words: frozenset[str], *, with_unit: bool = False
) -> Found | None:
    """A numeric enum value said as a count: "90" or "three months" (→ 90 when the values count days).

    ``with_unit``: only a count whose unit is the parameter's own ("for two people" for a number of
    seats) — how a value the parameter was not asked for is recognised."""
    numbers = {n: v for v in values if (n := _as_number(v)) is not None}
    param_units = {c for c in (unit_class(w) for w in param_words) if c is not None}

    def own(count: Found) -> bool:
        said_unit = unit_class(count.unit)
        if said_unit is not None:
            same = _SAME_UNIT.get(said_unit, {said_unit}) & param_units
            return bool(same) or any((said_unit, target) in _UNIT_SIZES for target in param_units)
        return names_own_unit(word_after(text, count.end), param_words)  # "2 bedroom" for "bed rooms"

    counts = sorted(find_counts(text), key=lambda c: not own(c))  # a count in the parameter's unit first
    for count in counts:
        said_unit = unit_class(count.unit)
        if (with_unit or said_unit is not None) and not own(count):
            continue  # "3 nights" is never a number of rooms nor a star rating
        candidates = [count.value]
        for target in param_units:
            if said_unit is not None and (said_unit, target) in _UNIT_SIZES:
                candidates.insert(0, count.value * _UNIT_SIZES[(said_unit, target)])
        for candidate in candidates:
            if candidate in numbers:
                return Found(numbers[candidate], count.start, count.end)
    return None


# A described option is taken when its similarity is at least this, and ahead of the next one by the margin.
SEMANTIC_FLOOR = 0.15
SEMANTIC_MARGIN = 0.03


def match_described_choice(text: str, notes: Sequence[tuple[Any, str]]) -> Found | None:
    """The option whose description the text means ("book a table" → ``ReserveRestaurant`` = "reserve a
    table at a restaurant"), by semantic similarity (:mod:`~slotgraph.models.offline.semantic`); None when
    no option is close enough or two are about as close."""
    from slotgraph.models.offline.semantic import similarities

    cleaned = " ".join(_WORD_RE.findall(text.lower()))
    if len(notes) < 2 or not cleaned:
        return None
    candidates = [f"{' '.join(value_words(value))}: {note}" for value, note in notes]
    scores = sorted(zip(similarities(cleaned, candidates), range(len(notes)), strict=True), reverse=True)
    (best, index), (second, _) = scores[0], scores[1]
    if best < SEMANTIC_FLOOR or best - second < SEMANTIC_MARGIN:
        return None
    return Found(notes[index][0], 0, 0)


def match_named_choice(text: str, values: Sequence[Any]) -> Found | None:
    """A value named in full ("a Luxury ride", "in the moderate price range"), for a choice that was not
    asked: every word of the value said as a word; the longest such value ("very expensive" over
    "expensive"); None when two unrelated values are named."""
    said = set(_WORD_RE.findall(text.lower()))
    named = [
        v for v in values if (w := value_words(v)) and all(x in said for x in w) and len("".join(w)) >= 3
    ]
    if not named:
        return None
    named.sort(key=lambda v: len(value_words(v)), reverse=True)
    best = named[0]
    rest = [v for v in named[1:] if not set(value_words(v)) <= set(value_words(best))]
    if rest:
        return None
    phrase = r"\W+".join(re.escape(w) for w in value_words(best))
    span = re.search(rf"\b{phrase}\b", text, re.I)
    return Found(best, span.start(), span.end()) if span else Found(best, 0, 0)


_FLAG_FILLER = frozenset(
    {"has", "have", "is", "are", "serves", "serve", "offers", "offer", "allowed", "allows", "available",
     "with", "service", "services", "flag", "boolean", "whether", "if", "the", "a", "an", "of", "or", "not",
     "indicating", "does", "do", "can", "welcome", "friendly", "included", "good", "for", "to", "option",
     "options", "facility", "facilities", "there"}
)  # fmt: skip
_NEGATION_RE = re.compile(
    r"\b(?:no|not|without|don't|doesn't|dont|never|none)\b(?:\W+\w+){0,3}\W*$|\bnon[\s-]?$", re.I
)  # "no pets", "without parking", "non-smoking"


def mentions_flag(
    text: str, name_words: Sequence[str], *, common: frozenset[str] = frozenset()
) -> bool | None:
    """A yes/no feature said in passing: "a unisex salon" → ``is_unisex`` true, "somewhere with live music"
    → ``has_live_music`` true, "no pets" → ``pets_allowed`` false; None when the feature is not named.

    Every distinctive word of the parameter's name must be said (a said word may extend it: "alcoholic" for
    alcohol); a negation just before the first one makes it false. ``common``: words the agent's other
    parameters use too (the "ride" of ``shared_ride`` in a taxi agent) — not distinctive, so not needed
    while another word of the name is ("a shared taxi")."""
    wanted = [w for w in name_words if w not in _FLAG_FILLER and len(w) >= 3]
    if any(w not in common for w in wanted):
        wanted = [w for w in wanted if w not in common]
    if not wanted:
        return None
    # A question about the feature ("Is the salon unisex?") does not ask for it.
    lowered = asking_blanked(text).lower()  # "Can you find me a unisex salon?" still asks for one
    starts = []
    for word in wanted:
        root = word.rstrip("s")
        if word.endswith("ed") and len(word) > 5:
            root = word[:-2]  # shared → share
        elif word.endswith("ing") and len(word) > 6:
            root = word[:-3]  # smoking → smoke
        match = re.search(rf"\b{re.escape(root)}", lowered)
        if match is None:
            return None
        starts.append(match.start())
    return not _NEGATION_RE.search(lowered[: min(starts)])


# A price scale in everyday words: cheapest (0) to dearest (3). Generic English, keyed by level.
_PRICE_LEVELS: tuple[tuple[int, str], ...] = (
    (3, r"very expensive|very pricey|ultra[\s-]?high[\s-]?end|ultra|extravagant|most expensive|luxury"
        r"|luxurious|top[\s-]?end|splurge"),
    (1, r"not (?:too |very |that |so |overly )?(?:expensive|pricey|costly)|moderate(?:ly)?|affordable"
        r"|reasonabl[ey]|average|mid[\s-]?range|middle|medium|intermediate|mid[\s-]?priced|decently"
        r"|economical|good value"),
    (0, r"cheap(?:er|est)?|inexpensive|budget|low[\s-]?(?:cost|priced?|end)|bargain|not expensive"
        r"|thrifty"),
    (2, r"expensive|pricey|costly|fancy|upscale|high[\s-]?end|posh|classy|pricier|high[\s-]?priced"),
)  # fmt: skip
_PRICE_WORDS = tuple(
    (word, level)
    for level, words in _PRICE_LEVELS
    for word in words.split("|")
    if re.fullmatch(r"[a-z]{6,}", word)
)
"""The single words of the price scale, for reading misspellings."""
_PRICE_RES = tuple((level, re.compile(rf"\b(?:{words})\b", re.I)) for level, words in _PRICE_LEVELS)
_PRICE_PARAM_WORDS = frozenset(
    {"price", "prices", "priced", "pricing", "cost", "costs", "budget", "expensive"}
)


def price_level(text: str) -> int | None:
    """The price level ``text`` names (0 cheapest to 3 dearest), the first level found in the order above
    (so "not too expensive" is moderate, "very expensive" the top); None when it names none."""
    for level, pattern in _PRICE_RES:
        if pattern.search(text):
            return level
    for word in _WORD_RE.findall(text.lower()):  # a misspelt price word: "afforadable", "expensvie"
        if len(word) >= 6:
            scored = [(fuzz.ratio(word, known), level) for known, level in _PRICE_WORDS]
            best = max(scored, default=(0.0, 0))
            if best[0] >= 85:
                return best[1]
    return None


def is_price_choice(values: Sequence[Any], param_words: frozenset[str]) -> bool:
    """An enum of price levels: the parameter is about price and at least two values name a level."""
    levels = {price_level(" ".join(value_words(v))) for v in values} - {None}
    return bool(_PRICE_PARAM_WORDS & param_words) and len(levels) >= 2


def match_price_choice(text: str, values: Sequence[Any]) -> Found | None:
    """The value of a price scale the text names in everyday words ("something pricey" → expensive,
    "reasonably priced" → moderate), the nearest level the values have; None when no level is named."""
    said = price_level(text)
    if said is None:
        return None
    levels = [(price_level(" ".join(value_words(v))), v) for v in values]
    known = [(level, value) for level, value in levels if level is not None]
    if not known:
        return None
    best = min(known, key=lambda item: (abs(item[0] - said), item[0]))
    for level, pattern in _PRICE_RES:
        match = pattern.search(text) if level == said else None
        if match is not None:  # its words are no cuisine: "affordable priced African food"
            after = _PRICE_WORD_AFTER_RE.match(text, match.end())
            return Found(best[1], match.start(), after.end() if after else match.end())
    for word in _WORD_RE.finditer(text.lower()):  # a misspelt one
        if len(word.group(0)) >= 6 and price_level(word.group(0)) == said:
            after = _PRICE_WORD_AFTER_RE.match(text, word.end())
            return Found(best[1], word.start(), after.end() if after else word.end())
    return Found(best[1], 0, 0)


_PRICE_WORD_AFTER_RE = re.compile(r"[\s-]+(?:priced?|pricing|prices|costing|cost)\b", re.I)
