"""What kind of value each visible tool parameter wants, read only from its JSON Schema.

A parameter's kind comes from its type, ``format``, ``enum`` and ``pattern``, then from the words of its
name and description (``date``, ``time``, ``phone``, ``email``, ``name``, ...). Nothing here knows a
particular agent: a parameter called ``arrival_time`` and one called ``slot_time`` are both times because
their names say so, and the same rules would read any other agent's tools.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from slotgraph.models.offline.choices import value_words
from slotgraph.models.offline.entities import ENTITY_WORDS
from slotgraph.models.offline.lexicon import learned_decimals, learned_values
from slotgraph.models.offline.numbers import unit_class
from slotgraph.models.offline.places import place_role
from slotgraph.models.offline.spans import stem, words
from slotgraph.names import CONFIRM_PENDING, REJECT_PENDING

__all__ = [
    "CONFIRM_TOOL",
    "RATING_WORDS",
    "REJECT_TOOL",
    "Kind",
    "Param",
    "Setter",
    "param_notes",
    "read_setters",
]

CONFIRM_TOOL = CONFIRM_PENDING
REJECT_TOOL = REJECT_PENDING

Kind = Literal[
    "integer", "number", "date", "time", "phone", "email", "name", "choice", "boolean", "identifier", "text"
]

_PAST_WORDS = frozenset(
    {"birth", "born", "dob", "birthday", "incident", "happened", "occurred", "loss", "accident", "past"}
)
_EVENING_WORDS = frozenset({"dinner", "evening", "night", "tonight", "supper"})
_NAME_WORDS = frozenset({"name", "surname", "firstname", "lastname", "fullname"})
_IDENTIFIER_WORDS = frozenset({"number", "id", "code", "reference", "ref", "identifier", "account", "policy"})
_PERSON_WORDS = frozenset(
    {"patient", "guest", "customer", "passenger", "attendee", "holder", "person", "contact"}
)
_SENTINEL_RE = re.compile(r"""['"]([A-Za-z/]+)['"]\s+(?:if|when)\b""")
_ONE_OF_RE = re.compile(
    r"\b(?:one of|either)\s*:?\s+"
    r"((?:[A-Za-z0-9_]+(?:\s*,\s*or\s+|\s*,\s*|\s+or\s+))+[A-Za-z0-9_]+)\s*(?=[.;)]|$)",
    re.IGNORECASE,
)
_LIST_SEPARATOR_RE = re.compile(r"\s*,\s*or\s+|\s*,\s*|\s+or\s+", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of a visible setter, with the kind of value it wants and how to format it."""

    tool: str
    name: str
    kind: Kind
    words: frozenset[str]
    text: str = ""
    name_words: frozenset[str] = frozenset()
    enum: tuple[Any, ...] = ()
    pattern: str | None = None
    past: bool = False
    evening: bool = False
    empty_value: str = "none"
    role: str | None = None  # for a place: "origin", "destination" or "" (neither); None otherwise
    scale_max: int | None = None
    """For a number on a scale ("Pain from 1 to 10", ``maximum: 10``): the top of the scale."""
    entity: bool = False
    """A name parameter naming a business or place ("Name of the restaurant"), not a person."""
    value_notes: tuple[tuple[Any, str], ...] = ()
    """Enum values with the words the description gives each ("FindRestaurants = find a restaurant ...")."""
    name_stems: frozenset[str] = frozenset()
    """The stemmed content words of the name (what a question naming the parameter says)."""
    value_stems: frozenset[str] = frozenset()
    """The stemmed words of the enum values and their notes, name words left out."""
    described_stems: frozenset[str] = frozenset()
    """The stemmed words of the description, name and value words left out."""
    unit_classes: frozenset[str] = frozenset()
    """What its words count, if anything ("Number of adults" → adult; "nights" → night)."""
    as_string: bool = False
    """A value of another kind (a count) is written as a string: the schema's type is ``string``."""
    structured: bool = False
    """A list or an object (``exclude: array``): never filled from what the user said."""
    decimals: int | None = None
    """How many decimals its numbers are written with, learned from real dialogues ("4.20")."""
    learned: tuple[tuple[str, str], ...] = ()
    """Surface → canonical values learned from real dialogues for parameters described alike
    (:mod:`~slotgraph.models.offline.lexicon`): "sushi" → Japanese for a cuisine."""

    @property
    def key(self) -> tuple[str, str]:
        return (self.tool, self.name)


@dataclass(frozen=True, slots=True)
class Setter:
    """A visible tool with its parameters (no parameters for ``confirm_pending`` and the like)."""

    name: str
    params: tuple[Param, ...]


def _json_type(schema: Mapping[str, Any]) -> str | None:
    """The schema's type; for a union such as ``["integer", "null"]`` the first non-null member."""
    declared = schema.get("type")
    if isinstance(declared, list):
        declared = next((t for t in declared if t != "null"), None)
    if declared is None and isinstance(schema.get("anyOf"), list):
        members = [m for m in schema["anyOf"] if isinstance(m, Mapping) and m.get("type") != "null"]
        declared = members[0].get("type") if members else None
    return str(declared) if declared is not None else None


def param_notes(tool_description: str, names: Sequence[str]) -> dict[str, str]:
    """Per-parameter notes written in the tool description ("party_size: the number of guests ...")."""
    notes: dict[str, str] = {}
    if not names:
        return notes
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    marker = re.compile(rf"(?<![\w.])({alternatives})\s*(?::|\s-\s|\s—\s)\s*")
    matches = list(marker.finditer(tool_description))
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(tool_description)
        paragraph_end = tool_description.find("\n\n", match.end())
        if 0 <= paragraph_end < end:
            end = paragraph_end
        notes.setdefault(match.group(1), tool_description[match.end() : end].strip())
    return notes


def value_notes(enum: Sequence[Any], description: str) -> tuple[tuple[Any, str], ...]:
    """What the description says each enum value means: ``VALUE = words``, ``VALUE: words``, ``VALUE (words)``
    or ``VALUE - words``, up to the next ``;``, closing parenthesis or line end. Values without a note are
    left out."""
    notes: list[tuple[Any, str]] = []
    for value in enum:
        if not isinstance(value, str) or not value:
            continue
        match = re.search(
            rf"(?<![\w]){re.escape(value)}(?![\w])\s*(?:=|:|\(|\s-\s|\s—\s)\s*([^;\n)]+)", description
        )
        if match and match.group(1).strip(" .,"):
            notes.append((value, match.group(1).strip(" .,")))
    return tuple(notes)


def listed_values(description: str) -> tuple[str, ...]:
    """The values a text parameter's description lists as its only ones — ``One of cleaning, checkup,
    broken_tooth.`` or ``either cash or card`` (single words or snake_case identifiers) — else ``()``: a
    parameter described so is a choice among them, as an ``enum`` would say."""
    match = _ONE_OF_RE.search(description)
    if match is None:
        return ()
    values = tuple(v for v in _LIST_SEPARATOR_RE.split(match.group(1)) if v)
    return values if len(values) >= 2 and len(set(values)) == len(values) else ()


def _kind(name_words: list[str], desc_words: list[str], schema: Mapping[str, Any], raw: str) -> Kind:
    json_type = _json_type(schema)
    fmt = str(schema.get("format") or "").lower()
    text = " ".join(name_words) + " " + raw.lower()
    if schema.get("enum"):
        return "choice"
    if json_type == "boolean":
        return "boolean"
    if json_type == "integer":
        return "integer"
    if json_type == "number":
        return "number"
    if fmt == "date" or "date" in name_words or "yyyy-mm-dd" in text or "dob" in name_words:
        return "date"
    if fmt == "time" or "time" in name_words or "hh:mm" in text.replace(" ", ""):
        return "time"
    if fmt == "email" or "email" in name_words or "e-mail" in name_words:
        return "email"
    if {"phone", "mobile", "cell", "telephone"} & set(name_words):
        return "phone"
    if fmt in {"phone", "tel"} or {"phone", "mobile", "e.164", "e164"} & set(desc_words):
        return "phone"
    if _NAME_WORDS & set(name_words) and not _IDENTIFIER_WORDS & set(name_words):
        return "name"
    if not schema.get("pattern") and (_COUNT_RE.match(raw) or _COUNT_RE.match(" ".join(name_words))):
        return "integer"  # "Number of days in the reservation" is a count, even as a string
    if schema.get("pattern") or _IDENTIFIER_WORDS & set(name_words):
        return "identifier"
    if "date" in desc_words or "day" in name_words:
        return "date"
    return "text"


_COUNT_RE = re.compile(
    r"\s*(?:the\s+)?(?:(?:total\s+)?number|num|count|quantity|amount)\s+of\s+(?!the\s+\w+\s*$)|\s*how\s+many\b"
    r"|.*\b(?:length|duration|how long)\b.*\bin\s+(?:days|nights|weeks|months|hours|minutes|years)\b",
    re.I,
)
RATING_WORDS = frozenset({"rating", "ratings", "score", "stars", "star", "rated"})
"""Words of a text parameter whose value is a number on a scale ("Review rating of the house")."""
_SCALE_RE = re.compile(
    r"\b(?:from\s+)?(?:0|1|one|zero)\s*(?:to|-|–)\s*(\d{1,3})\b|\bout of (\d{1,3})\b", re.I
)


def _scale_max(schema: Mapping[str, Any], description: str) -> int | None:
    maximum = schema.get("maximum")
    if isinstance(maximum, int | float) and not isinstance(maximum, bool) and maximum <= 1000:
        return int(maximum)
    match = _SCALE_RE.search(description)
    return int(match.group(1) or match.group(2)) if match else None


STOP_WORDS = frozenset(
    {
        "a", "an", "the", "and", "or", "of", "to", "for", "in", "on", "at", "is", "are", "be", "will",
        "would", "could", "you", "your", "we", "us", "our", "i", "me", "my", "it", "its", "this", "that",
        "what", "which", "who", "how", "when", "where", "do", "does", "did", "please", "any", "if", "there",
        "with", "by", "as", "from", "can", "may", "have", "has", "should", "just"
    }
)  # fmt: skip
"""Words that say nothing about which parameter a question is about."""


def _stems(
    name_words: Sequence[str],
    enum: Sequence[Any],
    notes: Sequence[tuple[Any, str]],
    all_words: frozenset[str],
) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    name = {stem(w) for w in name_words if w not in STOP_WORDS}
    values = {stem(w) for v in enum for w in value_words(v)} - name
    values |= {stem(w) for _, note in notes for w in words(note) if w not in STOP_WORDS} - name
    described = {stem(w) for w in all_words if w not in STOP_WORDS} - name - values
    return frozenset(name), frozenset(values), frozenset(described)


def _param(tool: str, name: str, schema: Mapping[str, Any], note: str) -> Param:
    name_words = [w for w in re.split(r"[_\-\s]+", name.lower()) if w]
    description = str(schema.get("description") or note)
    desc_words = words(description)
    all_words = frozenset(name_words) | frozenset(desc_words)
    sentinel = _SENTINEL_RE.search(description)
    kind = _kind(name_words, desc_words, schema, description)
    enum = tuple(schema.get("enum") or ())
    listed = listed_values(description) if kind == "text" and _json_type(schema) in ("string", None) else ()
    if listed:
        kind, enum = "choice", listed
    notes = value_notes(enum, description) if kind == "choice" else ()
    name_stems, value_stems, described_stems = _stems(name_words, enum, notes, all_words)
    return Param(
        tool=tool,
        name=name,
        kind=kind,
        words=all_words,
        text=f"{name} {description}".lower(),
        name_words=frozenset(name_words),
        enum=enum,
        value_notes=notes,
        name_stems=name_stems,
        value_stems=value_stems,
        described_stems=described_stems,
        unit_classes=frozenset(c for c in (unit_class(w) for w in all_words) if c is not None),
        as_string=kind in ("integer", "number") and _json_type(schema) == "string",
        structured=_json_type(schema) in ("array", "object"),
        decimals=learned_decimals(description) if kind == "text" and RATING_WORDS & all_words else None,
        learned=learned_values(description or name.replace("_", " "), name=kind == "name")
        if kind in ("text", "choice", "name")
        else (),
        scale_max=_scale_max(schema, description) if kind in ("integer", "number") else None,
        entity=kind == "name" and bool(ENTITY_WORDS & all_words) and not bool(_PERSON_WORDS & all_words),
        pattern=str(schema["pattern"]) if schema.get("pattern") else None,
        past=bool(_PAST_WORDS & all_words),
        evening=bool(_EVENING_WORDS & all_words),
        empty_value=sentinel.group(1) if sentinel else "none",
        role=place_role(name_words, all_words) if kind == "text" else None,
    )


def read_setters(tools: Sequence[Mapping[str, Any]]) -> tuple[Setter, ...]:
    """Every visible tool as a :class:`Setter` with typed parameters (schema order kept)."""
    return tuple(_read_setter(tool) for tool in tools)


def _read_setter(tool: Mapping[str, Any]) -> Setter:
    name = str(tool["name"])
    parameters = tool.get("parameters") or {}
    # the readback tools' optional ``slots`` is not a value to extract: they are called by name (planner)
    properties = {} if name in (CONFIRM_TOOL, REJECT_TOOL) else parameters.get("properties") or {}
    notes = param_notes(str(tool.get("description") or ""), list(properties))
    params = tuple(
        _param(name, pname, pschema or {}, notes.get(pname, "")) for pname, pschema in properties.items()
    )
    return Setter(name=name, params=params)
