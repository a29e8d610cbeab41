"""Dates relative to the session clock (Monday 2026-07-13 unless said otherwise)."""

from __future__ import annotations

import datetime as dt

import pytest

from slotgraph.models.offline.dates import find_dates, parse_date_fallback

MONDAY = dt.datetime(2026, 7, 13, 18, 0)


def _first(text: str, *, now: dt.datetime = MONDAY, past: bool = False, region: str = "US") -> str | None:
    found = find_dates(text, now, past=past, region=region)
    return found[0].value.isoformat() if found else None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-07-18", "2026-07-18"),
        ("tomorrow", "2026-07-14"),
        ("tonight", "2026-07-13"),
        ("the day after tomorrow", "2026-07-15"),
        ("next Friday", "2026-07-17"),
        ("this Saturday", "2026-07-18"),
        ("Monday", "2026-07-20"),
        ("June 25th", "2027-06-25"),
        ("July 25", "2026-07-25"),
        ("25 July", "2026-07-25"),
        ("the 3rd", "2026-08-03"),
        ("on the 20th", "2026-07-20"),
        ("the twenty-first", "2026-07-21"),
        ("Saturday the 25th", "2026-07-25"),
        ("in two weeks", "2026-07-27"),
        ("a week from today", "2026-07-20"),
        ("Dec 1", "2026-12-01"),
        ("March 3rd 1985", "1985-03-03"),
    ],
)
def test_future_dates(text: str, expected: str) -> None:
    assert _first(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("yesterday", "2026-05-19"),
        ("last night", "2026-05-19"),
        ("two days ago", "2026-05-18"),
        ("Monday", "2026-05-18"),
        ("last Friday", "2026-05-15"),
        ("last Tuesday", "2026-05-12"),
        ("the 14th", "2026-05-14"),
        ("the 28th", "2026-04-28"),
        ("June 2nd", "2025-06-02"),
    ],
)
def test_past_parameters_read_dates_backwards(text: str, expected: str) -> None:
    wednesday = dt.datetime(2026, 5, 20, 14, 0)
    assert _first(text, now=wednesday, past=True) == expected


def test_numeric_day_month_order_follows_the_region_unless_a_part_settles_it() -> None:
    assert _first("03/04/2027") == "2027-03-04"
    assert _first("03/04/2027", region="GB") == "2027-04-03"
    assert _first("25/07") == "2026-07-25"
    assert _first("3/14/1990") == "1990-03-14"


def test_a_time_with_a_dot_is_not_a_date() -> None:
    assert find_dates("7.30 is perfect", MONDAY) == []


def test_spans_point_at_the_date_words() -> None:
    text = "4 people next Friday please"
    (found,) = find_dates(text, MONDAY)
    assert text[found.start : found.end] == "next Friday"


def test_sat_and_sun_abbreviations_are_not_weekdays() -> None:
    assert find_dates("I sat down in the sun", MONDAY) == []


def test_dateparser_fallback_reads_what_patterns_do_not() -> None:
    assert parse_date_fallback("in 3 months", MONDAY) == dt.date(2026, 10, 13)
    assert parse_date_fallback("7:30", MONDAY) is None
    assert parse_date_fallback("four people", MONDAY) is None
