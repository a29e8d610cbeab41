"""Property tests: whatever the input, nothing escapes the allow-list and only library errors are raised.

Random text, damaged expressions and random ASTs (built from a grammar that includes every forbidden
node and dangerous names, then unparsed) are compiled in every dialect and evaluated against plain data.
The 100k-case version of this run is benchmarks/expr_fuzz.py.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from expr_astgen import NAMES, is_plain, mutate, random_source, random_value, random_variables
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slotgraph.expr import (
    COMPILE_CODES,
    EVALUATION_CODES,
    MAX_DEPTH,
    MAX_SOURCE_LENGTH,
    ExpressionError,
    ExpressionEvaluationError,
    ExpressionSyntaxError,
    compile_expression,
    compile_lambda,
    evaluate_code_rule,
    extract_output_path,
)

pytestmark = pytest.mark.slow  # a plain `pytest` skips it; `make test` and CI run it

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SYNTAX_PIECES = [
    *"()[]{}'\".,:;+-*/%<>=!&|^~@ _abcxyz0123456789\n\t\\$\x00éλ",
    *(
        "lambda v: ",
        " and ",
        " or ",
        "not ",
        " in ",
        " is ",
        ".get(",
        "__class__",
        "f'",
        "{v}",
        "True",
        "None",
    ),
]


def check_expression(source: str, variables: dict[str, Any], dialect: str) -> None:
    """Compile and evaluate; only library errors with known codes; results are plain data."""
    try:
        expression = compile_expression(source, dialect=dialect)
    except ExpressionSyntaxError as err:
        assert err.code in COMPILE_CODES, err
        str(err)
        return
    try:
        result = expression.evaluate(variables)
    except ExpressionEvaluationError as err:
        assert err.code in EVALUATION_CODES, err
        str(err)
        return
    assert is_plain(result), (source, result)


def check_lambda(source: str, argument: Any) -> None:
    try:
        function = compile_lambda(source)
    except ExpressionSyntaxError as err:
        assert err.code in COMPILE_CODES, err
        return
    try:
        result = function(argument)
    except ExpressionEvaluationError as err:
        assert err.code in EVALUATION_CODES, err
        return
    assert is_plain(result), (source, result)


@SETTINGS
@given(st.lists(st.sampled_from(SYNTAX_PIECES) | st.characters(), max_size=60).map("".join))
def test_random_text_only_raises_library_errors(text: str) -> None:
    for dialect in ("default", "dot_paths"):
        check_expression(text, {"x": 1, "payload": {"a": [1]}}, dialect)
    check_lambda(text, {"a": 1})
    check_lambda("lambda v: " + text, {"a": 1})
    try:
        extract_output_path({"a": [1]}, text)
    except ExpressionSyntaxError as err:
        assert err.code in COMPILE_CODES
    allowed, error = evaluate_code_rule(text, {"x": 1}, fail_open=True, label="prop")
    assert error is None or (allowed is True and "\n" not in error)


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_random_asts_stay_inside_the_allow_list(rng: random.Random) -> None:
    source = random_source(rng)
    variables = random_variables(rng)
    for dialect in ("default", "dot_paths"):
        check_expression(source, variables, dialect)
        check_expression(mutate(rng, source), variables, dialect)
    check_lambda("lambda v: " + source, random_value(rng))
    check_lambda("lambda v: " + mutate(rng, source), random_value(rng))


@pytest.mark.parametrize("name", [name for name in NAMES if not name.startswith("__")])
def test_dangerous_names_are_just_unset_variables(name: str) -> None:
    for dialect in ("default", "dot_paths"):
        assert compile_expression(name, dialect=dialect).evaluate({}) is None
    assert compile_expression(f"{name} == None").evaluate({}) is True


@pytest.mark.parametrize("name", [name for name in NAMES if name.startswith("__")])
def test_dunder_names_never_compile(name: str) -> None:
    for source in (name, f"payload.{name}", f"{name}.a", f"x == {name}"):
        with pytest.raises(ExpressionSyntaxError) as info:
            compile_expression(source, dialect="dot_paths")
        assert info.value.code == "forbidden_name"


NESTERS = [("(", ")"), ("[", "]"), ("-", ""), ("not ", ""), ("x + ", ""), ("(x, ", ")"), ("lambda v: ", "")]


@SETTINGS
@given(st.sampled_from(NESTERS), st.integers(min_value=0, max_value=2000))
def test_nesting_is_capped_without_recursion_errors(nester: tuple[str, str], depth: int) -> None:
    opening, closing = nester
    source = opening * depth + "1" + closing * depth
    try:
        compile_expression(source).evaluate({"x": 1})
    except ExpressionError as err:
        if depth <= MAX_DEPTH // 2 and opening != "lambda v: ":
            raise AssertionError(f"shallow nesting refused: {err!r}") from err
        if len(source) > MAX_SOURCE_LENGTH:
            assert err.code == "too_long"
        elif opening != "lambda v: ":
            assert err.code == "too_deep", err


@SETTINGS
@given(st.integers(min_value=0, max_value=3000), st.sampled_from(["x", "[1]", "'ab'"]))
def test_long_flat_chains_are_capped(length: int, operand: str) -> None:
    source = " + ".join([operand] * (length + 1))
    try:
        compile_expression(source).evaluate({"x": 1})
    except ExpressionError as err:
        assert err.code in {"too_long", "too_deep", "too_many_nodes"}, err
        assert length > 10


@SETTINGS
@given(st.integers(min_value=1, max_value=200_000))
def test_built_values_are_capped(size: int) -> None:
    expression = compile_expression("s + s")
    for value in ("x" * size, [0] * size):
        try:
            result = expression.evaluate({"s": value})
        except ExpressionEvaluationError as err:
            assert err.code == "value_too_large"
            assert 2 * size > 100_000
        else:
            assert len(result) == 2 * size <= 100_000


@SETTINGS
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3), c, max_size=3),
        max_leaves=12,
    ),
    st.lists(
        st.one_of(st.text(alphabet="abc_", min_size=1, max_size=3), st.integers(min_value=0, max_value=3)),
        max_size=5,
    ),
)
def test_output_paths_never_raise_on_valid_paths(value: Any, steps: list[str | int]) -> None:
    path = "$" + "".join(f"[{step}]" if isinstance(step, int) else f"[{step!r}]" for step in steps)
    expected: Any = value
    for step in steps:
        if isinstance(step, int):
            expected = expected[step] if isinstance(expected, list) and step < len(expected) else None
        else:
            expected = expected.get(step) if isinstance(expected, dict) else None
    assert extract_output_path(value, path) == expected


SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=False)
    | st.sampled_from(["", "a", "5"])
)
ORDERING_OPS = st.sampled_from(["<", "<=", ">", ">="])
ALL_OPS = st.sampled_from(["==", "!=", "<", "<=", ">", ">="])


@SETTINGS
@given(
    SCALARS,
    ORDERING_OPS,
    ORDERING_OPS,
    st.sampled_from(["0", "1.5", "'a'", "None", "True"]),
    st.sampled_from(["100", "'z'", "2"]),
)
def test_a_chain_is_the_conjunction_of_its_links(value: Any, op1: str, op2: str, low: str, high: str) -> None:
    chain = compile_expression(f"{low} {op1} x {op2} {high}")
    links = compile_expression(f"({low} {op1} (x or x)) and ((x or x) {op2} {high})")
    assert chain.evaluate({"x": value}) == links.evaluate({"x": value})


@SETTINGS
@given(SCALARS, ALL_OPS, st.sampled_from(["0", "1.5", "'a'", "None", "True", "-2"]))
def test_a_comparison_depends_on_the_operand_values_not_on_their_form(
    value: Any, op: str, literal: str
) -> None:
    plain = compile_expression(f"x {op} {literal}")
    computed = compile_expression(f"(x or x) {op} ({literal} or {literal})")
    assert plain.evaluate({"x": value}) == computed.evaluate({"x": value})


@SETTINGS
@given(SCALARS | st.lists(SCALARS, max_size=2), st.sampled_from(["in", "not in"]))
def test_membership_in_a_literal_list_is_membership_in_a_computed_one(value: Any, op: str) -> None:
    literal = compile_expression(f"x {op} [1, 'a', None, 2.5, True]")
    computed = compile_expression(f"x {op} [1, 'a', None, 2.5, True] + []")
    assert literal.evaluate({"x": value}) == computed.evaluate({"x": value})
