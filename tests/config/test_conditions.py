"""Conditions: lambda strings and default-dialect expressions, compile errors and evaluation failures."""

from __future__ import annotations

import pytest

from slotgraph.config.conditions import compile_condition, condition_problem
from slotgraph.expr import ExpressionError, ExpressionSyntaxError


def test_lambda_condition() -> None:
    cond = compile_condition("lambda filled: int(filled.get('party_size', 0)) >= 5")
    assert cond.is_active({"party_size": 6})
    assert not cond.is_active({"party_size": "2"})
    assert cond.source.startswith("lambda")


def test_expression_condition_uses_filled_as_variables() -> None:
    cond = compile_condition("party_size >= 5 and occasion != 'none'")
    assert cond.is_active({"party_size": 6, "occasion": "birthday"})
    assert not cond.is_active({"party_size": 6, "occasion": "none"})


def test_evaluation_error_makes_inactive_and_is_returned() -> None:
    cond = compile_condition("lambda filled: int(filled.get('party_size', 0)) >= 5")
    active, error = cond.check({"party_size": "lots"})
    assert active is False
    assert isinstance(error, ExpressionError)


def test_compile_errors_raise_syntax_error() -> None:
    with pytest.raises(ExpressionSyntaxError):
        compile_condition("lambda filled: filled.get('x' >=")
    with pytest.raises(ExpressionSyntaxError):
        compile_condition("__import__('os')")


def test_condition_problem() -> None:
    assert condition_problem("party_size > 1") is None
    assert isinstance(condition_problem("party_size >"), ExpressionError)
    assert condition_problem(3) == "a condition must be a string, got int"
    assert condition_problem("  ") == "the condition is empty"


def test_lambda_prefix_detection_is_a_word() -> None:
    # a variable that merely starts with "lambda" is an expression, not a lambda
    cond = compile_condition("lambda_count > 1")
    assert cond.is_active({"lambda_count": 2})
