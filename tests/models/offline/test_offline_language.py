"""Choices, names, free text, and yes/no."""

from __future__ import annotations

import pytest

from slotgraph.models.offline.choices import match_choice
from slotgraph.models.offline.confirmation import is_affirmative, is_negative
from slotgraph.models.offline.freetext import clean_text, is_nothing, is_question_or_greeting
from slotgraph.models.offline.names import find_name

VISITS = ["annual_checkup", "sick_visit", "vaccination", "follow_up", "physical_therapy"]
ROOMS = ["standard_queen", "deluxe_king", "twin", "family_suite"]


@pytest.mark.parametrize(
    ("text", "values", "expected"),
    [
        ("just a checkup", VISITS, "annual_checkup"),
        ("I need my flu shot", VISITS, "vaccination"),
        ("vacination", VISITS, "vaccination"),
        ("a follow up from last week", VISITS, "follow_up"),
        ("queen is fine", ROOMS, "standard_queen"),
        ("the suite", ROOMS, "family_suite"),
        ("what's the difference?", ROOMS, None),
    ],
)
def test_choices(text: str, values: list[str], expected: str | None) -> None:
    found = match_choice(text, values)
    assert (found.value if found else None) == expected


def test_a_tie_is_no_choice() -> None:
    assert match_choice("red", ["red_small", "red_large"]) is None


@pytest.mark.parametrize(
    ("text", "asked", "expected"),
    [
        ("under Chen, no allergies", False, "Chen"),
        ("it's Maria Lopez", False, "Maria Lopez"),
        ("my name is David Okafor", False, "David Okafor"),
        ("put it under sarah chen please", False, "Sarah Chen"),
        ("the name's tom baker", False, "Tom Baker"),
        ("Chen", True, "Chen"),
        ("Chen", False, None),
        ("it's for my son, Leo Martinez", True, "Leo Martinez"),
        ("Robert James O'Neill", True, "Robert James O'Neill"),
        ("I'm sick", True, None),
        ("no allergies", True, None),
    ],
)
def test_names(text: str, asked: bool, expected: str | None) -> None:
    found = find_name(text, asked=asked)
    assert (found.value if found else None) == expected


def test_a_cued_name_span_covers_its_cue() -> None:
    text = "The name is Patel, and one of us is vegan"
    found = find_name(text, asked=False)
    assert found is not None and text[found.start : found.end] == "The name is Patel"


@pytest.mark.parametrize("text", ["none", "nothing, thanks", "no, nothing special", "no allergies", "nope"])
def test_nothing_replies(text: str) -> None:
    assert is_nothing(text)


def test_text_cleaning_and_non_answers() -> None:
    assert clean_text("um, lower back pain") == "lower back pain"
    assert clean_text(", and one of us is vegan") == "one of us is vegan"
    assert clean_text("a window seat please.") == "a window seat"
    assert not is_nothing("it's my wife's birthday")
    assert is_question_or_greeting("hello?") and is_question_or_greeting("hi there")
    assert not is_question_or_greeting("lower back pain")


@pytest.mark.parametrize(
    "text", ["yes", "yep, that's right", "sounds good", "perfect", "correct", "Great, thanks"]
)
def test_affirmatives(text: str) -> None:
    assert is_affirmative(text) and not is_negative(text)


@pytest.mark.parametrize(
    "text", ["no", "nope", "that's not right", "that's wrong", "nobody was hurt", "not quite"]
)
def test_negatives(text: str) -> None:
    assert is_negative(text) and not is_affirmative(text)
