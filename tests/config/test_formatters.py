"""Readback formatters: the built-in table, dict specs, lambdas, and that a formatter never raises."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from slotgraph.config import ConfigValidationError, compile_formatter
from slotgraph.config.formatters import default_formatter, formatter_problems


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-07-04", "on July 4th"),
        ("2026-07-01", "on July 1st"),
        ("2026-07-02", "on July 2nd"),
        ("2026-07-03", "on July 3rd"),
        ("2026-07-11", "on July 11th"),
        ("2026-07-12", "on July 12th"),
        ("2026-07-13", "on July 13th"),
        ("2026-07-21", "on July 21st"),
        ("2026-07-22", "on July 22nd"),
        ("2026-07-23", "on July 23rd"),
        ("2026-12-31", "on December 31st"),
        ("2026-01-15T19:30:00", "on January 15th"),
        (dt.date(2026, 3, 2), "on March 2nd"),
        ("next friday", "next friday"),
        ("2026-13-01", "2026-13-01"),
        (None, "none"),
        (42, "42"),
    ],
)
def test_date(value: Any, expected: str) -> None:
    assert compile_formatter("date")(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("19:30", "at 7:30 PM"),
        ("07:05", "at 7:05 AM"),
        ("7:05", "at 7:05 AM"),
        ("12:00", "at 12:00 PM"),
        ("00:15", "at 12:15 AM"),
        ("23:59:59", "at 11:59 PM"),
        (dt.time(18, 0), "at 6:00 PM"),
        ("24:00", "24:00"),
        ("7pm", "7pm"),
        ("12:60", "12:60"),
        (1930, "1930"),
    ],
)
def test_time(value: Any, expected: str) -> None:
    assert compile_formatter("time")(value) == expected


def test_prefix() -> None:
    fmt = compile_formatter({"type": "prefix", "prefix": "under the name"})
    assert fmt("Chen") == "under the name Chen"


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1, "1 guest"), (4, "4 guests"), ("1", "1 guest"), ("4", "4 guests"), (0, "0 guests"), (2.0, "2 guests"),
     ("a few", "a few"), (True, "yes")],
)  # fmt: skip
def test_plural(value: Any, expected: str) -> None:
    assert compile_formatter({"type": "plural", "one": "guest", "other": "guests"})(value) == expected


@pytest.mark.parametrize("value", [None, "", "  ", "none", "None", "NO", "n/a", "Nothing", "null"])
def test_none_sub_replaces_none_like(value: Any) -> None:
    assert (
        compile_formatter({"type": "none_sub", "text": "no special requests"})(value) == "no special requests"
    )


def test_none_sub_keeps_real_values_and_accepts_custom_list() -> None:
    fmt = compile_formatter({"type": "none_sub", "text": "no special requests"})
    assert fmt("a high chair") == "a high chair"
    custom = compile_formatter({"type": "none_sub", "text": "none", "none_values": ["nope", "Zilch"]})
    assert custom("zilch") == "none"
    assert custom("n/a") == "n/a"
    assert custom(None) == "none"


def test_lambda_formatter_and_failure_fallback() -> None:
    assert compile_formatter("lambda v: f'custom {v}'")("x") == "custom x"
    assert compile_formatter("lambda v: int(v) + 1")("41") == "42"
    assert compile_formatter("lambda v: int(v) + 1")("abc") == "abc"


def test_default_formatter() -> None:
    fmt = compile_formatter(None)
    assert fmt(True) == "yes" and fmt(False) == "no"
    assert fmt(None) == "none"
    assert fmt(4.0) == "4" and fmt(4.5) == "4.5"
    assert fmt("Chen") == "Chen"
    assert default_formatter(["a"]) == "['a']"


@pytest.mark.parametrize(
    ("spec", "code", "fragment"),
    [
        ("dates", "unknown_formatter", "did you mean 'date'"),
        ("Time", "unknown_formatter", "did you mean 'time'"),
        ({"type": "plurals", "one": "a", "other": "b"}, "unknown_formatter", "did you mean 'plural'"),
        ({"one": "a"}, "unknown_formatter", "missing its 'type'"),
        ({"type": "plural", "one": "guest"}, "invalid_formatter", "missing 'other'"),
        ({"type": "prefix", "prefix": "x", "suffix": "y"}, "invalid_formatter", "unknown key 'suffix'"),
        ({"type": "prefix", "prefix": 3}, "invalid_formatter", "must be text"),
        ({"type": "none_sub", "text": "x", "none_values": "none"}, "invalid_formatter", "list of strings"),
        ("lambda v, w: v", "invalid_formatter", "does not compile"),
        (5, "invalid_formatter", "string or a mapping"),
    ],
)
def test_bad_specs_are_config_errors(spec: Any, code: str, fragment: str) -> None:
    problems = formatter_problems(spec)
    assert problems and problems[0][0] == code
    assert any(fragment in message for _, _, message, _ in problems)
    assert all(fix for _, _, _, fix in problems)
    with pytest.raises(ConfigValidationError) as info:
        compile_formatter(spec, location="slots[0].readback_fmt")
    assert info.value.issues[0].location.startswith("slots[0].readback_fmt")


@pytest.mark.parametrize(
    "spec",
    ["date", "time", None, "lambda v: f'{int(v) + 1} seats'", {"type": "prefix", "prefix": "p"},
     {"type": "plural", "one": "a", "other": "b"}, {"type": "none_sub", "text": "t"}],
)  # fmt: skip
@pytest.mark.parametrize("value", [None, 0, -1, 1.5, "", "x", [1], {"a": 1}, object(), True])
def test_formatters_never_raise(spec: Any, value: Any) -> None:
    assert isinstance(compile_formatter(spec)(value), str)


@given(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(),
        st.lists(st.integers(), max_size=3), st.dates(), st.datetimes(), st.times(),
    )
)  # fmt: skip
def test_formatters_never_raise_property(value: Any) -> None:
    for spec in ("date", "time", None, {"type": "plural", "one": "a", "other": "b"},
                 {"type": "none_sub", "text": "t"}, "lambda v: f'{int(v) + 1}'"):  # fmt: skip
        assert isinstance(compile_formatter(spec)(value), str)
