"""The date and time parsers, and the reading of which parameters a directive asks for, keep their answers
for short texts: a plan reads one message once per parameter of a kind, and an agent's directives repeat
from turn to turn. A kept answer is the one a fresh parse gives,
never shared mutable state, keyed by everything the parse depends on, and long texts are not kept."""

from __future__ import annotations

import datetime as dt

from slotgraph.models.offline import clear_parse_caches, dates, times
from slotgraph.models.offline.dates import find_dates
from slotgraph.models.offline.directive import asked_params
from slotgraph.models.offline.schema import read_setters
from slotgraph.models.offline.spans import CACHED_TEXT_CHARS
from slotgraph.models.offline.times import find_times, offered_times

NOW = dt.datetime(2026, 7, 10, 12, 0)


def test_a_kept_answer_is_a_fresh_list_equal_to_a_fresh_parse() -> None:
    text = "Next Friday at 7:30 pm, or the 24th"
    first = find_dates(text, NOW)
    first.clear()  # a caller that changes its list changes nothing kept
    again = find_dates(text, NOW)
    assert [f.value for f in again] == [dt.date(2026, 7, 17), dt.date(2026, 7, 24)]
    assert again == list(dates._dates_of(text, NOW.date(), False, "US"))
    assert find_times(text) == list(times._times_of(text, False))


def test_the_answer_is_kept_per_date_and_per_argument() -> None:
    assert [f.value for f in find_dates("tomorrow", NOW)] == [dt.date(2026, 7, 11)]
    later = NOW + dt.timedelta(days=3)
    assert [f.value for f in find_dates("tomorrow", later)] == [dt.date(2026, 7, 14)]
    assert [f.value for f in find_dates("on the 3rd", NOW)] == [dt.date(2026, 8, 3)]
    assert [f.value for f in find_dates("on the 3rd", NOW, past=True)] == [dt.date(2026, 7, 3)]
    assert find_times("9 works", bare=True) and not find_times("9 works")  # `bare` is part of the key


def test_a_directive_read_again_is_answered_from_what_was_kept() -> None:
    offer = "We have 6:00 PM, 7:30 PM and 9:00 PM. Which works best?"
    offered_times(offer)
    hits = times._cached_times_of.cache_info().hits
    assert [t.hhmm() for t in offered_times(offer)] == ["18:00", "19:30", "21:00"]
    assert times._cached_times_of.cache_info().hits == hits + 1


def test_clear_parse_caches_forgets_every_kept_answer() -> None:
    find_dates("July 20th", NOW)
    find_times("at 8 pm")
    clear_parse_caches()
    assert dates._cached_dates_of.cache_info().currsize == 0
    assert times._cached_times_of.cache_info().currsize == 0


def test_a_long_text_is_parsed_every_time_and_not_kept() -> None:
    long_text = "We could come on July 20th at 8 pm. " * (CACHED_TEXT_CHARS // 30)
    assert len(long_text) > CACHED_TEXT_CHARS

    def lookups() -> tuple[int, int]:  # every call of a cache is a hit or a miss
        kept_dates, kept_times = dates._cached_dates_of.cache_info(), times._cached_times_of.cache_info()
        return kept_dates.hits + kept_dates.misses, kept_times.hits + kept_times.misses

    before = lookups()
    assert find_dates(long_text, NOW)[0].value == dt.date(2026, 7, 20)
    assert find_times(long_text)[0].value.hhmm() == "20:00"
    assert lookups() == before
    find_dates("July 20th", NOW)
    assert lookups() != before  # a short one is looked up


GUESTS_AND_DATE = [
    {
        "name": "set_booking",
        "description": "Record the booking.",
        "parameters": {
            "type": "object",
            "properties": {
                "party_size": {"type": "integer", "description": "How many guests."},
                "preferred_date": {"type": "string", "description": "The date, YYYY-MM-DD."},
            },
        },
    }
]


def test_the_asked_parameters_are_kept_per_directive_and_parameter_objects() -> None:
    (setter,) = read_setters(GUESTS_AND_DATE)
    params = list(setter.params)
    clear_parse_caches()
    guests = asked_params("How many guests will be joining us?", params)
    assert [p.name for p in guests] == ["party_size"]
    assert asked_params("How many guests will be joining us?", params) is guests  # kept
    assert [p.name for p in asked_params("What date would you like?", params)] == ["preferred_date"]
    clear_parse_caches()
    again = asked_params("How many guests will be joining us?", params)
    assert again == guests and again is not guests  # forgotten, answered afresh, the same answer
    long_directive = "How many guests will be joining us? " + "Please tell me. " * 80
    assert len(long_directive) > CACHED_TEXT_CHARS
    first = asked_params(long_directive, params)
    assert [p.name for p in first] == ["party_size"]
    assert asked_params(long_directive, params) is not first  # a long directive is not kept
