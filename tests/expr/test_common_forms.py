"""The forms configs write most often: lambda conditions and formatters agree with Python wherever Python
defines a value, and ``+`` over names and literals follows the documented semantics, size cap included.

Each lambda runs on arguments of every kind: plain dicts, other mappings, non-mappings, missing keys, values
of the wrong type.
"""

from __future__ import annotations

from collections import OrderedDict
from types import MappingProxyType
from typing import Any

import pytest

from slotgraph.expr import MAX_VALUE_SIZE, ExpressionEvaluationError, compile_expression, compile_lambda

LAMBDAS = [
    "lambda filled: int(filled.get('party_size', 0)) >= 5",
    "lambda filled: int(filled.get('party_size')) < 5",
    "lambda filled: float(filled.get('party_size', 1)) <= 2.5",
    "lambda filled: filled.get('party_size') > 4",
    "lambda filled: filled.get('visit_reason') in ('toothache', 'broken_tooth')",
    "lambda filled: filled.get('visit_reason') not in ['toothache']",
    "lambda f: f.get('active_flow') == 'billing'",
    "lambda f: f.get('active_flow', 'x') != 'billing'",
    "lambda filled: filled['party_size'] > 4",
    "lambda filled: filled['visit_reason'] == 'checkup'",
    "lambda filled: len(filled) > 2",
    "lambda filled: str(filled.get('party_size'))",
    "lambda filled: abs(filled['party_size'])",
    "lambda v: f'custom {v}'",
    "lambda v: f'{v!r} guests'",
    "lambda v: f'{v:>5}|'",
    "lambda v: f'{v:.2f}'",
]
ARGUMENTS: list[Any] = [
    {"party_size": 6, "visit_reason": "toothache", "active_flow": "billing"},
    {"party_size": "3", "visit_reason": "checkup"},
    {"party_size": "many", "visit_reason": ["x"]},
    {"party_size": None},
    {"party_size": 2.5, "active_flow": None},
    {},
    {"a": 1, "b": 2, "c": 3},
    MappingProxyType({"party_size": 7, "visit_reason": "broken_tooth"}),
    OrderedDict(party_size=1, active_flow="billing"),
    MappingProxyType({}),
    "text",
    12,
    3.14159,
    None,
    ["party_size"],
]


@pytest.mark.parametrize("source", LAMBDAS)
def test_lambdas_agree_with_python_where_python_is_defined(source: str) -> None:
    native = eval(source)  # the test's own literal, to compare with Python's semantics
    compiled = compile_lambda(source)
    for argument in ARGUMENTS:
        try:
            value = compiled(argument)
        except ExpressionEvaluationError as err:
            assert err.source == source, (source, argument)
            continue
        try:
            expected = native(argument)
        except Exception:
            continue  # Python raises: a deliberate edge (ordering across types is False, .get on any mapping)
        assert value == expected, (source, argument)


X, Z = "x" * (MAX_VALUE_SIZE // 2), "z" * (MAX_VALUE_SIZE // 2)
SUMS: list[tuple[str, dict[str, Any], Any]] = [
    ("name + ' ' + surname == 'Ada Lovelace'", {"name": "Ada", "surname": "Lovelace"}, True),
    ("a + ', ' + b == 'x, y'", {"a": "x", "b": "y"}, True),
    ("a + b", {"a": "Ada", "b": "Lovelace"}, "AdaLovelace"),
    ("a + b", {"a": "é", "b": "😀"}, "é😀"),
    ("a + b + 1", {"a": 1, "b": 2.5}, 4.5),
    ("a + 1 + b", {"a": 1, "b": 2}, 4),
    ("a + b", {"a": True, "b": 2}, 3),
    ("a + b", {"a": [1], "b": (2,)}, [1, 2]),
    ("a + b", {"a": X, "b": Z}, X + Z),  # exactly at the cap
    ("a + ' ' + b", {"a": X, "b": Z[1:]}, X + " " + Z[1:]),
    ("a + b", {"a": X, "b": Z + "z"}, "value_too_large"),
    ("a + ' ' + b", {"a": X, "b": Z}, "value_too_large"),
    ("a + 'y' + b", {"a": "x" * 60_000, "b": "z" * 60_000}, "value_too_large"),
    ("name + ' ' + surname", {"name": "Ada"}, "type_error"),  # surname is None
    ("a + b", {"a": "x"}, "type_error"),
    ("a + b", {"a": "x", "b": 1}, "type_error"),
    ("'x' + a", {"a": 1}, "type_error"),
    ("a + ' ' + b", {"a": None, "b": "x"}, "type_error"),
    ("a + ' ' + b", {"a": "x", "b": 3}, "type_error"),
    ("a + ' ' + b", {"a": 1, "b": 2}, "type_error"),
]


@pytest.mark.parametrize(("source", "variables", "expected"), SUMS)
def test_sums_over_names_and_literals(source: str, variables: dict[str, Any], expected: Any) -> None:
    expression = compile_expression(source)
    if expected in ("value_too_large", "type_error"):
        with pytest.raises(ExpressionEvaluationError) as info:
            expression.evaluate(variables)
        assert (info.value.code, info.value.source) == (expected, source)
    else:
        assert expression.evaluate(variables) == expected
