"""Counts and amounts: digits or words ("four", "a dozen", "twenty-one"), people phrases, money.

:func:`find_counts` returns every whole number in a text with the unit word that follows it ("3 nights",
"two kids") or that a phrase implies ("just me" → 1 person, "the two of us" → 2 people, "me and my wife"
→ 2 people, "no kids" → 0 children). :func:`find_amounts` reads money and plain decimals ("$2,500",
"4k", "three thousand dollars", "1200.50").
"""

from __future__ import annotations

import re

from slotgraph.models.offline.spans import Found

__all__ = ["UNIT_CLASSES", "find_amounts", "find_counts", "parse_number_words", "unit_class"]

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1000, "k": 1000, "grand": 1000}
_NUMBER_WORD = "|".join(sorted([*_UNITS, *_TENS, "hundred", "thousand", "a", "and"], key=len, reverse=True))
_WORD_RUN_RE = re.compile(
    rf"\b(?:{'|'.join(sorted([*_UNITS, *_TENS], key=len, reverse=True))})(?:[\s-]+(?:{_NUMBER_WORD})\b)*",
    re.IGNORECASE,
)
_DIGITS_RE = re.compile(r"(?<![\d.:/$-])\d{1,4}(?![\d:/]|\.\d|-\d)")

# Unit words grouped by what they count; a parameter is matched to a class by its own name/description.
UNIT_CLASSES: dict[str, frozenset[str]] = {
    "person": frozenset({"people", "person", "persons", "guest", "guests", "pax", "diners", "diner", "us",
                         "party", "passengers", "passenger", "travelers", "attendees", "seats", "size"}),
    "adult": frozenset({"adult", "adults", "grown-up", "grown-ups", "grownups", "grownup"}),
    "child": frozenset({"child", "children", "kid", "kids", "baby", "babies", "infant", "infants", "toddler",
                        "toddlers"}),
    "night": frozenset({"night", "nights"}),
    "day": frozenset({"day", "days"}),
    "week": frozenset({"week", "weeks"}),
    "room": frozenset({"room", "rooms"}),
    "item": frozenset({"item", "items", "ticket", "tickets", "bag", "bags", "unit", "units"}),
}  # fmt: skip
_ALL_UNITS = frozenset().union(*UNIT_CLASSES.values())
_UNIT_AFTER_RE = re.compile(r"\s?(?:more\s+|other\s+|of\s+(?=us\b))?([a-z]+(?:-[a-z]+)?)", re.IGNORECASE)
_PERSON_BEFORE_RE = re.compile(r"\b(?:party|table|group|booking|reservation)\s+(?:of|for)\s*$", re.I)
_ONE_PERSON_RE = re.compile(
    r"\b(?:just|only)\s+(?:me|myself)\b|\b(?:just|only)\s+one\b(?!\s+[a-z])|\bby myself\b"
    r"|\b(?:myself|alone|solo)\b(?!\s+and)",
    re.I,
)
_ME_AND_ONE_RE = re.compile(
    r"\b(?:me and (?:my|a) [a-z]+|my [a-z]+ and (?:i|me)|me and (?:him|her))\b(?!\s+(?:and|plus)\s+\d)", re.I
)
_ZERO_RE = re.compile(r"\b(?:no|zero|without|none of the)\s+(?:other\s+)?([a-z]+(?:-[a-z]+)?)", re.I)
_COUPLE_RE = re.compile(r"\ba (?:couple|pair)(?: of)?\b", re.I)
_DOZEN_RE = re.compile(r"\b(?:(half) )?a dozen\b", re.I)
_MONEY_RE = re.compile(
    r"\$\s?(\d[\d,]*(?:\.\d+)?)\s*(k|grand|thousand)?\b|\b(\d[\d,]*(?:\.\d+)?)\s*(k|grand)\b", re.I
)
_DECIMAL_RE = re.compile(r"(?<![\d.:/-])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\d:/])")


