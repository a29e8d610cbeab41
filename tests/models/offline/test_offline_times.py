"""Times of day: formats, offered options, positions, and the am/pm heuristic without options."""

from __future__ import annotations

import pytest

from slotgraph.models.offline.times import ClockTime, find_times, offered_times, pick_offered

OFFER = "We have availability at 6:00 PM, 7:30 PM, 9:00 PM. Which time works best?"


def _hhmm(text: str, **kwargs: object) -> str | None:
    found = find_times(text, **kwargs)  # type: ignore[arg-type]
    return found[0].value.hhmm() if found else None


def test_offered_times_are_read_in_order_from_12_and_24_hour_directives() -> None:
    assert [t.hhmm() for t in offered_times(OFFER)] == ["18:00", "19:30", "21:00"]
    assert [t.hhmm() for t in offered_times("We have 17:30, 19:00, 20:30. Which?")] == [
        "17:30",
        "19:00",
        "20:30",
    ]
    assert offered_times(None) == ()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7:30", "19:30"),
        ("half past seven", "19:30"),
        ("seven thirty please", "19:30"),
        ("9 works", "21:00"),
        ("six o'clock", "18:00"),
        ("let's do 6pm", "18:00"),
        ("7.30 is perfect", "19:30"),
        ("the earliest one", "18:00"),
        ("the last one", "21:00"),
        ("the middle one", "19:30"),
        ("the first one", "18:00"),
    ],
)
def test_replies_are_matched_to_the_offered_times(text: str, expected: str) -> None:
    assert _hhmm(text, options=offered_times(OFFER), bare=True) == expected


def test_part_of_day_picks_the_only_option_in_it() -> None:
    options = offered_times("We can see you at 9:15 AM, 11:00 AM or 2:30 PM.")
    assert _hhmm("the afternoon one", options=options) == "14:30"
    assert pick_offered("the morning one", options) is None  # two morning options: ambiguous


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("noon", "12:00"),
        ("midnight", "00:00"),
        ("19:00", "19:00"),
        ("around 3pm", "15:00"),
        ("about 4", "16:00"),
        ("9 in the morning", "09:00"),
        ("late, maybe 10 at night", "22:00"),
        ("quarter to eight", "07:45"),
        ("12:30 am", "00:30"),
        ("11", "11:00"),
    ],
)
def test_without_options_the_am_pm_heuristic_applies(text: str, expected: str) -> None:
    assert _hhmm(text, bare=True) == expected


def test_evening_context_or_parameter_turns_7_to_11_into_pm() -> None:
    assert _hhmm("8", bare=True) == "08:00"
    assert _hhmm("8", bare=True, context="What time would you like to have dinner?") == "20:00"
    assert _hhmm("8", bare=True, evening=True) == "20:00"


def test_a_lone_hour_is_read_only_when_bare_hours_are_allowed() -> None:
    assert find_times("table for 4") == []
    assert _hhmm("at one", bare=True) == "13:00"
    assert find_times("the earliest one", bare=True) == []


def test_clock_time_formats_with_two_digits() -> None:
    assert ClockTime(9, 5).hhmm() == "09:05"
