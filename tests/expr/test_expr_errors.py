"""Error objects: stable codes, positions, caret excerpts, one-line rendering."""

from __future__ import annotations

import pytest

from slotgraph.expr import (
    ExpressionEvaluationError,
    ExpressionSyntaxError,
    Position,
    compile_expression,
    compile_lambda,
)


def syntax_error(source: str, dialect: str = "default") -> ExpressionSyntaxError:
    with pytest.raises(ExpressionSyntaxError) as info:
        compile_expression(source, dialect=dialect)
    return info.value


def test_refused_construct_points_at_the_node_with_a_caret() -> None:
    err = syntax_error("a == 1 and f(b)")
    assert err.code == "unsupported_node"
    assert err.position == Position(1, 11)
    assert err.source == "a == 1 and f(b)"
    assert str(err).splitlines() == [
        "function calls are not allowed [unsupported_node] at line 1, column 12",
        "    a == 1 and f(b)",
        "               ^",
    ]


def test_positions_count_characters_not_utf8_bytes() -> None:
    err = syntax_error('"ééé" == x.y')
    assert err.position == Position(1, 9)
    assert str(err).splitlines()[-1] == "    " + " " * 9 + "^"


def test_positions_on_later_lines() -> None:
    err = syntax_error("(a ==\n  1 and x ** 2)")
    assert err.code == "unsupported_operator"
    assert err.position == Position(2, 8)
    assert str(err).splitlines()[1:] == ["      1 and x ** 2)", "            ^"]


def test_syntax_errors_carry_a_position() -> None:
    err = syntax_error("x +* 1")
    assert err.code == "syntax"
    assert err.position is not None and err.position.line == 1


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("party_size >= ", "invalid syntax"),  # Python's own message is already "invalid syntax"
        ("f(a b)", "invalid syntax. Perhaps you forgot a comma?"),
        ("(a", "invalid syntax: '(' was never closed"),
        ("a if b", "invalid syntax: expected 'else' after 'if' expression"),
    ],
)
def test_a_syntax_error_says_invalid_syntax_once(source: str, message: str) -> None:
    assert syntax_error(source).message == message


def test_evaluation_errors_carry_position_and_source() -> None:
    expression = compile_expression('flag and "a" + n')
    with pytest.raises(ExpressionEvaluationError) as info:
        expression.evaluate({"flag": True, "n": 1})
    err = info.value
    assert err.code == "type_error"
    assert err.position == Position(1, 9)
    assert err.source == 'flag and "a" + n'
    assert str(err).endswith('\n    flag and "a" + n\n             ^')


def test_one_line_is_a_single_printable_line() -> None:
    err = syntax_error("(a and\n\tb ** 2)")
    line = err.one_line()
    assert "\n" not in line and "\t" not in line
    assert "[unsupported_operator]" in line and "2:2" in line


def test_excerpt_escapes_control_characters_and_windows_long_lines() -> None:
    err = syntax_error("x\x0b== 1")
    assert "\x0b" not in str(err)
    long_source = "a and " * 100 + "f(x)"
    err = syntax_error(long_source)
    excerpt_line = str(err).splitlines()[1]
    assert len(excerpt_line) < 100 and excerpt_line.lstrip().startswith("…")
    caret_line = str(err).splitlines()[2]
    assert excerpt_line[caret_line.index("^")] == "f"


def test_error_without_source_renders_message_only() -> None:
    err = ExpressionEvaluationError("type_error", "bad")
    assert str(err) == "bad [type_error]"
    assert err.excerpt() == ""
    assert "type_error" in repr(err)


def test_compile_lambda_errors_point_into_the_lambda() -> None:
    with pytest.raises(ExpressionSyntaxError) as info:
        compile_lambda("lambda v: open(v)")
    assert info.value.code == "unknown_function"
    assert info.value.position == Position(1, 10)


@pytest.mark.parametrize(
    "source", ["lambda f: f.get('a') is None", "lambda f: len(f) is not 1", "lambda f: f['a'] is 1"]
)
def test_is_is_refused_in_lambdas_whatever_its_left_operand(source: str) -> None:
    with pytest.raises(ExpressionSyntaxError) as info:
        compile_lambda(source)
    assert (info.value.code, info.value.position) == ("unsupported_operator", Position(1, 10))


def test_of_several_refusals_the_first_in_reading_order_is_reported() -> None:
    err = syntax_error("__a + __b")
    assert (err.code, err.position) == ("forbidden_name", Position(1, 0))
    assert "'__a'" in err.message
    err = syntax_error("a + __b + ...")
    assert (err.code, err.position) == ("forbidden_name", Position(1, 4))


def test_unknown_dialect() -> None:
    err = syntax_error("x", dialect="lambda")
    assert err.code == "unknown_dialect"
