"""The matching rules of expectations: subsets, numbers by value, empty mappings, dotted paths."""

from __future__ import annotations

from typing import Any

import pytest

from slotgraph.evals import find_mismatch, lookup_path, values_match
from slotgraph.evals.matching import MISSING, render


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        (4, 4.0),
        (4.0, 4),
        ({"a": 1}, {"a": 1, "b": 2}),
        ({"a": {"b": [1, {"c": 2}]}}, {"a": {"b": [1.0, {"c": 2, "d": 3}], "x": 0}}),
        ("x", "x"),
        (None, None),
        ({}, {}),
        (True, True),
    ],
)
def test_matches(expected: Any, actual: Any) -> None:
    assert values_match(expected, actual)


@pytest.mark.parametrize(
    ("expected", "actual", "message"),
    [
        (4, "4", 'expected 4, got "4"'),
        ("4", 4, 'expected "4", got 4'),
        (1, True, "expected 1, got true"),
        (True, 1, "expected true, got 1"),
        ({"a": 1}, {"b": 1}, "missing key a"),
        ({"a": {"b": 1}}, {"a": {"b": 2}}, "expected 1 at a.b, got 2"),
        ([1, 2], [1], "expected 2 items, got 1: [1]"),
        ([1, 2], [1, 3], "expected 2 at [1], got 3"),
        ({}, {"a": 1}, 'expected an empty mapping, got {"a": 1}'),
        ({"a": 1}, [1], "expected a mapping, got [1]"),
        ([1], "1", 'expected a list, got "1"'),
        ("Chen", "chen", 'expected "Chen", got "chen"'),
    ],
)
def test_mismatches_say_where_and_how(expected: Any, actual: Any, message: str) -> None:
    assert find_mismatch(expected, actual) == message


def test_lookup_path() -> None:
    state = {"filled": {"party_size": 4}, "_retries": {"slot:date": 2}, "log": [{"a": 1}, {"a": 2}]}
    assert lookup_path(state, "filled.party_size") == 4
    assert lookup_path(state, "_retries.slot:date") == 2
    assert lookup_path(state, "log.1.a") == 2
    assert lookup_path(state, "log.-1.a") == 2
    assert lookup_path(state, "log.5") is MISSING
    assert lookup_path(state, "filled.date") is MISSING
    assert lookup_path(state, "filled.party_size.x") is MISSING


def test_render_is_short_json() -> None:
    assert render(MISSING) == "<missing>"
    assert render({"b": 1, "a": "x"}) == '{"a": "x", "b": 1}'
    assert render("x" * 500).endswith("…") and len(render("x" * 500)) == 200
