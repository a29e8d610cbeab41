"""Counts with their units and money amounts."""

from __future__ import annotations

import pytest

from slotgraph.models.offline.numbers import find_amounts, find_counts, parse_number_words, unit_class


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("twenty-one", 21),
        ("three thousand", 3000),
        ("two hundred fifty", 250),
        ("seven", 7),
        ("banana", None),
    ],
)
def test_number_words(text: str, value: int | None) -> None:
    assert parse_number_words(text) == value


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("4 people", 4, "person"),
        ("table for two", 2, "person"),
        ("a party of six", 6, "person"),
        ("just me", 1, "person"),
        ("just myself", 1, "person"),
        ("the two of us", 2, "person"),
        ("a dozen of us", 12, "person"),
        ("half a dozen", 6, None),
        ("me and my wife", 2, "person"),
        ("a couple", 2, None),
        ("three nights", 3, "night"),
        ("just one night", 1, "night"),
        ("a week", 1, "week"),
        ("two grown-ups", 2, "adult"),
        ("no kids", 0, "child"),
    ],
)
def test_counts_carry_their_unit(text: str, value: int, unit: str | None) -> None:
    (found,) = find_counts(text)
    assert found.value == value
    assert unit_class(found.unit) == unit


def test_several_counts_in_reading_order() -> None:
    found = find_counts("me and my husband and our three kids")
    assert [(f.value, unit_class(f.unit)) for f in found] == [(2, "person"), (3, "child")]


def test_a_unit_is_not_taken_across_masked_words() -> None:
    # "tomorrow" masked by the date reader must not let "two" reach "night".
    (found,) = find_counts("table for two          night")
    assert unit_class(found.unit) == "person"


@pytest.mark.parametrize(
    ("text", "value"),
    [("about $2,500", 2500), ("maybe three thousand dollars", 3000), ("1200.50", 1200.5), ("around 4k", 4000),
     ("$800", 800), ("$1.5k", 1500)],
)  # fmt: skip
def test_amounts(text: str, value: float) -> None:
    assert find_amounts(text)[0].value == value


def test_whole_amounts_are_ints() -> None:
    assert isinstance(find_amounts("$2,500")[0].value, int)


# Long messages: every value is still found, and each look-behind only reaches a bounded way back (the
# growth with the message's length is measured by benchmarks/offline_growth.py, not asserted here).


def test_every_number_of_a_long_message_is_counted_once() -> None:
    found = find_counts("4 " * 4000)
    assert len(found) == 4000
    assert [f.start for f in found] == list(range(0, 8000, 2))


def test_a_party_phrase_gives_its_unit_only_to_the_number_right_after_it() -> None:
    text = "a table for 4 " + "and 5 " * 1000
    found = find_counts(text)
    assert unit_class(found[0].unit) == "person"
    assert all(f.unit is None for f in found[1:])


def test_a_party_phrase_farther_back_than_the_look_behind_is_not_read() -> None:
    from slotgraph.models.offline.numbers import _PERSON_LOOKBEHIND

    (near,) = find_counts("a table for" + " " * 10 + "4")
    (far,) = find_counts("a table for" + " " * _PERSON_LOOKBEHIND + "4")
    assert unit_class(near.unit) == "person"
    assert far.unit is None


@pytest.mark.parametrize(
    ("text", "value"),
    [("two hundred and fifty thousand", 250_000), ("one hundred and twenty three thousand", 123_000)],
)
def test_long_number_words_before_a_scale_are_read(text: str, value: int) -> None:
    assert find_amounts(text)[0].value == value


def test_amounts_skip_digits_inside_number_words_only_at_their_start() -> None:
    assert [f.value for f in find_amounts("twenty 5 and 7.5")] == [20, 5, 7.5]
