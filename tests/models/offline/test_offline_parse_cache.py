"""The date and time parsers, and the reading of which parameters a directive asks for, keep their answers
for short texts: a plan reads one message once per parameter of a kind, and an agent's directives repeat
from turn to turn. A kept answer is the one a fresh parse gives,
never shared mutable state, keyed by everything the parse depends on, and long texts are kept only while
one plan is made."""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest

from slotgraph.models.offline import clear_parse_caches, dates, planner, spans, times
from slotgraph.models.offline.dates import find_dates
from slotgraph.models.offline.directive import asked_params
from slotgraph.models.offline.planner import plan_turn
from slotgraph.models.offline.schema import read_setters
from slotgraph.models.offline.spans import CACHED_TEXT_CHARS, parses_kept_for_one_plan
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


def test_within_one_plan_a_long_text_is_parsed_once_and_forgotten_after() -> None:
    long_text = "We could come on July 20th at 8 pm. " * (CACHED_TEXT_CHARS // 30)
    with parses_kept_for_one_plan():
        first, again = find_dates(long_text, NOW), find_dates(long_text, NOW)
        assert first == again and first[0] is again[0]  # the kept answer, not a second parse
        assert find_dates(long_text, NOW, past=True)[0] is not first[0]  # keyed by the arguments too
        assert times._raw_times(long_text, bare=False) is times._raw_times(long_text, bare=False)
        assert find_times(long_text)[0].value.hhmm() == "20:00"
    later = find_dates(long_text, NOW)
    assert later == first and later[0] is not first[0]  # forgotten when the plan is made
    assert spans._ONE_PLAN.get() is None


def test_a_plan_of_a_long_message_parses_it_once_per_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plan reads the message once per parameter of a kind (twice for dates and for times here): the
    second read of a long message is the first's answer, as it is for a short one."""
    kept: dict[tuple[Any, ...], Any] = {}
    real = spans.parses_kept_for_one_plan

    @contextlib.contextmanager
    def noted() -> Iterator[None]:
        with real():
            yield
            kept.update(spans._ONE_PLAN.get() or {})

    monkeypatch.setattr(planner, "parses_kept_for_one_plan", noted)
    tools = [
        {
            "name": "set_booking",
            "description": "Record the booking.",
            "parameters": {
                "type": "object",
                "properties": {
                    "date": {"type": "string", "format": "date", "description": "The date."},
                    "time": {"type": "string", "description": "The time, e.g. 19:30."},
                },
            },
        }
    ]
    long_text = "Maria Rossi " * (CACHED_TEXT_CHARS // 10)
    plan = plan_turn(tools, system_instruction="Collect the booking.", user_text=long_text, now=NOW)
    assert plan.tool_calls == ()
    assert {key[0].__name__ for key in kept} == {"_dates_of", "_times_of"}
    assert all(key[1] == long_text for key in kept)


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
