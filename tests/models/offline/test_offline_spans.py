"""Claimed characters: the overlap test every extractor uses to skip a match inside an earlier one."""

from __future__ import annotations

from slotgraph.models.offline.spans import Claimed


def test_a_span_is_claimed_once_and_overlaps_are_refused() -> None:
    claimed = Claimed(20)
    assert claimed.claim(5, 10)
    assert not claimed.claim(9, 12)  # shares character 9
    assert not claimed.claim(0, 6)  # shares character 5
    assert not claimed.claim(6, 8)  # inside
    assert not claimed.claim(0, 20)  # around
    assert claimed.claim(10, 12)  # touching is not overlapping
    assert claimed.claim(0, 5)


def test_overlaps_and_single_characters() -> None:
    claimed = Claimed(10)
    claimed.claim(3, 5)
    assert claimed.overlaps(4, 9)
    assert not claimed.overlaps(5, 9)
    assert claimed.is_claimed(3)
    assert claimed.is_claimed(4)
    assert not claimed.is_claimed(5)


def test_a_refused_claim_claims_nothing() -> None:
    claimed = Claimed(10)
    claimed.claim(4, 5)
    assert not claimed.claim(2, 8)
    assert not claimed.is_claimed(2)
    assert claimed.claim(2, 4)
