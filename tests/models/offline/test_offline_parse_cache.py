"""The date and time parsers keep their answers only while one plan is made: a plan reads one message once
per parameter of a kind, so a long message is parsed once per parser, and nothing outlives the plan (no
process-wide cache)."""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest

from slotgraph.models.offline import dates, planner, spans, times
from slotgraph.models.offline.dates import find_dates
from slotgraph.models.offline.planner import plan_turn
from slotgraph.models.offline.spans import parses_kept_for_one_plan
from slotgraph.models.offline.times import find_times

NOW = dt.datetime(2026, 7, 10, 12, 0)
LONG = "We could come on July 20th at 8 pm. " * 40


def test_outside_a_plan_every_call_parses_afresh() -> None:
    text = "Next Friday at 7:30 pm, or the 24th"
    first = find_dates(text, NOW)
    first.clear()  # a caller that changes its list changes nothing
    again = find_dates(text, NOW)
    assert [f.value for f in again] == [dt.date(2026, 7, 17), dt.date(2026, 7, 24)]
    assert again == list(dates._dates_of(text, NOW.date(), False, "US"))
    assert find_times(text) == list(times._times_of(text, False))
    assert times._raw_times(LONG, bare=False) is not times._raw_times(LONG, bare=False)
    assert spans._ONE_PLAN.get() is None


def test_within_one_plan_a_text_is_parsed_once_per_arguments_and_forgotten_after() -> None:
    with parses_kept_for_one_plan():
        first, again = find_dates(LONG, NOW), find_dates(LONG, NOW)
        assert first == again and first[0] is again[0]  # the kept answer, not a second parse
        assert find_dates(LONG, NOW, past=True)[0] is not first[0]  # keyed by the arguments too
        later_day = NOW + dt.timedelta(days=3)
        assert [f.value for f in find_dates("tomorrow", later_day)] == [dt.date(2026, 7, 14)]
        assert [f.value for f in find_dates("tomorrow", NOW)] == [dt.date(2026, 7, 11)]  # per day
        assert times._raw_times(LONG, bare=False) is times._raw_times(LONG, bare=False)
        assert find_times("9 works", bare=True) and not find_times("9 works")  # `bare` is part of the key
    later = find_dates(LONG, NOW)
    assert later == first and later[0] is not first[0]  # forgotten when the plan is made
    assert spans._ONE_PLAN.get() is None


def test_a_plan_of_a_long_message_parses_it_once_per_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plan reads the message once per parameter of a kind (twice for dates and for times here): the
    second read is the first's answer."""
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
    long_text = "Maria Rossi " * 100
    plan = plan_turn(tools, system_instruction="Collect the booking.", user_text=long_text, now=NOW)
    assert plan.tool_calls == ()
    assert {key[0].__name__ for key in kept} == {"_dates_of", "_times_of"}
    assert all(key[1] == long_text for key in kept)
