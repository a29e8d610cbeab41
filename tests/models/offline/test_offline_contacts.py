"""Phones, emails and reference codes."""

from __future__ import annotations

import pytest

from slotgraph.models.offline.contacts import find_emails, find_identifiers, find_phones


@pytest.mark.parametrize(
    ("text", "e164"),
    [
        ("555-201-3344", "+15552013344"),
        ("you can reach me at (415) 555 0199", "+14155550199"),
        ("+44 20 7946 0958", "+442079460958"),
        ("303.555.0182", "+13035550182"),
        ("call me on 1-800-555-0123", "+18005550123"),
    ],
)
def test_phones_are_e164(text: str, e164: str) -> None:
    assert find_phones(text)[0].value == e164


def test_phone_region_and_digits_only() -> None:
    assert find_phones("020 7946 0958", region="GB")[0].value == "+442079460958"
    assert find_phones("555-201-3344", digits_only=True)[0].value == "15552013344"
    assert find_phones("4 people next friday") == []


def test_emails_are_normalised_and_spoken_ones_understood() -> None:
    assert find_emails("Peter.Ng@Example.org")[0].value == "Peter.Ng@example.org"
    assert find_emails("send it to sam_lee99@outlook.com thanks")[0].value == "sam_lee99@outlook.com"
    assert find_emails("it's anna at gmail dot com")[0].value == "anna@gmail.com"
    assert find_emails("jo dot kim at example dot co dot uk")[0].value == "jo.kim@example.co.uk"
    assert find_emails("meet me at noon") == []


def test_identifiers_follow_the_schema_pattern() -> None:
    pattern = "^[A-Z]{2}-[0-9]{6}$"
    assert find_identifiers("sure, it's kx 445102", pattern=pattern)[0].value == "KX-445102"
    assert find_identifiers("TR445566", pattern=pattern)[0].value == "TR-445566"
    assert find_identifiers("AB-12", pattern=pattern) == []
    assert find_identifiers("ref 9XK22B")[0].value == "9XK22B"
