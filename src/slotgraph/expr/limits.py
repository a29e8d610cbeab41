"""Bounds that keep compiling and evaluating an expression cheap, whatever the input.

Every cap is checked without recursion: the source is pre-scanned for bracket nesting before
``ast.parse`` sees it, and the parsed tree is measured with an explicit stack before the compiler
(which does recurse) walks it. Hitting a cap is an :class:`ExpressionSyntaxError` at compile time or an
:class:`ExpressionEvaluationError` at run time — never a hang, ``RecursionError`` or memory blow-up.
"""

from __future__ import annotations

import ast
from typing import Final

from slotgraph.expr.errors import (
    TOO_DEEP,
    TOO_LONG,
    TOO_MANY_NODES,
    ExpressionSyntaxError,
    Position,
    source_lines,
)

MAX_SOURCE_LENGTH: Final = 4096
"""Characters in an expression, lambda or output path."""

MAX_NODES: Final = 1000
"""Python AST nodes in one expression (contexts such as ``Load`` excluded)."""

MAX_DEPTH: Final = 48
"""Nesting depth of the AST, and of brackets in the source."""

MAX_VALUE_SIZE: Final = 100_000
"""Characters of a string, or items of a list, that ``+`` or an f-string may build."""

MAX_INT_BITS: Final = 256
"""Bits of an integer literal (about 77 decimal digits)."""

MAX_ROUND_DIGITS: Final = 64
"""Largest ``abs(ndigits)`` for ``round`` in the lambda dialect (huge values build huge powers of ten)."""


_AST: Final = ast.AST
_CONTEXT: Final = ast.expr_context


def check_source_length(source: str) -> None:
    if len(source) > MAX_SOURCE_LENGTH:
        raise ExpressionSyntaxError(
            TOO_LONG,
            f"expression is {len(source)} characters long; the limit is {MAX_SOURCE_LENGTH}",
            source=source[:MAX_SOURCE_LENGTH],
        )


def prescan_nesting(source: str) -> None:
    """Refuse bracket nesting deeper than :data:`MAX_DEPTH`, skipping over quoted strings.

    A linear scan, so ``ast.parse`` is never handed a pathologically nested input. String handling is
    approximate on purpose (it only has to avoid counting brackets inside ordinary quotes).
    """
    if source.count("(") + source.count("[") + source.count("{") <= MAX_DEPTH:
        return  # fewer opening brackets than the cap, quoted ones included: the scan cannot refuse it
    depth = 0
    line, column = 1, 0
    quote: str | None = None
    i, n = 0, len(source)
    while i < n:
        ch = source[i]
        if quote is not None:
            if ch == "\\":
                i += 2
                column += 2
                continue
            if source.startswith(quote, i):
                i += len(quote)
                column += len(quote)
                quote = None
                continue
        elif ch in "'\"":
            quote = ch * 3 if source.startswith(ch * 3, i) else ch
            i += len(quote)
            column += len(quote)
            continue
        elif ch in "([{":
            depth += 1
            if depth > MAX_DEPTH:
                raise ExpressionSyntaxError(
                    TOO_DEEP,
                    f"brackets are nested more than {MAX_DEPTH} deep",
                    position=Position(line, column),
                    source=source,
                )
        elif ch in ")]}":
            depth = max(0, depth - 1)
        if ch == "\n":
            line, column = line + 1, 0
        else:
            column += 1
        i += 1


def check_tree_shape(tree: ast.AST, source: str) -> None:
    """Count nodes and measure depth with an explicit stack; refuse trees over the caps.

    The walk visits the nodes in the order of a stack fed with :func:`ast.iter_child_nodes` (so the node an
    error names is the same), but reads each node's fields directly: the generators of ``ast`` cost more than
    the walk itself, and every condition of a config is parsed on its first compilation."""
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    push = stack.append
    count = 0
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise ExpressionSyntaxError(
                TOO_MANY_NODES,
                f"expression has more than {MAX_NODES} syntax nodes",
                position=node_position(node, source),
                source=source,
            )
        if depth > MAX_DEPTH:
            raise ExpressionSyntaxError(
                TOO_DEEP,
                f"expression is nested more than {MAX_DEPTH} levels deep",
                position=node_position(node, source),
                source=source,
            )
        depth += 1
        fields = node.__dict__  # an AST node keeps its fields in its __dict__ (absent optional ones: None)
        for name in node._fields:
            value = fields.get(name)
            if isinstance(value, _AST):
                if not isinstance(value, _CONTEXT):  # contexts (Load, Store) are not counted
                    push((value, depth))
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, _AST) and not isinstance(item, _CONTEXT):
                        push((item, depth))


def all_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` (``tree`` included) that ``ast.walk`` finds, depth first and without its
    generators: for callers that only collect, where the order does not matter."""
    out: list[ast.AST] = []
    stack = [tree]
    push = stack.append
    while stack:
        node = stack.pop()
        out.append(node)
        fields = node.__dict__  # an AST node keeps its fields in its __dict__ (absent optional ones: None)
        for name in node._fields:
            value = fields.get(name)
            if isinstance(value, _AST):
                push(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, _AST):
                        push(item)
    return out


def node_position(node: ast.AST, source: str) -> Position | None:
    """The node's position with the column converted from UTF-8 bytes (as ``ast`` reports) to characters."""
    if not isinstance(node, ast.expr | ast.arg):
        return None
    line, col = node.lineno, node.col_offset
    lines = source_lines(source)
    if 1 <= line <= len(lines):
        col = len(lines[line - 1].encode("utf-8")[:col].decode("utf-8", errors="ignore"))
    return Position(line, col)
