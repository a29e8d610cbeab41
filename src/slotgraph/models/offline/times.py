"""Times of day as HH:MM: "7:30", "half past seven", "half seven" (British: 7:30), "7pm", "19:00", "noon".

When the directive offers times ("We have 6:00 PM, 7:30 PM, 9:00 PM"), a reply is matched against them:
"7:30" or "half past seven" picks 19:30, "the earliest"/"the last one"/"the middle one" pick by position,
"the afternoon one" picks the only afternoon option. Without options, an hour without am/pm is read as:
12 → noon; 1–6 → afternoon/evening (13:00–18:00); 7–11 → evening only when the user, the directive or the
parameter mentions evening, dinner or night, else morning. 13–23 are 24-hour times.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from slotgraph.models.offline.numbers import UNIT_CLASSES, parse_number_words
from slotgraph.models.offline.spans import Claimed, Found, kept_parse

__all__ = ["ClockTime", "find_times", "offered_times", "pick_offered"]

_HOUR_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
_MINUTE_WORDS = (
    r"(?:fifteen|thirty|forty[\s-]five|forty|fifty|twenty|ten|five|oh[\s-](?:one|two|three|four|five|six|"
    r"seven|eight|nine)|(?:twenty|thirty|forty|fifty)[\s-](?:one|two|three|four|five|six|seven|eight|nine))"
)
_MERIDIEM = r"\s*(a\.?m\.?|p\.?m\.?)(?![a-z])"
_DIGITAL_RE = re.compile(rf"(?<![\d.:/$])([01]?\d|2[0-3])[:.]([0-5]\d)(?![\d.]\d)(?:{_MERIDIEM})?", re.I)
_HOUR_MERIDIEM_RE = re.compile(rf"(?<![\d.:/$])\b(1[0-2]|0?[1-9]|{_HOUR_WORDS}){_MERIDIEM}", re.I)
_OCLOCK_RE = re.compile(rf"\b(1[0-2]|0?[1-9]|{_HOUR_WORDS})\s*o[’'\"]?\s?clock\b(?:{_MERIDIEM})?", re.I)
# "6 in the evening", "eleven in the morning", "2 o'clock in the afternoon", "9 at night": the part of the
# day settles am/pm.
_PART_OF_DAY_HOUR_RE = re.compile(
    rf"(?<![\d.:/$])\b(1[0-2]|0?[1-9]|{_HOUR_WORDS})(?:[:.]([0-5]\d))?(?:\s*o[’'\"]?\s?clock)?"
    r"\s+(?:in the (morning|afternoon|evening)|at (night))\b",
    re.I,
)
# "evening 6", "afternoon 12", "night 8": the part of the day before the hour.
_DAY_PART_FIRST_RE = re.compile(
    rf"\b(morning|afternoon|evening|night)\s+(?:at\s+)?(1[0-2]|0?[1-9]|{_HOUR_WORDS})(?:[:.]([0-5]\d))?\b"
    r"(?![:.]\d|\s*(?:am|pm|a\.m|p\.m)\b)",
    re.I,
)
_PAST_TO_RE = re.compile(
    rf"\b(half|(?:a\s+)?quarter|ten|twenty|five|twenty[\s-]five)\s+(past|after|to|till|before)\s+"
    rf"(1[0-2]|0?[1-9]|{_HOUR_WORDS})\b(?:{_MERIDIEM})?",
    re.I,
)
# British "half eight" = 8:30 (never "half an hour", "half a dozen", "half past eight").
_BRITISH_HALF_RE = re.compile(rf"\bhalf\s+(1[0-2]|0?[1-9]|{_HOUR_WORDS})\b(?![:.]\d)(?:{_MERIDIEM})?", re.I)
_WORDS_RE = re.compile(rf"\b({_HOUR_WORDS})[\s-]({_MINUTE_WORDS})\b(?:{_MERIDIEM})?", re.I)
_NAMED_RE = re.compile(r"\b(noon|midday|midnight)\b", re.I)
_BARE_RE = re.compile(rf"(?<![\d.:/$,])\b(1[0-2]|0?[1-9]|{_HOUR_WORDS})\b(?![\d:./,]\d)", re.I)
_UNIT_AFTER_RE = re.compile(r"\s*(?:of\s+)?([a-z]+)", re.I)
_COUNT_UNITS = frozenset().union(*UNIT_CLASSES.values()) - {"party", "size"}
_EVENING_RE = re.compile(r"\b(?:evening|tonight|night|dinner|supper|pm)\b", re.I)
_MORNING_RE = re.compile(r"\b(?:morning|breakfast|am)\b", re.I)
_AFTERNOON_RE = re.compile(r"\bafternoon\b", re.I)
_POSITION_RE = re.compile(
    r"\b(first|earliest|earlier|second|middle|third|last|latest|later|final)\b(?:\s+(?:one|time|slot|option))?",
    re.I,
)
_PART_OF_DAY_RE = re.compile(r"\b(morning|afternoon|evening|night)\b(?:\s+(?:one|time|slot|option))", re.I)


@dataclass(frozen=True, slots=True, order=True)
class ClockTime:
    """A time of day; ``explicit`` when the 24-hour reading is certain (am/pm given, or hour ≥ 13)."""

    hour: int
    minute: int
    explicit: bool = True

    def hhmm(self) -> str:
        return f"{self.hour:02d}:{self.minute:02d}"


def _hour(token: str) -> int:
    value = int(token) if token.isdigit() else parse_number_words(token)
    return int(value or 0)


def _apply_meridiem(hour: int, meridiem: str | None) -> tuple[int, bool]:
    if not meridiem:
        return hour, hour >= 13 or hour == 0
    is_pm = meridiem.lower().startswith("p")
    if hour == 12:
        return (12 if is_pm else 0), True
    return (hour + 12 if is_pm else hour), True


def _minute_words(text: str) -> int:
    cleaned = re.sub(r"^oh[\s-]", "", text.lower())
    return int(parse_number_words(cleaned) or 0)


MAX_TEXT = 2000
"""Characters of a message read for times: a longer message is read up to here (parsing stays linear)."""


def _raw_times(text: str, *, bare: bool) -> tuple[Found, ...]:
    """Every time in ``text`` (up to :data:`MAX_TEXT`), in reading order; parsed once per plan (see
    :func:`~slotgraph.models.offline.spans.parses_kept_for_one_plan`)."""
    return _cached_times_of(text, bare)


def _times_of(text: str, bare: bool) -> tuple[Found, ...]:
    text = text[:MAX_TEXT]
    found: list[Found] = []
    taken = Claimed(len(text))  # characters already part of a time

    def add(hour: int, minute: int, explicit: bool, match: re.Match[str]) -> None:
        if taken.claim(match.start(), match.end()):
            found.append(Found(ClockTime(hour, minute, explicit), match.start(), match.end()))

    for m in _DIGITAL_RE.finditer(text):
        hour, explicit = _apply_meridiem(int(m.group(1)), m.group(3))
        add(hour, int(m.group(2)), explicit, m)
    for m in _PAST_TO_RE.finditer(text):
        amount = {"half": 30, "quarter": 15, "a quarter": 15}.get(" ".join(m.group(1).lower().split()))
        minutes = amount if amount is not None else _minute_words(m.group(1))
        hour = _hour(m.group(3).lower())
        if m.group(2).lower() in {"to", "till", "before"}:
            hour, minutes = (hour - 1) or 12, 60 - minutes
        hour, explicit = _apply_meridiem(hour, m.group(4))
        add(hour, minutes, explicit, m)
    for m in _BRITISH_HALF_RE.finditer(text):
        hour, explicit = _apply_meridiem(_hour(m.group(1).lower()), m.group(2))
        add(hour, 30, explicit, m)
    for m in _OCLOCK_RE.finditer(text):
        hour, explicit = _apply_meridiem(_hour(m.group(1).lower()), m.group(2))
        add(hour, 0, explicit, m)
    for m in _HOUR_MERIDIEM_RE.finditer(text):
        hour, explicit = _apply_meridiem(_hour(m.group(1).lower()), m.group(2))
        add(hour, 0, explicit, m)
    for m in _WORDS_RE.finditer(text):
        hour, explicit = _apply_meridiem(_hour(m.group(1).lower()), m.group(3))
        add(hour, _minute_words(m.group(2)), explicit, m)
    for m in _NAMED_RE.finditer(text):
        add(0 if m.group(1).lower() == "midnight" else 12, 0, True, m)
    for m in _DAY_PART_FIRST_RE.finditer(text):
        part, hour = m.group(1).lower(), _hour(m.group(2).lower())
        if part == "morning":
            hour = 0 if hour == 12 else hour
        elif part in ("afternoon", "evening") or (part == "night" and hour >= 6):
            hour = hour if hour == 12 else hour + 12
        add(hour, int(m.group(3) or 0), True, m)
    for m in _PART_OF_DAY_HOUR_RE.finditer(text):
        part = (m.group(3) or m.group(4) or "").lower()
        hour = _hour(m.group(1).lower())
        if part == "morning":
            hour = 0 if hour == 12 else hour
        elif part == "afternoon" or part == "evening" or (part == "night" and hour >= 6):
            hour = hour if hour == 12 else hour + 12
        add(hour, int(m.group(2) or 0), True, m)
    if bare:
        for m in _BARE_RE.finditer(text):
            unit = _UNIT_AFTER_RE.match(text, m.end())
            if unit and unit.group(1).lower() in _COUNT_UNITS:
                continue  # "for 5 people" is a count, not 5 o'clock
            if re.search(r"\bnot\s+$", text[max(0, m.start() - 6) : m.start()], re.I):
                continue  # "5 people, not 6": a number said only to be denied
            if _PARTY_BEFORE_RE.search(text[max(0, m.start() - 40) : m.start()]):
                continue  # "a reservation for four", "a party of 6": a count of people
            add(_hour(m.group(1).lower()), 0, False, m)
    found.sort(key=lambda f: f.start)
    return tuple(found)


_PARTY_BEFORE_RE = re.compile(
    r"\b(?:(?:party|group)\s+of|(?:table|reservation|booking|seats?|tickets?)\s+(?:for\s+(?:me|us)\s+)?for)\s+$",
    re.I,
)


_cached_times_of = kept_parse(_times_of)


def offered_times(directive: str | None) -> tuple[ClockTime, ...]:
    """The times a directive offers, in its order ("6:00 PM, 7:30 PM" or "17:30, 19:00")."""
    if not directive:
        return ()
    return tuple(f.value for f in _raw_times(directive, bare=False))


@dataclass(frozen=True, slots=True)
class _DayPart:
    """What the message and its context say about the part of the day (read once per message)."""

    morning: bool
    evening: bool
    afternoon: bool

    @classmethod
    def of(cls, context: str) -> _DayPart:
        return cls(
            bool(_MORNING_RE.search(context)),
            bool(_EVENING_RE.search(context)),
            bool(_AFTERNOON_RE.search(context)),
        )


def _resolve(time: ClockTime, day: _DayPart, evening_param: bool) -> ClockTime:
    if time.explicit:
        return time
    hour = time.hour
    if day.morning and not day.evening:
        return ClockTime(hour % 12, time.minute)
    if 1 <= hour <= 6 or (7 <= hour <= 11 and (evening_param or day.evening)):
        return ClockTime(hour + 12, time.minute)
    if day.afternoon and hour < 12:
        return ClockTime(hour + 12, time.minute)
    return ClockTime(hour, time.minute)


def pick_offered(text: str, options: Sequence[ClockTime]) -> Found | None:
    """An offered time picked by position ("the earliest", "the last one") or part of day."""
    if not options:
        return None
    position = _POSITION_RE.search(text)
    ordered = sorted(options)
    if position:
        word = position.group(1).lower()
        index = {
            "first": 0,
            "earliest": 0,
            "earlier": 0,
            "second": 1,
            "third": 2,
            "middle": len(ordered) // 2,
        }
        chosen_index = index.get(word, len(ordered) - 1)
        source = list(options) if word in {"first", "second", "third"} else ordered
        if chosen_index < len(source) and not (word == "middle" and len(source) % 2 == 0):
            return Found(source[chosen_index], position.start(), position.end())
    part = _PART_OF_DAY_RE.search(text)
    if part:
        bounds = {"morning": (0, 12), "afternoon": (12, 17), "evening": (17, 24), "night": (17, 24)}
        low, high = bounds[part.group(1).lower()]
        matching = [o for o in options if low <= o.hour < high]
        if len(matching) == 1:
            return Found(matching[0], part.start(), part.end())
    return None


def find_times(
    text: str,
    *,
    options: Sequence[ClockTime] = (),
    context: str = "",
    evening: bool = False,
    bare: bool = False,
) -> list[Found]:
    """Times in ``text`` as :class:`ClockTime`, matched to ``options`` when the directive offered some.

    ``bare`` also reads a lone hour ("9 works", "about 4") — only when a time is what is being asked.
    ``context`` (directive + parameter description) and ``evening`` feed the am/pm heuristic.
    """
    picked = pick_offered(text, options)
    if picked is not None:
        return [picked]
    results: list[Found] = []
    day: _DayPart | None = None
    for item in _raw_times(text, bare=bare):
        lone_one = not item.value.explicit and text[item.start : item.end].lower() == "one"
        before = text[max(0, item.start - 10) : item.start]
        if lone_one and not re.search(r"\b(?:at|around|about|by)\s+$", before, re.I):
            continue  # "the earliest one" is not 1 o'clock
        time: ClockTime = item.value
        if options:
            same = [
                o
                for o in options
                if o.minute == time.minute
                and (o.hour == time.hour if time.explicit else o.hour % 12 == time.hour % 12)
            ]
            if len(same) == 1:
                results.append(Found(same[0], item.start, item.end))
                continue
        if day is None:
            day = _DayPart.of(f"{text[:MAX_TEXT]} {context}")
        results.append(Found(_resolve(time, day, evening), item.start, item.end))
    return results
