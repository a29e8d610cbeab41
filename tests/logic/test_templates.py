"""The template scanner: statement forms, positions of problems, and robustness on broken input."""

from __future__ import annotations

import pytest

from slotgraph.logic import parse_template
from slotgraph.logic.templates import RunStatement, SetStatement, Text, ValueStatement, When


def test_run_statement_with_arguments_and_captures() -> None:
    """ "{{run tool with input = expr, … set variable = $.path, …}}"."""
    template = parse_template(
        "{{run lookup with id = pid, tags = ['a, b', \"set x\"] set name = $.name, code = $.data[0].code}}"
    )
    assert template.issues == ()
    (node,) = template.nodes
    assert isinstance(node, RunStatement)
    assert node.tool == "lookup"
    assert [(n, e.source) for n, e in node.args] == [("id", "pid"), ("tags", "['a, b', \"set x\"]")]
    assert node.captures == (("name", "$.name"), ("code", "$.data[0].code"))


@pytest.mark.parametrize("text", ["{{run ping}}", "{{run ping set a = $.a}}", "{{run ping with a = 1}}"])
def test_run_with_and_set_are_optional(text: str) -> None:
    assert parse_template(text).issues == ()


def test_set_and_value_statements() -> None:
    template = parse_template("{{set greeted = True}}{{= 1 + 2}}")
    assert template.issues == ()
    assert isinstance(template.nodes[0], SetStatement) and isinstance(template.nodes[1], ValueStatement)


@pytest.mark.parametrize(
    ("text", "code", "line", "column"),
    [
        ("ok\n  {{#when x}}never closed", "unbalanced_when", 2, 3),
        ("{{/when}}", "unbalanced_when", 1, 1),
        ("{{:else}}", "unbalanced_when", 1, 1),
        ("{{#when x}}a{{:else}}b{{:else}}c{{/when}}", "unbalanced_when", 1, 23),
        ("{{#when x ==}}a{{/when}}", "bad_expression", 1, 1),
        ("{{#when}}a{{/when}}", "malformed_statement", 1, 1),
        ("{{set x}}", "malformed_statement", 1, 1),
        ("{{set x == 1}}", "malformed_statement", 1, 1),
        ("{{run}}", "malformed_statement", 1, 1),
        ("{{run t using a = 1}}", "malformed_statement", 1, 1),
        ("{{run t with a}}", "malformed_statement", 1, 1),
        ("{{run t set a = b}}", "bad_path", 1, 1),
        ("{{run t set }}", "malformed_statement", 1, 1),
        ("{{= }}", "malformed_statement", 1, 1),
        ("{{= f(x)}}", "bad_expression", 1, 1),
    ],
)
def test_problems_have_a_code_and_a_position(text: str, code: str, line: int, column: int) -> None:
    template = parse_template(text)
    assert [(i.code, i.line, i.column) for i in template.issues][:1] == [(code, line, column)]


def test_broken_statements_never_become_prose() -> None:
    template = parse_template("a{{set x}}b{{run}}c")
    assert all(isinstance(n, Text) for n in template.nodes)
    assert "".join(n.text for n in template.nodes if isinstance(n, Text)) == "abc"


def test_an_unclosed_section_is_closed_at_the_end() -> None:
    template = parse_template("{{#when x}}tail")
    assert isinstance(template.nodes[0], When)


def test_names_read_and_written() -> None:
    template = parse_template(
        "{{#when a and filled.b == 'c d'}}{{x}}{{/when}}{{set y = z}}{{run t set w = $.w}}"
    )
    assert template.names_read() == {"a", "filled", "x", "z"}
    assert [name for name, _ in template.names_written()] == ["y", "w"]
    assert not parse_template("plain {{TOOL:x}}").has_logic
