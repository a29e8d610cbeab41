"""_is_affirmative / _starts_affirmative (§7.3, §7.3a)."""

from __future__ import annotations

import pytest

from slotgraph.engine import is_affirmative, starts_affirmative

PURE = [
    "yes", "Yes.", "YES!", "yeah", "yep", "yup", "correct", "right", "sure", "ok", "Okay", "perfect", "great",
    "exactly", "confirmed", "absolutely", "that's right", "That's correct.", "looks right", "sounds good",
    "yes please", "Yes, that's right", "that is correct", "sounds great", "yes it is", "all good", "go ahead",
    "please do", "affirmative", "yea", "ya", "Yes, that's correct!", "yes thank you", "sure thing",
]  # fmt: skip
NOT_PURE = [
    "", "   ", "no", "Yes, but make it 6", "yes actually 5", "wait", "yes not friday",
    "Actually, make it 6", "maybe", "4 people", "yes I would like to change the date please",
    "okay so here is the thing about my reservation",
]  # fmt: skip


@pytest.mark.parametrize("text", PURE)
def test_pure_affirmatives(text: str) -> None:
    assert is_affirmative(text)


@pytest.mark.parametrize("text", NOT_PURE)
def test_not_pure_affirmatives(text: str) -> None:
    assert not is_affirmative(text)


def test_five_word_limit() -> None:
    assert is_affirmative("yes that works for me")
    assert not is_affirmative("yes that works for me too")


@pytest.mark.parametrize(
    "text",
    [
        "Yea, also my wife has a shellfish allergy",
        "yes and we need a high chair",
        "Sure, and my name is Chen",
    ],
)
def test_starts_affirmative_with_more_content(text: str) -> None:
    assert starts_affirmative(text) and not is_affirmative(text)


@pytest.mark.parametrize("text", ["Yes but not Friday", "yes, actually the 12th", "no, yes", "Friday please"])
def test_does_not_start_affirmative(text: str) -> None:
    assert not starts_affirmative(text)


def test_correction_after_the_first_four_words_still_starts_affirmative() -> None:
    assert starts_affirmative("yes and also my wife is not vegan")
