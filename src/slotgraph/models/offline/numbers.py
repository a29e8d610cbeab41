"""Counts and amounts: digits or words ("four", "a dozen", "twenty-one"), people phrases, money.

:func:`find_counts` returns every whole number in a text with the unit word that follows it ("3 nights",
"two kids") or that a phrase implies ("just me" → 1 person, "the two of us" → 2 people, "me and my wife"
→ 2 people, "no kids" → 0 children). :func:`find_amounts` reads money and plain decimals ("$2,500",
"4k", "three thousand dollars", "1200.50").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from slotgraph.models.offline.spans import Claimed, Found

__all__ = [
    "UNIT_CLASSES",
    "PeopleGroup",
    "find_amounts",
    "find_counts",
    "find_people_groups",
    "names_own_unit",
    "parse_number_words",
    "unit_class",
    "word_after",
]

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
                         "party", "passengers", "passenger", "travelers", "attendees", "seats", "size",
                         "riders", "rider", "travellers", "individuals", "individual", "visitors"}),
    "adult": frozenset({"adult", "adults", "grown-up", "grown-ups", "grownups", "grownup"}),
    "child": frozenset({"child", "children", "kid", "kids", "baby", "babies", "infant", "infants", "toddler",
                        "toddlers"}),
    "night": frozenset({"night", "nights"}),
    "day": frozenset({"day", "days"}),
    "week": frozenset({"week", "weeks"}),
    "room": frozenset({"room", "rooms"}),
    "month": frozenset({"month", "months"}),
    "item": frozenset({"item", "items", "ticket", "tickets", "bag", "bags", "unit", "units", "suitcase",
                       "suitcases", "case", "cases", "backpack", "backpacks", "box", "boxes"}),
}  # fmt: skip
_ALL_UNITS = frozenset().union(*UNIT_CLASSES.values())
_CLASS_OF: dict[str, str] = {}
"""Each unit word's class (the first class listing it, as a walk of :data:`UNIT_CLASSES` finds it)."""
for _name, _members in UNIT_CLASSES.items():
    for _member in _members:
        _CLASS_OF.setdefault(_member, _name)
