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

    Contexts (``Load``, ``Store``) are not counted. The first node over a cap is the one the error names."""
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
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
        stack.extend(
            (child, depth + 1)
            for child in ast.iter_child_nodes(node)
            if not isinstance(child, ast.expr_context)
        )


def node_position(node: ast.AST, source: str) -> Position | None:
    """The node's position with the column converted from UTF-8 bytes (as ``ast`` reports) to characters."""
    if not isinstance(node, ast.expr | ast.arg):
        return None
    line, col = node.lineno, node.col_offset
    lines = source_lines(source)
    if 1 <= line <= len(lines):
        col = len(lines[line - 1].encode("utf-8")[:col].decode("utf-8", errors="ignore"))
    return Position(line, col)
