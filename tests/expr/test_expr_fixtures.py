"""Drive every case of the shared conformance fixtures (src/slotgraph/expr/fixtures/expression-cases.json)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pytest

from slotgraph.expr import (
    ERROR_CODES,
    ExpressionEvaluationError,
    ExpressionSyntaxError,
    compile_expression,
    compile_lambda,
    extract_output_path,
)


def _load() -> dict[str, Any]:
    text = resources.files("slotgraph.expr").joinpath("fixtures/expression-cases.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


FIXTURES = _load()
CASES = FIXTURES["cases"]


def strictly_equal(actual: Any, expected: Any) -> bool:
    """JSON-typed equality: bools only match bools, ints only ints, floats only floats, arrays only lists."""
    if isinstance(expected, bool) or expected is None:
        return actual is expected
    if isinstance(expected, int):
        return type(actual) is int and actual == expected
    if isinstance(expected, float):
        return type(actual) is float and actual == expected
    if isinstance(expected, str):
        return type(actual) is str and actual == expected
    if isinstance(expected, list):
        return (
            type(actual) is list
            and len(actual) == len(expected)
            and all(strictly_equal(a, e) for a, e in zip(actual, expected, strict=True))
        )
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and actual.keys() == expected.keys()
            and all(strictly_equal(actual[key], value) for key, value in expected.items())
        )
    raise AssertionError(f"unexpected JSON value {expected!r}")


def run_case(case: dict[str, Any]) -> Any:
    """Compile then evaluate; a compile error propagates before evaluation starts."""
    dialect = case["dialect"]
    if dialect == "lambda":
        function = compile_lambda(case["source"])
        return lambda: function(case["argument"])
    if dialect == "path":
        return lambda: extract_output_path(case["argument"], case["source"])
    expression = compile_expression(case["source"], dialect=dialect)
    return lambda: expression.evaluate(case["variables"])


def test_fixture_file_is_well_formed() -> None:
    assert isinstance(FIXTURES["about"], str) and FIXTURES["about"]
    assert len(CASES) >= 220
    ids = [case["id"] for case in CASES]
    assert len(ids) == len(set(ids))
    for case in CASES:
        assert case["dialect"] in {"default", "dot_paths", "lambda", "path", "dotpaths"}, case["id"]
        expect = case["expect"]
        if "error" in expect:
            assert expect["error"] in ERROR_CODES, case["id"]
            assert expect["phase"] in {"compile", "evaluate"}, case["id"]
        else:
            assert "value" in expect, case["id"]
            assert expect.get("value_type", "json") in {"json", "tuple"}, case["id"]


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_fixture_case(case: dict[str, Any]) -> None:
    expect = case["expect"]
    if "error" in expect:
        if expect["phase"] == "compile" and case["dialect"] != "path":
            with pytest.raises(ExpressionSyntaxError) as compile_info:
                run_case(case)
            assert compile_info.value.code == expect["error"], str(compile_info.value)
            return
        evaluate = run_case(case) if case["dialect"] != "path" else None
        error_type = ExpressionSyntaxError if expect["phase"] == "compile" else ExpressionEvaluationError
        with pytest.raises(error_type) as info:
            (evaluate or (lambda: extract_output_path(case["argument"], case["source"])))()
        assert info.value.code == expect["error"], str(info.value)
        return
    result = run_case(case)()
    if expect.get("value_type") == "tuple":
        assert type(result) is tuple, repr(result)
        assert strictly_equal(list(result), expect["value"]), repr(result)
    else:
        assert strictly_equal(result, expect["value"]), repr(result)