_UNIT_AFTER_RE = re.compile(
    r"\s?(?:more\s+|other\s+|of\s+(?=us\b))?(?:(?:big|large|small|little|young|extra)\s+)?"
    r"([a-z]+(?:-[a-z]+)?)",
    re.IGNORECASE,
)
_PERSON_LOOKBEHIND = 80
"""Characters before a number searched for a party phrase ("a table for 4"): bounded, so parsing is linear."""
_PERSON_BEFORE_RE = re.compile(
    r"^\W*(?:(?:yes|yeah|yep|sure|ok|okay|no)\W+)?(?:just\s+|only\s+)?for\s*$"  # "Yes, for two."
    r"|\b(?:(?:party|table|group|booking|reservation)\s+(?:(?:for\s+(?:me|us)\s+)?for|of)"
    r"|(?:cab|taxi|ride|car|house|room|place|seats?|tickets?)\s+for)\s*$",
    re.I,
)
_ONE_PERSON_RE = re.compile(
    r"\b(?:just|only)\s+(?:for\s+)?(?:me|myself)\b|\b(?:just|only)\s+(?:for\s+)?one\b(?!\s+[a-z])"
    r"|\b(?:i am|i'm) the only one\b"
    r"|\bby myself\b"
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


# People named one by one ("my husband, me and our two daughters"): words for one adult / one child.
_ADULT_NOUNS = [
    "wife", "husband", "partner", "spouse", "boss", "friend", "colleague", "coworker", "co-worker",
    "teammate", "mom", "mum", "mother", "dad", "father", "brother", "sister", "fiance", "fiancé", "fiancee",
    "girlfriend", "boyfriend", "grandma", "grandpa", "grandmother", "grandfather", "aunt", "uncle",
    "cousin", "roommate", "flatmate", "neighbour", "neighbor", "parent", "manager", "assistant", "client",
    "adult", "guest", "mother-in-law", "father-in-law", "sister-in-law", "brother-in-law",
]  # fmt: skip
_CHILD_NOUNS = [
    "son", "daughter", "boy", "girl", "kid", "child", "baby", "toddler", "infant", "grandson",
    "granddaughter", "niece", "nephew",
]  # fmt: skip
_PLURALS = {"child": "children", "baby": "babies"}
_CHILD_PLURALS = frozenset(_PLURALS.get(n, n + "s") for n in _CHILD_NOUNS)
_CHILD_WORDS = frozenset(_CHILD_NOUNS) | _CHILD_PLURALS
_SINGULAR = "|".join(sorted(_ADULT_NOUNS + _CHILD_NOUNS, key=len, reverse=True))
_PLURAL = "|".join(
    sorted({_PLURALS.get(n, n + "s") for n in _ADULT_NOUNS + _CHILD_NOUNS} | {"people", "guests"}, key=len,
           reverse=True)
)  # fmt: skip
_COUNT = rf"\d{{1,2}}|{'|'.join(sorted([*_UNITS, *_TENS], key=len, reverse=True))}"
_ADJ = r"(?:(?:little|young|small|older|younger|eldest|oldest|youngest|teenage|baby|new|grown-up)\s+)?"
_MEMBER = (
    rf"(?:(?P<self>\b(?:me|myself|i(?!\s+(?:think|guess|believe|mean|suppose)\b)))\b"
    rf"|\b(?:(?:my|our|the|his|her|their)\s+)?(?P<num>{_COUNT})\s+(?:{_ADJ}(?P<plural>{_PLURAL})|of\s+us)\b"
    r"|\b(?:my|our|his|her|their|the)\s+(?P<pair>(?:grand)?parents)\b"
    rf"|\b(?:my|our|the|his|her|their|a|an)\s+{_ADJ}(?P<one>{_SINGULAR})\b)"
)
_MEMBER_RE = re.compile(_MEMBER, re.I)
_SEPARATOR = r"(?:\s*,\s*(?:and\s+|plus\s+)?|\s+(?:and|plus|with|&)\s+|\s*\+\s*)"
_GROUP_RE = re.compile(rf"{_MEMBER}(?:{_SEPARATOR}{_MEMBER.replace('?P<', '?P<x_')})+", re.I)


@dataclass(frozen=True, slots=True)
class PeopleGroup:
    """People counted across a phrase: how many adults and how many children."""

    adults: int
    children: int

    @property
    def total(self) -> int:
        return self.adults + self.children


def _group_members(phrase: str) -> PeopleGroup | None:
    adults = children = 0
    named_one = False
    members = 0
    for m in _MEMBER_RE.finditer(phrase):
        members += 1
        if m.group("self"):
            adults += 1
            named_one = True
        elif m.group("pair"):
            adults += 2
            named_one = True
        elif m.group("one"):
            named_one = True
            if m.group("one").lower() in _CHILD_WORDS:
                children += 1
            else:
                adults += 1
        else:
            number = m.group("num")
            value = int(number) if number.isdigit() else parse_number_words(number)
            if value is None:
                return None
            if (m.group("plural") or "").lower() in _CHILD_WORDS:
                children += value
            else:
                adults += value
    # "2 adults and 1 child" is two separate counts (read by find_counts); a list counts only when someone
    # is named one by one ("me", "my wife", "a baby").
    if members < 2 or not named_one:
        return None
    return PeopleGroup(adults, children)


def find_people_groups(text: str) -> list[Found]:
    """People listed one by one and counted: "my husband, me and our two daughters" → 2 adults, 2 children.

    Each :class:`Found` holds a :class:`PeopleGroup` (adults, children); "me and my wife" → (2, 0),
    "two adults plus a baby" → (2, 1), "myself plus three teammates" → (4, 0).
    """
    found: list[Found] = []
    for m in _GROUP_RE.finditer(text):
        group = _group_members(m.group(0))
        if group is not None:
            found.append(Found(group, m.start(), m.end()))
    return found


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
    return _CLASS_OF.get(word.lower())


_WORD_AFTER_RE = re.compile(r"\s?(?:more\s+|other\s+|extra\s+)?([a-z]+)", re.I)


def word_after(text: str, end: int) -> str | None:
    """The word right after a count ("2 bedroom apartment" → bedroom), lower-cased; None at a non-word."""
    match = _WORD_AFTER_RE.match(text, end)
    return match.group(1).lower() if match else None


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def names_own_unit(word: str | None, param_words: frozenset[str]) -> bool:
    """Whether ``word``, said after a count, is what the parameter counts by its own words: "bedroom" for
    "Number of bed rooms", "tickets" for "Number of tickets" (a word of three letters or more)."""
    if word is None or len(word) < 3:
        return False
    said = _stem(word)
    own = {_stem(w) for w in param_words if len(w) >= 3 and w not in {"number", "the", "and", "for"}}
    return said in own or any(said == a + b for a in own for b in own if a != b)


def _unit_after(text: str, end: int) -> str | None:
    match = _UNIT_AFTER_RE.match(text, end)
    if match and match.group(1).lower() in _ALL_UNITS:
        return match.group(1).lower()
    return None


def _unit_for(text: str, start: int, end: int) -> str | None:
    unit = _unit_after(text, end)
    if unit is None and _PERSON_BEFORE_RE.search(text, max(0, start - _PERSON_LOOKBEHIND), start):
        return "people"
    return unit


def _count_value(said: str) -> int | None:
    return int(said) if said.isdigit() else parse_number_words(said)


def find_counts(text: str) -> list[Found]:
    """Every whole number in ``text`` (digits, words, people phrases), in reading order, with its unit."""
    found: list[Found] = []
    taken = Claimed(len(text))

    def add(value: int, start: int, end: int, unit: str | None) -> None:
        if taken.claim(start, end):
            found.append(Found(value, start, end, unit))

    for m in _ONE_PERSON_RE.finditer(text):
        add(1, m.start(), m.end(), "people")
    for m in _WE_ARE_RE.finditer(text):
        group = "n" if m.group("n") else "n2"
        value = _count_value(m.group(group))
        if value is not None:
            add(value + (1 if m.group("others") else 0), m.start(group), m.end(), "people")
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
        if phrase.lower() == "one" and _PRONOUN_ONE_RE.search(text, max(0, m.start() - 20), m.start()):
            continue  # "that one", "the first one": a choice, not a count
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


_WE_ARE_RE = re.compile(
    rf"\b(?:(?:we|there)\s+(?:are|will be)|we're|we'll be|there'll be)\s+(?P<n>{_COUNT})"
    r"(?=\s*(?:[.,!?;]|$|in total|altogether|of us))"
    rf"|\bwith\s+(?P<n2>{_COUNT})\s+(?P<others>others|other (?:people|persons|guests|adults))\b",
    re.I,
)  # "we are three", "there'll be 4 of us"; "with 2 other people" counts the speaker too


_PRONOUN_ONE_RE = re.compile(
    r"\b(?i:that|this|the|which|any|another|other|a different|each|every|first|second|third|last|next|"
    r"same|cheaper|better|nicer|new|other)\s+$"
    r"|\b(?i:the|that|this|which)\s+(?!(?i:number|party|group|total)\b)[\w'’-]+\s+$"
    r"|(?<!^)(?<![.!?]\s)\b[A-Z][\w'’-]+\s+$",
)  # "that one", "the first one", "the Hilton one", "the cheap one": a choice, not a count
_MAX_NUMBER_WORDS = 8
"""Words after the first in a number before its last scale word ("two hundred and fifty | thousand"): the
longest run is read as one number; bounded, so the search does not try every run of number words from every
start (quadratic in a message made of them)."""
_BASE_WORD = "|".join(sorted([*_UNITS, *_TENS], key=len, reverse=True))
_SCALED_RE = re.compile(
    rf"\b(\d+(?:\.\d+)?|(?:{_BASE_WORD})(?:[\s-]+(?:{_NUMBER_WORD})\b){{0,{_MAX_NUMBER_WORDS}}})"
    r"(\s+and\s+a\s+half)?\s+(grand|thousand|k|hundred)\b",
    re.I,
)


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
    for m in _SCALED_RE.finditer(text):  # "two and a half grand", "1.5 thousand", "three grand"
        head, scale_word = m.group(1), m.group(3).lower()
        scale = 100 if scale_word == "hundred" else 1000
        if head[0].isdigit():
            number: float | None = float(head) * scale
        else:  # the words and their scale as one number: "two hundred and fifty thousand" is 250,000
            number = parse_number_words(f"{head} {scale_word}")
        if number is None:
            continue
        number += scale / 2 if m.group(2) else 0
        found.append(Found(_as_number(number), m.start(), m.end()))
    if found:
        return found
    words = Claimed(len(text))
    for m in _WORD_RUN_RE.finditer(text):
        value_words = parse_number_words(re.sub(r"[\s-]+(?:and|a)\s*$", "", m.group(0), flags=re.I))
        if value_words is not None:
            words.claim(m.start(), m.end())
            found.append(Found(value_words, m.start(), m.end()))
    for m in _DECIMAL_RE.finditer(text):
        if words.is_claimed(m.start()):
            continue
        value = float(m.group(1).replace(",", "") + (m.group(2) or ""))
        found.append(Found(_as_number(value), m.start(), m.end()))
    found.sort(key=lambda f: f.start)
    return found
