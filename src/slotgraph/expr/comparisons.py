"""Compile ``==`` ``!=`` ``<`` ``<=`` ``>`` ``>=`` ``in`` ``not in``, single or chained, into one closure.

Semantics are Python's, with the project's edges (see :mod:`slotgraph.expr.operations`): ordering across
incompatible types is ``False``, ``in`` needs a container. A comparison is a chain of one or more links
(``0 < score <= 100`` has two): each operand is evaluated once, left to right, and the chain stops at the
first false link, whose result is the chain's result — as in Python.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from slotgraph.expr import operations as ops
from slotgraph.expr.errors import UNSUPPORTED_OPERATOR, Position

if TYPE_CHECKING:
    from slotgraph.expr.compiler import Compiler, Evaluator

Link = Callable[[Any, Any], Any]
"""One link of a chain: the comparison of its two operands' values."""

_PYTHON: Final[Mapping[type[ast.cmpop], Link]] = MappingProxyType(
    {
        ast.Eq: operator.eq,
        ast.NotEq: operator.ne,
        ast.Lt: operator.lt,
        ast.LtE: operator.le,
        ast.Gt: operator.gt,
        ast.GtE: operator.ge,
    }
)
_ORDERING: Final = frozenset({ast.Lt, ast.LtE, ast.Gt, ast.GtE})


def compile_comparison(compiler: Compiler, node: ast.Compare) -> Evaluator:
    links = [_link(compiler, op, node) for op in node.ops]
    first = compiler.compile(node.left)
    rest = [(link, compiler.compile(operand)) for link, operand in zip(links, node.comparators, strict=True)]

    def compare(env: Any) -> Any:
        left = first(env)
        for link, operand in rest:
            right = operand(env)
            result = link(left, right)
            if not result:
                return result
            left = right
        return result

    return compare


def _link(compiler: Compiler, op: ast.cmpop, node: ast.Compare) -> Link:
    kind = type(op)
    if kind in (ast.In, ast.NotIn):
        return _membership(negated=kind is ast.NotIn, position=compiler.position(node))
    if kind in _ORDERING:
        return _ordering(_PYTHON[kind])
    if kind in _PYTHON:
        return _PYTHON[kind]
    symbol = "is not" if kind is ast.IsNot else "is" if kind is ast.Is else "?"
    compiler.refuse(node, UNSUPPORTED_OPERATOR, f"'{symbol}' is not allowed; use '==' or '!='")


def _ordering(compare: Link) -> Link:
    """An ordering operator whose answer across incompatible types (``1 < "a"``) is ``False``."""

    def ordered(left: Any, right: Any) -> Any:
        try:
            return compare(left, right)
        except TypeError:
            return False

    return ordered


def _membership(*, negated: bool, position: Position | None) -> Link:
    def member(item: Any, container: Any) -> bool:
        return ops.contains(item, container, position) is not negated

    return member
