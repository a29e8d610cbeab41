"""Dates relative to the session clock: "next Friday", "June 25th", "the 3rd", "25/06", "two days ago".

Common phrasings are read by the patterns below (fast and exact); anything else that looks like a date is
handed to ``dateparser`` with ``RELATIVE_BASE`` = the session clock. Conventions, chosen once:

- bare weekday / "this Friday" / "next Friday": the first such day after today (future parameters);
  "last Friday" or a weekday for a past parameter: the same weekday in the previous calendar week when
  said with "last", else the most recent one before today;
- a day or month-day without a year: the next one not before today (or, for a past parameter such as a
  date of birth or an incident, the latest one not after today);
- "03/04": month first for region US/CA/PH, day first elsewhere; a part above 12 settles it.

A parameter is "past" when its name or description talks about a birth, an incident, a loss, etc.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import warnings
from typing import Any

from slotgraph.models.offline.numbers import parse_number_words
from slotgraph.models.offline.spans import Claimed, Found, kept_parse

__all__ = ["find_date_range", "find_dates", "parse_date_fallback"]

_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4, "may": 5,
    "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sept": 9, "sep": 9,
    "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}  # fmt: skip
_WEEKDAYS = {
    "monday": 0, "mon": 0, "tuesday": 1, "tue": 1, "tues": 1, "wednesday": 2, "wed": 2, "thursday": 3,
    "thu": 3, "thurs": 3, "friday": 4, "fri": 4, "saturday": 5, "sunday": 6,
}  # fmt: skip
_ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
    "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20,
    "thirtieth": 30,
}  # fmt: skip
_MONTH_ALT = "|".join(sorted(_MONTHS, key=len, reverse=True))
_WEEKDAY_ALT = "|".join(sorted(_WEEKDAYS, key=len, reverse=True))
_ORD_WORD_ALT = (
    r"(?:twenty|thirty)[\s-](?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)|"
    + "|".join(sorted(_ORDINAL_WORDS, key=len, reverse=True))
)
_DAY = rf"(?:(\d{{1,2}})(?:st|nd|rd|th)?|({_ORD_WORD_ALT}))"
_YEAR = r"(?:,?\s*(\d{4}))?"
_MONTH_FIRST_REGIONS = frozenset({"US", "CA", "PH"})

_ISO_RE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_NUMERIC_RE = re.compile(r"(?<![\d.:])(\d{1,2})[/.](\d{1,2})(?:[/.](\d{4}|\d{2}))?(?![\d:])")
_NOT_A_DAY = (
    r"(?!\s*(?:nights?|days?|weeks?|months?|people|persons?|guests?|adults?|kids?|children|rooms?|tickets?"
    r"|seats?|riders?|passengers?|of us|[ap]\.?m\b|o'?clock|[:.]\d))"
)  # "Friday, 3 nights", "Friday 7pm": a count or an hour after a weekday is no day of the month
_MONTH_DAY_RE = re.compile(rf"\b({_MONTH_ALT})\.?\s+(?:the\s+)?{_DAY}\b{_NOT_A_DAY}{_YEAR}", re.I)
_DAY_MONTH_RE = re.compile(rf"\b(?:the\s+)?{_DAY}\s+(?:of\s+)?({_MONTH_ALT})\b\.?{_YEAR}", re.I)
_WEEK_ON_RE = re.compile(
    rf"\b(?:a\s+)?week\s+(?:on|from)\s+({_WEEKDAY_ALT})\b|\b({_WEEKDAY_ALT})\s+week\b", re.I
)
_WEEKDAY_DAY_RE = re.compile(rf"\b({_WEEKDAY_ALT}),?\s+(?:the\s+)?{_DAY}\b{_NOT_A_DAY}", re.I)
_WEEKDAY_RE = re.compile(rf"\b(?:(this|next|last|coming|on)\s+)?({_WEEKDAY_ALT})\b", re.I)
_ORDINAL_RE = re.compile(
    rf"\b(?:on\s+)?the\s+(?:(\d{{1,2}})(?:st|nd|rd|th)|({_ORD_WORD_ALT}))\b|\b(\d{{1,2}})(?:st|nd|rd|th)\b",
    re.I,
)
_RELATIVE_RE = re.compile(
    r"\b(?:the\s+)?(day after tomorrow|day before yesterday|tomorrow|today|tonight|yesterday|last night"
    r"|this (?:morning|afternoon|evening))(?:\s+(?:night|morning|afternoon|evening))?\b",
    re.I,
)
_OFFSET_RE = re.compile(
    r"\b(?:in\s+(a|an|\w+)\s+(days?|weeks?)|(a|an|\w+)\s+(days?|weeks?)\s+(ago|from (?:today|now)))\b", re.I
)
_RELATIVE_DAYS = {
    "today": 0, "tonight": 0, "this morning": 0, "this afternoon": 0, "this evening": 0, "tomorrow": 1,
    "day after tomorrow": 2, "yesterday": -1, "last night": -1, "day before yesterday": -2,
}  # fmt: skip
_DATE_HINT_RE = re.compile(rf"\b(?:{_MONTH_ALT}|{_WEEKDAY_ALT}|weeks?|weekend|months?|years?|ago)\b", re.I)
_TIME_LIKE_RE = re.compile(r"\d[:.]\d|\b(?:am|pm|o'?clock|noon|midnight)\b", re.I)


def _day_number(digits: str | None, word: str | None) -> int | None:
    if digits:
        return int(digits)
    if word:
        parts = re.split(r"[\s-]+", word.lower())
        if len(parts) == 2:
            return (20 if parts[0] == "twenty" else 30) + _ORDINAL_WORDS[parts[1]]
        return _ORDINAL_WORDS.get(parts[0])
    return None


def _safe_date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _month_day(today: dt.date, month: int, day: int, year: int | None, past: bool) -> dt.date | None:
    if year is not None:
        return _safe_date(year, month, day)
    candidate = _safe_date(today.year, month, day)
    if candidate is None:
        return None
    if past and candidate > today:
        return _safe_date(today.year - 1, month, day)
    if not past and candidate < today:
        return _safe_date(today.year + 1, month, day)
    return candidate


def _day_of_month(today: dt.date, day: int, past: bool) -> dt.date | None:
    year, month = today.year, today.month
    for _ in range(12):
        candidate = _safe_date(year, month, day)
        if candidate is not None and (candidate <= today if past else candidate >= today):
            return candidate
        month += -1 if past else 1
        if month == 0:
            year, month = year - 1, 12
        elif month == 13:
            year, month = year + 1, 1
    return None


def _weekday(today: dt.date, weekday: int, modifier: str, past: bool) -> dt.date:
    if modifier == "last":
        start_of_last_week = today - dt.timedelta(days=today.weekday() + 7)
        return start_of_last_week + dt.timedelta(days=weekday)
    if past and modifier not in {"next", "coming", "this"}:
        back = (today.weekday() - weekday) % 7 or 7
        return today - dt.timedelta(days=back)
    ahead = (weekday - today.weekday()) % 7
    if ahead == 0 and modifier != "this":
        ahead = 7
    return today + dt.timedelta(days=ahead)


def _year(text: str | None) -> int | None:
    return int(text) if text else None


def find_dates(text: str, now: dt.datetime, *, past: bool = False, region: str = "US") -> list[Found]:
    """Every date in ``text`` as a :class:`datetime.date`, in reading order, with its span.

    Only ``now``'s date matters. The answer for a (text, date, past, region) is kept while one plan is
    made (:func:`~slotgraph.models.offline.spans.parses_kept_for_one_plan`): a plan reads the same message
    for each date parameter."""
    return list(_cached_dates_of(text, now.date(), past, region))


def _dates_of(text: str, today: dt.date, past: bool, region: str) -> tuple[Found, ...]:
    found: list[Found] = []

    taken = Claimed(len(text))

    def add(value: dt.date | None, match: re.Match[str]) -> None:
        if value is not None and taken.claim(match.start(), match.end()):
            found.append(Found(value, match.start(), match.end()))

    for m in _ISO_RE.finditer(text):
        add(_safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3))), m)
    for m in _MONTH_DAY_RE.finditer(text):
        day = _day_number(m.group(2), m.group(3))
        if day is not None:
            add(_month_day(today, _MONTHS[m.group(1).lower()], day, _year(m.group(4)), past), m)
    for m in _DAY_MONTH_RE.finditer(text):
        day = _day_number(m.group(1), m.group(2))
        if day is not None:
            add(_month_day(today, _MONTHS[m.group(3).lower()], day, _year(m.group(4)), past), m)
    for m in _NUMERIC_RE.finditer(text):
        first, second = int(m.group(1)), int(m.group(2))
        if m.group(0).count(".") and not m.group(3):
            continue  # "7.30" is a time, not a date
        month_first = region.upper() in _MONTH_FIRST_REGIONS
        if first > 12:
            month_first = False
        elif second > 12:
            month_first = True
        month, day = (first, second) if month_first else (second, first)
        year = _year(m.group(3)) if m.group(3) and len(m.group(3)) == 4 else None
        if m.group(3) and len(m.group(3)) == 2:
            year = (
                2000 + int(m.group(3)) if int(m.group(3)) <= today.year % 100 + 1 else 1900 + int(m.group(3))
            )
        add(_month_day(today, month, day, year, past), m)
    for m in _WEEKDAY_DAY_RE.finditer(text):
        day = _day_number(m.group(2), m.group(3))
        if day is not None:
            add(_day_of_month(today, day, past), m)
    for m in _WEEK_ON_RE.finditer(text):  # "a week on Friday" / "Friday week": that weekday, a week later
        weekday = _WEEKDAYS[(m.group(1) or m.group(2)).lower()]
        add(_weekday(today, weekday, "", past) + dt.timedelta(days=7), m)
    for m in _OFFSET_RE.finditer(text):
        amount_word = (m.group(1) or m.group(3) or "").lower()
        amount = 1 if amount_word in {"a", "an"} else parse_number_words(amount_word)
        if amount is None and amount_word.isdigit():
            amount = int(amount_word)
        if amount is None:
            continue
        unit = (m.group(2) or m.group(4) or "").lower()
        days = amount * (7 if unit.startswith("week") else 1)
        add(today - dt.timedelta(days=days) if m.group(5) == "ago" else today + dt.timedelta(days=days), m)
    for m in _RELATIVE_RE.finditer(text):
        add(today + dt.timedelta(days=_RELATIVE_DAYS[" ".join(m.group(1).lower().split())]), m)
    for m in _WEEKDAY_RE.finditer(text):
        modifier = (m.group(1) or "").lower()
        add(_weekday(today, _WEEKDAYS[m.group(2).lower()], modifier, past), m)
    for m in _ORDINAL_RE.finditer(text):
        day = _day_number(m.group(1) or m.group(3), m.group(2))
        if day is not None and 1 <= day <= 31:
            add(_day_of_month(today, day, past), m)
    found.sort(key=lambda f: f.start)
    return tuple(found)


_RANGE_LINK_RE = re.compile(
    r"\s*,?\s*(?:-|–|—|to|till|til|until|through|thru"
    r"|and (?:then )?(?:(?:i|we)(?:'ll| will| would| plan to| want to| need to)?\s+)?"
    r"(?:leav\w*|depart\w*|check\w*[\s-]?out|out|go(?:ing)? home|head\w* home|return\w*"
    r"|stay\w* (?:until|till|through|to))(?: on)?)\s*",
    re.I,
)  # "the 3rd to the 6th", "arriving Friday and leaving Sunday", "the 3rd and we'll check out on the 6th"


_cached_dates_of = kept_parse(_dates_of)


def find_date_range(
    text: str, now: dt.datetime, *, past: bool = False, region: str = "US"
) -> tuple[Found, Found] | None:
    """A span of days: "from the 10th to the 13th", "arriving Friday and leaving Sunday".

    The end is read relative to the start ("Friday till Sunday" is the Sunday after that Friday), so the
    second :class:`Found` always comes after the first; None when there is no such pair.
    """
    found = find_dates(text, now, past=past, region=region)
    for first, second in itertools.pairwise(found):
        if not _RANGE_LINK_RE.fullmatch(text[first.end : second.start]):
            continue
        start_day: dt.date = first.value
        anchor = dt.datetime.combine(start_day, dt.time())
        ends = find_dates(text[second.start : second.end], anchor, region=region)
        if ends and ends[0].value > start_day:
            return first, Found(ends[0].value, second.start, second.end)
    return None


def parse_date_fallback(text: str, now: dt.datetime, *, past: bool = False) -> dt.date | None:
    """``dateparser`` on a short date-looking text the patterns did not read; None when it fails too."""
    if not _DATE_HINT_RE.search(text) or _TIME_LIKE_RE.search(text) or len(text.split()) > 6:
        return None
    import dateparser  # imported lazily: slow to import, rarely needed

    settings: dict[str, Any] = {
        "RELATIVE_BASE": now.replace(tzinfo=None),
        "PREFER_DATES_FROM": "past" if past else "future",
        "STRICT_PARSING": False,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parsed = dateparser.parse(text, languages=["en"], settings=settings)
    return parsed.date() if parsed is not None else None