def parse_number_words(text: str) -> int | None:
    """ "twenty-one" → 21, "three thousand" → 3000, "two hundred fifty" → 250; None when not a number."""
    total = 0
    current = 0
    seen = False
    for token in re.split(r"[\s-]+", text.lower().strip()):
        if token in {"and", "a"}:
            continue
        if token in _UNITS:
            current += _UNITS[token]
        elif token in _TENS:
            current += _TENS[token]
        elif token in _SCALES:
            current = max(current, 1) * _SCALES[token]
            if _SCALES[token] >= 1000:
                total += current
                current = 0
        else:
            return None
        seen = True
    return total + current if seen else None


def unit_class(word: str | None) -> str | None:
    """The class of a unit word ("kids" → "child"), None for anything else."""
    if word is None:
        return None
    lowered = word.lower()
    for name, members in UNIT_CLASSES.items():
        if lowered in members:
            return name
    return None


def _unit_after(text: str, end: int) -> str | None:
    match = _UNIT_AFTER_RE.match(text, end)
    if match and match.group(1).lower() in _ALL_UNITS:
        return match.group(1).lower()
    return None


def _unit_for(text: str, start: int, end: int) -> str | None:
    unit = _unit_after(text, end)
    if unit is None and _PERSON_BEFORE_RE.search(text[:start]):
        return "people"
    return unit


def find_counts(text: str) -> list[Found]:
    """Every whole number in ``text`` (digits, words, people phrases), in reading order, with its unit."""
    found: list[Found] = []
    taken: list[tuple[int, int]] = []

    def add(value: int, start: int, end: int, unit: str | None) -> None:
        if any(s < end and start < e for s, e in taken):
            return
        taken.append((start, end))
        found.append(Found(value, start, end, unit))

    for m in _ONE_PERSON_RE.finditer(text):
        add(1, m.start(), m.end(), "people")
    for m in _ME_AND_ONE_RE.finditer(text):
        add(2, m.start(), m.end(), "people")
    for m in _DOZEN_RE.finditer(text):
        add(6 if m.group(1) else 12, m.start(), m.end(), _unit_for(text, m.start(), m.end()))
    for m in _COUPLE_RE.finditer(text):
        add(2, m.start(), m.end(), _unit_for(text, m.start(), m.end()))
    for m in _ZERO_RE.finditer(text):
        if m.group(1).lower() in _ALL_UNITS:
            add(0, m.start(), m.end(), m.group(1).lower())
    for m in _WORD_RUN_RE.finditer(text):
        phrase = re.sub(r"[\s-]+(?:and|a)\s*$", "", m.group(0), flags=re.I)
        value = parse_number_words(phrase)
        if value is not None:
            end = m.start() + len(phrase)
            add(value, m.start(), end, _unit_for(text, m.start(), end))
    for m in _DIGITS_RE.finditer(text):
        add(int(m.group(0)), m.start(), m.end(), _unit_for(text, m.start(), m.end()))
    # "a week" / "a night" count one of that unit.
    for m in re.finditer(r"\ba (night|week|day)\b", text, re.I):
        add(1, m.start(), m.end(), m.group(1).lower())
    found.sort(key=lambda f: f.start)
    return found


def _as_number(value: float) -> int | float:
    return int(value) if value == int(value) else value


def find_amounts(text: str) -> list[Found]:
    """Money and plain numbers: "$2,500" → 2500, "4k" → 4000, "three thousand dollars" → 3000."""
    found: list[Found] = []
    for m in _MONEY_RE.finditer(text):
        digits = (m.group(1) or m.group(3) or "").replace(",", "")
        scale = (m.group(2) or m.group(4) or "").lower()
        value = float(digits) * (1000 if scale else 1)
        found.append(Found(_as_number(value), m.start(), m.end()))
    if found:
        return found
    for m in _WORD_RUN_RE.finditer(text):
        value_words = parse_number_words(re.sub(r"[\s-]+(?:and|a)\s*$", "", m.group(0), flags=re.I))
        if value_words is not None:
            found.append(Found(value_words, m.start(), m.end()))
    for m in _DECIMAL_RE.finditer(text):
        if any(f.start <= m.start() < f.end for f in found):
            continue
        value = float(m.group(1).replace(",", "") + (m.group(2) or ""))
        found.append(Found(_as_number(value), m.start(), m.end()))
    found.sort(key=lambda f: f.start)
    return found
