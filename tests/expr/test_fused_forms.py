"""The fused closures of the common forms behave exactly like the general compilation they short-cut.

``param.get(<literal>)``, ``param[<literal>]``, one-argument builtins over them, comparisons with a literal,
f-strings over the parameter and ``+`` chains over names and literals are compiled into single closures for
speed (benchmarks/expr_bench.py). Each is checked here against the general compiler (fusion switched off) on
arguments of every kind: plain dicts, other mappings, non-mappings, missing keys, values of the wrong type.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import pytest

from slotgraph.expr import ExpressionError, compile_expression, compile_lambda
from slotgraph.expr.compiler import Compiler
from slotgraph.expr.lambdas import LambdaCompiler

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
EXPRESSIONS = [
    ("name + ' ' + surname == 'Ada Lovelace'", {"name": "Ada", "surname": "Lovelace"}),
    ("name + ' ' + surname", {"name": "Ada"}),
    ("a + b + 1", {"a": 1, "b": 2.5}),
    ("a + b", {"a": [1], "b": (2,)}),
    ("a + b", {"a": True, "b": 2}),
    ("'x' + a", {"a": 1}),
    ("a + 'y' + b", {"a": "x" * 60_000, "b": "z" * 60_000}),
    # the text joins: a + b and a + '<literal>' + b over names
    ("a + b", {"a": "Ada", "b": "Lovelace"}),
    ("a + b", {"a": "é", "b": "😀"}),
    ("a + b", {"a": "x"}),
    ("a + b", {"a": "x", "b": 1}),
    ("a + b", {"a": 1, "b": 2}),
    ("a + b", {"a": "x" * 50_000, "b": "z" * 50_000}),
    ("a + b", {"a": "x" * 50_000, "b": "z" * 50_001}),
    ("a + ' ' + b", {"a": "x" * 50_000, "b": "z" * 49_999}),
    ("a + ' ' + b", {"a": "x" * 50_000, "b": "z" * 50_000}),
    ("a + ' ' + b", {"a": None, "b": "x"}),
    ("a + ' ' + b", {"a": "x", "b": 3}),
    ("a + ' ' + b", {"a": 1, "b": 2}),
    ("a + ', ' + b == 'x, y'", {"a": "x", "b": "y"}),
    ("a + 1 + b", {"a": 1, "b": 2}),
]


def _outcome(function: Callable[[Any], Any], argument: Any) -> tuple[str, Any]:
    try:
        return "value", function(argument)
    except ExpressionError as err:
        return "error", (type(err).__name__, err.code, err.source, err.position, str(err))


@pytest.mark.parametrize("source", LAMBDAS)
def test_a_fused_lambda_matches_the_general_compilation(source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fused = compile_lambda(source)
    assert fused.raw is fused  # the fused body guards itself and is the entry (no extra call)
    with monkeypatch.context() as patch:
        for owner, name in ((LambdaCompiler, "_fast_read"), (LambdaCompiler, "_fused_text")):
            patch.setattr(owner, name, lambda *_: None)
        general = compile_lambda(source)
    assert general.raw is not general
    for argument in ARGUMENTS:
        assert _outcome(fused, argument) == _outcome(general, argument), (source, argument)


@pytest.mark.parametrize(("source", "variables"), EXPRESSIONS)
def test_a_fused_sum_matches_the_general_compilation(
    source: str, variables: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    fused = compile_expression(source)
    with monkeypatch.context() as patch:
        patch.setattr(Compiler, "_add_chain", lambda *_: None)
        general = compile_expression(source)
    assert _outcome(fused.evaluate, variables) == _outcome(general.evaluate, variables)


@pytest.mark.parametrize(("source", "shape"), [("a + b", "join_two"), ("first + ' ' + last", "join_three")])
def test_text_joins_have_their_own_closure(source: str, shape: str) -> None:
    """``name + name`` and ``name + 'literal' + name`` (full names, addresses) are one concatenation when
    both values are strings (benchmarks/expr_bench.py); every other case takes the general chain above."""
    raw = compile_expression(source).raw
    # a nested function's name, or, compiled, the name of the callable class mypyc makes of it
    assert getattr(raw, "__name__", type(raw).__name__).split("__")[0] == shape


def test_the_fused_forms_agree_with_python_where_python_is_defined() -> None:
    for source in LAMBDAS:
        native = eval(source)
        compiled = compile_lambda(source)
        for argument in ARGUMENTS:
            try:
                expected = native(argument)
            except Exception:
                continue  # Python raises; the compiled form raises an ExpressionError (checked above)
            kind, value = _outcome(compiled, argument)
            if kind == "value":
                assert value == expected, (source, argument)


def test_conditions_know_the_slots_they_read() -> None:
    assert compile_lambda("lambda f: int(f.get('a', 0)) > f['b']").reads == {"a", "b"}
    assert compile_lambda("lambda f: len(f) > 2").reads is None
    assert compile_lambda("lambda f: f.get('a').get('b') == 1").reads == {"a"}
    assert compile_expression("a > 1 and b.c == 2", dialect="dot_paths").names == {"a", "b"}
