"""The static type check: an operation is reported only when every value its operands can hold makes it
fail at run time — checked here against the evaluator itself, so the two cannot drift."""

from __future__ import annotations

from typing import Any

import pytest

from slotgraph.expr import ExpressionEvaluationError, compile_expression
from slotgraph.expr.typecheck import type_problems

TYPES = {"flag": "bool", "count": "int", "name": "str", "items": "list", "doc": "dict", "price": "number"}
VALUES: dict[str, list[Any]] = {
    "flag": [True, False, None],
    "count": [0, 7, None],
    "name": ["", "ab", None],
    "items": [[], ["ab"], None],
    "doc": [{}, {"ab": 1}, None],
    "price": [1.5, 3, None],
}

ALWAYS_FAILS = [
    'flag + "x"',
    "name - 1",
    "-name",
    "items + 1",
    "doc + doc",
    "count in 3",
    "count in name",
    "None + 1",
    "'a' in flag",
    "(name + name) - 1",
]
FINE = [
    "flag + 1",
    "count + price - flag",
    "name + 'x'",
    "items + ['x']",
    "'a' in name",
    "'a' in items",
    "'a' in doc",
    "-count",
    "unknown + 'x'",
    "filled.x + 1",
    "flag and name",
    "not name",
    "name > 3",  # ordering across types is False, never an error
]


def _evaluations(source: str) -> list[bool]:
    """For every combination of sample values: whether the evaluation failed."""
    expression = compile_expression(source, dialect="dot_paths")
    names = [n for n in TYPES if n in source]
    combos: list[dict[str, Any]] = [{}]
    for name in names:
        combos = [{**c, name: v} for c in combos for v in VALUES[name]]
    out = []
    for env in combos:
        try:
            expression.evaluate(env)
            out.append(False)
        except ExpressionEvaluationError:
            out.append(True)
    return out


@pytest.mark.parametrize("source", ALWAYS_FAILS)
def test_reported_operations_fail_for_every_value(source: str) -> None:
    assert type_problems(source, TYPES), source
    assert all(_evaluations(source)), source


@pytest.mark.parametrize("source", FINE)
def test_operations_that_can_succeed_are_not_reported(source: str) -> None:
    assert type_problems(source, TYPES) == [], source


def test_the_problem_names_the_operands() -> None:
    assert type_problems('flag + "x"', TYPES) == ["'+' cannot combine a boolean (flag) and a string"]
    assert type_problems("count in 3", TYPES) == ["'in' needs a container on its right, not an integer"]
