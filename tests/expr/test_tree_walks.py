"""The bounds of ``slotgraph.expr.limits`` against reference scans written here: the node-count and depth caps
refuse a tree at the node a depth-first walk reaches first over the cap, and the bracket pre-scan refuses
exactly the nesting a full scan finds."""

from __future__ import annotations

import ast
import random

import pytest
from expr_astgen import random_source
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slotgraph.expr import ExpressionSyntaxError
from slotgraph.expr.limits import (
    MAX_DEPTH,
    MAX_NODES,
    check_tree_shape,
    node_position,
    prescan_nesting,
)

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reference_shape(tree: ast.AST, source: str) -> tuple[str, object] | None:
    """The walk ``check_tree_shape`` did with ``ast.iter_child_nodes``: the first cap hit, and where."""
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    count = 0
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ast.expr_context):
            continue
        count += 1
        if count > MAX_NODES:
            return "nodes", node_position(node, source)
        if depth > MAX_DEPTH:
            return "depth", node_position(node, source)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return None


def shape(tree: ast.AST, source: str) -> tuple[str, object] | None:
    try:
        check_tree_shape(tree, source)
    except ExpressionSyntaxError as err:
        return ("nodes" if "syntax nodes" in err.message else "depth"), err.position
    return None


@SETTINGS
@given(st.randoms(use_true_random=False), st.integers(min_value=1, max_value=9))
def test_the_shape_check_agrees_with_the_ast_walk(rng: random.Random, depth: int) -> None:
    source = random_source(rng)
    for text in (source, " + ".join([source] * depth * 40), "(" * depth * 3 + source + ")" * depth * 3):
        try:
            tree = ast.parse(text, mode="eval")
        except (SyntaxError, RecursionError, MemoryError, ValueError):
            continue
        assert shape(tree, text) == reference_shape(tree, text)


@pytest.mark.parametrize(
    "text",
    ["-" * 60 + "x", "not " * 60 + "x", "x" + " + x" * 600, "[" * 40 + "x" + "]" * 40, "f(" * 30 + ")" * 30],
)
def test_the_caps_hit_at_the_same_node(text: str) -> None:
    tree = ast.parse(text, mode="eval")
    assert shape(tree, text) == reference_shape(tree, text)


@given(st.text(alphabet="([{}])'\"\\x\n ", max_size=120))
def test_the_bracket_prescan_refuses_what_the_full_scan_refuses(text: str) -> None:
    def full_scan(source: str) -> bool:
        depth = deepest = 0
        quote: str | None = None
        i = 0
        while i < len(source):
            ch = source[i]
            if quote is not None:
                if ch == "\\":
                    i += 2
                    continue
                if source.startswith(quote, i):
                    i += len(quote)
                    quote = None
                    continue
            elif ch in "'\"":
                quote = ch * 3 if source.startswith(ch * 3, i) else ch
                i += len(quote)
                continue
            elif ch in "([{":
                depth += 1
                deepest = max(deepest, depth)
            elif ch in ")]}":
                depth = max(0, depth - 1)
            i += 1
        return deepest > MAX_DEPTH

    for source in (text, "(" * 45 + text, "[" * 49 + text):
        try:
            prescan_nesting(source)
            refused = False
        except ExpressionSyntaxError:
            refused = True
        assert refused == full_scan(source)
