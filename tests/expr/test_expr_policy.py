"""evaluate_code_rule: truthiness, fail-open / fail-closed, loggable explanations, never raises."""

from __future__ import annotations

from typing import Any

import pytest

from slotgraph.expr import compile_expression, evaluate_code_rule


@pytest.mark.parametrize("fail_open", [True, False])
def test_truthiness_of_the_result(fail_open: bool) -> None:
    assert evaluate_code_rule("x", {"x": [1]}, fail_open=fail_open) == (True, None)
    assert evaluate_code_rule("x", {"x": ""}, fail_open=fail_open) == (False, None)
    assert evaluate_code_rule("a or b", {"b": "yes"}, fail_open=fail_open) == (True, None)


def test_accepts_a_compiled_expression_and_keeps_its_dialect() -> None:
    expression = compile_expression("payload.level > 2", dialect="dot_paths")
    assert evaluate_code_rule(expression, {"payload": {"level": 3}}, fail_open=False) == (True, None)


def test_dialect_for_string_rules() -> None:
    assert evaluate_code_rule("p.x", {"p": {"x": 1}}, fail_open=False, dialect="dot_paths") == (True, None)
    allowed, error = evaluate_code_rule("p.x", {"p": {"x": 1}}, fail_open=False)
    assert allowed is False and error is not None and "unsupported_node" in error


@pytest.mark.parametrize("fail_open", [True, False])
@pytest.mark.parametrize(
    ("rule", "code"),
    [
        ("x +* 1", "syntax"),
        ("len(x)", "unsupported_node"),
        ("x in 5", "not_container"),
        ('"a" + 1', "type_error"),
    ],
)
def test_failures_return_the_policy_default_with_an_explanation(
    fail_open: bool, rule: str, code: str
) -> None:
    allowed, error = evaluate_code_rule(rule, {}, fail_open=fail_open, label="handoff:billing")
    assert allowed is fail_open
    assert error is not None
    assert "\n" not in error
    assert "handoff:billing" in error and code in error and rule in error
    assert ("fail-open" if fail_open else "fail-closed") in error


def test_explanation_is_one_line_even_for_multi_line_rules() -> None:
    allowed, error = evaluate_code_rule("(a and\n b ** 2)", {}, fail_open=False, label="gate\nx")
    assert allowed is False and error is not None and "\n" not in error


class _NoTruth:
    def __bool__(self) -> bool:
        raise ValueError("ambiguous")


@pytest.mark.parametrize(
    ("rule", "variables"),
    [
        ("x", {"x": _NoTruth()}),
        ("x", None),
        (None, {}),
        (42, {}),
        ("x" * 10_000, {}),
        ("(" * 500, {}),
        ("a\x00b", {}),
    ],
)
def test_never_raises(rule: Any, variables: Any) -> None:
    for fail_open in (True, False):
        allowed, error = evaluate_code_rule(rule, variables, fail_open=fail_open, label="r")
        assert allowed is fail_open and isinstance(error, str) and "\n" not in error


def test_long_rules_are_abbreviated_in_the_explanation() -> None:
    rule = "x == 1 and " * 30 + "f(x)"
    _, error = evaluate_code_rule(rule, {}, fail_open=True)
    assert error is not None and len(error) < 400


class _Exits:
    """A value whose truth value exits the process (a host's object put among the variables)."""

    def __bool__(self) -> bool:
        raise SystemExit(3)


@pytest.mark.parametrize("fail_open", [True, False])
def test_a_value_that_exits_fails_the_rule_as_the_policy_says(fail_open: bool) -> None:
    """The docs promise evaluate_code_rule never raises: a SystemExit from a value used to go through."""
    allowed, error = evaluate_code_rule("flag", {"flag": _Exits()}, fail_open=fail_open, label="gate")
    assert allowed is fail_open
    assert error is not None and "rule result has no truth value (SystemExit)" in error
