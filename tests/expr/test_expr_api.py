"""Public surface of slotgraph.expr: exports, Expression objects, compiled lambdas, the no-eval guarantee."""

from __future__ import annotations

import ast
import dataclasses
from collections import OrderedDict
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

import slotgraph.expr as expr
from slotgraph.expr import (
    CompiledLambda,
    ExpressionError,
    ExpressionEvaluationError,
    ExpressionSyntaxError,
    compile_expression,
    compile_lambda,
)

PACKAGE_DIR = Path(expr.__file__).parent


def test_all_names_are_exported() -> None:
    for name in expr.__all__:
        assert hasattr(expr, name), name
    for name in (
        "compile_expression",
        "compile_lambda",
        "evaluate_code_rule",
        "extract_output_path",
        "Expression",
        "ExpressionError",
        "ExpressionSyntaxError",
        "ExpressionEvaluationError",
    ):
        assert name in expr.__all__


def test_error_hierarchy() -> None:
    assert issubclass(ExpressionSyntaxError, ExpressionError)
    assert issubclass(ExpressionEvaluationError, ExpressionError)
    assert issubclass(ExpressionError, Exception)
    assert expr.ERROR_CODES == expr.COMPILE_CODES | expr.EVALUATION_CODES


def test_no_eval_exec_or_compile_in_the_package() -> None:
    forbidden = {"eval", "exec", "compile", "__import__", "getattr", "setattr"}
    for path in PACKAGE_DIR.rglob("*.py"):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                # getattr is allowed only with the constant method names of the compiler's own table.
                if node.func.id == "getattr" and path.name == "compiler.py":
                    continue
                assert node.func.id not in forbidden, f"{path.name}:{node.lineno} calls {node.func.id}"


def test_expression_is_immutable_and_compares_by_source() -> None:
    first = compile_expression("x == 1")
    second = compile_expression("x == 1")
    assert first == second and hash(first) == hash(second)
    assert first != compile_expression("x == 1", dialect="dot_paths")
    assert first.source == "x == 1" and first.dialect == "default"
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.source = "y"  # type: ignore[misc]


def test_expression_evaluates_many_times_against_any_mapping() -> None:
    expression = compile_expression('party_size >= 5 and status == "in_progress"')
    assert expression.evaluate({"party_size": 6, "status": "in_progress"}) is True
    assert expression.evaluate({"party_size": 4, "status": "in_progress"}) is False
    assert expression.evaluate(MappingProxyType({"party_size": 9, "status": "in_progress"})) is True
    assert expression.evaluate(OrderedDict(party_size=9, status="done")) is False


def test_source_is_stripped() -> None:
    assert compile_expression("  x\n").source == "x"


def test_dot_paths_read_any_mapping_type() -> None:
    expression = compile_expression("payload.a.b", dialect="dot_paths")
    assert expression.evaluate({"payload": MappingProxyType({"a": OrderedDict(b=3)})}) == 3


def test_dot_paths_never_read_python_attributes() -> None:
    class Payload:
        priority = "high"

    expression = compile_expression("payload.priority", dialect="dot_paths")
    assert expression.evaluate({"payload": Payload()}) is None


def test_compiled_lambda_carries_source_and_parameter() -> None:
    function: CompiledLambda = compile_lambda("lambda filled: filled.get('a')")
    assert callable(function) and function.reads == frozenset({"a"}) and callable(function.raw)
    assert function.source == "lambda filled: filled.get('a')"
    assert function.parameter == "filled"
    assert function({"a": 2}) == 2
    assert "lambda filled" in repr(function)


def test_compiled_lambda_errors_carry_the_source() -> None:
    function = compile_lambda("lambda v: int(v)")
    with pytest.raises(ExpressionEvaluationError) as info:
        function("abc")
    assert info.value.code == "value_error"
    assert info.value.source == "lambda v: int(v)"
    assert "int(v)" in str(info.value)


def test_lambda_get_works_on_any_mapping() -> None:
    function = compile_lambda("lambda v: v.get('a').get('b', 0)")
    assert function(MappingProxyType({"a": OrderedDict()})) == 0


def test_lambda_fstring_output_is_capped() -> None:
    function = compile_lambda("lambda v: f'{v}{v}'")
    with pytest.raises(ExpressionEvaluationError) as info:
        function("x" * 60_000)
    assert info.value.code == "value_too_large"


def test_lambda_str_of_huge_int_is_an_evaluation_error() -> None:
    function = compile_lambda("lambda v: str(v)")
    with pytest.raises(ExpressionEvaluationError) as info:
        function(10**5000)
    assert info.value.code == "value_error"


class _Hostile:
    """A caller-supplied value whose dunders raise odd exceptions."""

    def __eq__(self, other: object) -> bool:
        raise KeyError("boom")

    def __hash__(self) -> int:
        return 1

    def __bool__(self) -> bool:
        raise RuntimeError("no truth")

    def __format__(self, spec: str) -> str:
        raise LookupError("no format")


@pytest.mark.parametrize("source", ["x == 1", "not x", "x in [1, 2]", "x and 1", "[x] == [1]"])
def test_hostile_values_become_evaluation_errors(source: str) -> None:
    with pytest.raises(ExpressionEvaluationError) as info:
        compile_expression(source).evaluate({"x": _Hostile()})
    assert info.value.code == "evaluation_failed"


def test_hostile_values_in_lambdas_become_evaluation_errors() -> None:
    with pytest.raises(ExpressionEvaluationError) as info:
        compile_lambda("lambda v: f'{v}'")(_Hostile())
    assert info.value.code == "evaluation_failed"


def test_self_referential_values_do_not_escape_as_recursion_errors() -> None:
    looped: list[Any] = []
    looped.append(looped)
    other: list[Any] = []
    other.append(other)
    with pytest.raises(ExpressionEvaluationError) as info:
        compile_expression("a == b").evaluate({"a": looped, "b": other})
    assert info.value.code == "evaluation_failed"


def test_non_mapping_variables_are_an_evaluation_error() -> None:
    with pytest.raises(ExpressionEvaluationError):
        compile_expression("x").evaluate(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("source", [None, 1, b"x", ["x"]])
def test_non_string_sources_are_refused(source: Any) -> None:
    with pytest.raises(ExpressionSyntaxError) as info:
        compile_expression(source)
    assert info.value.code == "invalid_source"
    with pytest.raises(ExpressionSyntaxError):
        compile_lambda(source)


def test_results_are_fresh_lists() -> None:
    expression = compile_expression("[1, 2]")
    first = expression.evaluate({})
    first.append(3)
    assert expression.evaluate({}) == [1, 2]
