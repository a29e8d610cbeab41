"""Capabilities added for generalisation: people lists, date ranges, British half-hours, soft no's,
relation-then-name, places and routes, two free-text answers, offered dates, spoken symbols, spaced codes,
size words, numeric enums and scaled amounts. Examples are our own, not taken from the labelled sets."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from slotgraph.models.offline.choices import match_choice, match_number_choice
from slotgraph.models.offline.confirmation import is_declining
from slotgraph.models.offline.contacts import find_emails, find_identifiers
from slotgraph.models.offline.dates import find_date_range, find_dates
from slotgraph.models.offline.freetext import is_nothing
from slotgraph.models.offline.names import find_name
from slotgraph.models.offline.numbers import PeopleGroup, find_amounts, find_people_groups
from slotgraph.models.offline.places import find_route, place_role, strip_place_request
from slotgraph.models.offline.times import ClockTime, find_times

from .planning import plan_for, setter

NOW = dt.datetime(2026, 1, 14, 12, 0)  # a Wednesday


def _tool(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    return setter(name, **properties)


def _plan(tools: list[dict[str, Any]], directive: str, user: str, *, readback: bool = False) -> Any:
    if readback:
        tools = [*tools, setter("confirm_pending"), setter("reject_pending")]
    return plan_for(tools, directive, user, now=NOW, readback=readback).tool_calls


# --- people counted across a phrase ---


@pytest.mark.parametrize(
    ("text", "adults", "children"),
    [
        ("my sister, her two boys and me", 2, 2),
        ("me and three friends", 4, 0),
        ("three adults plus an infant", 3, 1),
        ("my brother, his wife and I", 3, 0),
        ("the three of us and a baby", 3, 1),
        ("my grandparents and me", 3, 0),
    ],
)
def test_people_listed_one_by_one_are_counted(text: str, adults: int, children: int) -> None:
    (found,) = find_people_groups(text)
    assert found.value == PeopleGroup(adults, children)


@pytest.mark.parametrize(
    "text", ["2 adults and 1 child", "just me", "my daughter has a cold", "me and I think two"]
)
def test_separate_counts_and_single_mentions_are_not_a_group(text: str) -> None:
    assert find_people_groups(text) == []


def test_a_group_fills_a_head_count_or_adults_and_children() -> None:
    head = _tool(
        "set_group", {"group_size": {"type": "integer", "description": "Number of people in the group."}}
    )
    assert _plan([head], "How many people?", "me, my cousin and her three kids") == (
        ("set_group", {"group_size": 5}),
    )
    split = _tool(
        "set_party",
        {
            "adults": {"type": "integer", "description": "Number of adults."},
            "children": {"type": "integer", "description": "Number of children."},
        },
    )
    assert _plan([split], "How many adults and children?", "my husband, me and our baby") == (
        ("set_party", {"adults": 2, "children": 1}),
    )


# --- date ranges, "a week on Friday", offered dates ---


def test_a_range_end_is_read_from_its_start() -> None:
    span = find_date_range("Thursday until Monday", NOW)
    assert span is not None
    assert (span[0].value, span[1].value) == (dt.date(2026, 1, 15), dt.date(2026, 1, 19))
    assert find_date_range("Thursday or Monday", NOW) is None


def test_a_range_fills_the_start_date_and_the_length() -> None:
    rental = _tool(
        "set_rental",
        {
            "pickup_day": {"type": "string", "format": "date", "description": "First day of the rental."},
            "days": {"type": "integer", "description": "Number of days of the rental."},
        },
    )
    calls = _plan([rental], "From when, and for how many days?", "from the 20th through the 24th")
    assert calls == (("set_rental", {"pickup_day": "2026-01-20", "days": 4}),)


def test_a_week_on_a_weekday() -> None:
    assert [f.value for f in find_dates("a week from Tuesday", NOW)] == [dt.date(2026, 1, 27)]
    assert [f.value for f in find_dates("Saturday week", NOW)] == [dt.date(2026, 1, 24)]


def test_a_weekday_alone_picks_the_offered_date() -> None:
    day = _tool("set_visit", {"visit_date": {"type": "string", "format": "date", "description": "Day."}})
    calls = _plan([day], "We can do Monday the 26th or Wednesday the 28th. Which day?", "Wednesday please")
    assert calls == (("set_visit", {"visit_date": "2026-01-28"}),)
    corrected = _plan(
        [day], "Just to confirm — Monday the 26th. Is that correct?", "no, Monday the 2nd", readback=True
    )
    assert corrected == (("set_visit", {"visit_date": "2026-02-02"}),)


# --- times ---


@pytest.mark.parametrize(
    ("text", "context", "expected"),
    [
        ("half ten", "", ClockTime(10, 30)),
        ("half four", "", ClockTime(16, 30)),
        ("half nine tonight", "", ClockTime(21, 30)),
    ],
)
def test_british_half_hours(text: str, context: str, expected: ClockTime) -> None:
    (found,) = find_times(text, context=context)
    assert (found.value.hour, found.value.minute) == (expected.hour, expected.minute)


def test_half_is_not_a_time_in_other_phrases() -> None:
    assert find_times("half a dozen") == []
    assert [f.value.minute for f in find_times("half past ten")] == [30]


# --- yes / no without a no-word ---


@pytest.mark.parametrize(
    "text", ["thankfully not", "we'd rather not", "I don't need one", "no need", "happily everybody was fine"]
)
def test_declining_without_a_no_word(text: str) -> None:
    assert is_declining(text)


@pytest.mark.parametrize("text", ["yes please", "not sure", "I need one", "definitely"])
def test_not_declining(text: str) -> None:
    assert not is_declining(text)


def test_a_soft_no_answers_a_boolean() -> None:
    flag = _tool("set_wrap", {"gift_wrap": {"type": "boolean", "description": "Whether to gift-wrap it."}})
    assert _plan([flag], "Do you want gift wrap?", "I'd prefer not, thanks") == (
        ("set_wrap", {"gift_wrap": False}),
    )


# --- names ---


def test_relation_then_name_anywhere() -> None:
    found = find_name("the booking is for my grandmother, Ruth Adler", asked=False)
    assert found is not None and found.value == "Ruth Adler"
    found = find_name("this one is for my nephew called Idris", asked=True)
    assert found is not None and found.value == "Idris"
    assert find_name("my nephew has a cold", asked=False) is None


def test_put_a_name_on_it() -> None:
    found = find_name("put Jonas Berg on the list", asked=True)
    assert found is not None and found.value == "Jonas Berg"


# --- free text, places, two answers at once ---


def test_nothing_for_me() -> None:
    assert is_nothing("nothing for me")
    assert is_nothing("none for us, thanks")


def test_place_roles_come_from_the_parameter_words() -> None:
    assert place_role({"origin", "city"}, {"origin", "city", "place"}) == "origin"
    assert place_role({"destination"}, {"destination"}) == "destination"
    assert place_role({"shipping", "address"}, {"shipping", "address"}) == ""
    assert place_role({"notes"}, {"notes"}) is None


def test_routes_and_request_phrases() -> None:
    assert find_route("from the train station to 9 Mill Lane") == {
        "origin": "the train station",
        "destination": "9 Mill Lane",
    }
    assert find_route("drop me at the museum") == {"destination": "the museum"}
    assert find_route("I'm at the north gate") == {"origin": "the north gate"}
    assert find_route("the museum") == {}
    assert strip_place_request("send it to 3 Park Row") == "3 Park Row"


MOVE = _tool(
    "set_move",
    {
        "origin_address": {"type": "string", "description": "Address we collect the furniture from."},
        "destination_address": {"type": "string", "description": "Address we deliver the furniture to."},
    },
)


def test_a_route_fills_origin_and_destination() -> None:
    calls = _plan(
        [MOVE],
        "Where do we collect from, and where is the destination?",
        "from 4 Quay Street to 70 Dock Road",
    )
    assert calls == (
        ("set_move", {"origin_address": "4 Quay Street", "destination_address": "70 Dock Road"}),
    )


def test_an_address_correction_during_readback() -> None:
    calls = _plan(
        [MOVE],
        "Just to confirm — destination 70 Dock Road. Is that correct?",
        "no, it's 17 Dock Road",
        readback=True,
    )
    assert calls == (("set_move", {"destination_address": "17 Dock Road"}),)


def test_two_free_text_answers_are_cut_into_clauses() -> None:
    work = _tool(
        "set_order_notes",
        {
            "gift_message": {"type": "string", "description": "Message printed on the gift card."},
            "packing_notes": {
                "type": "string",
                "description": "Notes for the packers; 'none' if there are none.",
            },
        },
    )
    directive = "What gift message would you like, and any packing notes?"
    assert _plan([work], directive, "Happy birthday Sam; no notes") == (
        ("set_order_notes", {"gift_message": "Happy birthday Sam", "packing_notes": "none"}),
    )
    assert _plan([work], directive, "Happy birthday") == ()


# --- contacts, codes, choices, amounts ---


def test_spoken_symbols_in_emails() -> None:
    assert [f.value for f in find_emails("lee dash park at mail dot com")] == ["lee-park@mail.com"]
    assert [f.value for f in find_emails("ana underscore b at post dot org")] == ["ana_b@post.org"]


def test_codes_read_digit_by_digit_or_after_an_apostrophe_word() -> None:
    assert [f.value for f in find_identifiers("5 5 0 1 2 9", pattern="^[0-9]{6}$")] == ["550129"]
    assert [f.value for f in find_identifiers("that's 441902", pattern="^[0-9]{6}$")] == ["441902"]


@pytest.mark.parametrize(
    ("text", "value"), [("small please", "s"), ("an extra small", "xs"), ("large", "l"), ("x-large", "xl")]
)
def test_size_words_pick_size_abbreviations(text: str, value: str) -> None:
    found = match_choice(text, ["xs", "s", "m", "l", "xl"])
    assert found is not None and found.value == value


def test_numeric_enums_are_read_as_counts() -> None:
    days = frozenset({"length", "days"})
    found = match_number_choice("two weeks", [7, 14, 28], days)
    assert found is not None and found.value == 14
    found = match_number_choice("six months", [30, 90, 180], days)
    assert found is not None and found.value == 180
    assert match_number_choice("five days", [7, 14, 28], days) is None


@pytest.mark.parametrize(
    ("text", "value"), [("three and a half thousand", 3500), ("five grand", 5000), ("1.5 thousand", 1500)]
)
def test_scaled_amounts(text: str, value: int) -> None:
    assert [f.value for f in find_amounts(text)] == [value]
