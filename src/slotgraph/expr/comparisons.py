"""Compile ``==`` ``!=`` ``<`` ``<=`` ``>`` ``>=`` ``in`` ``not in`` (single and chained) into closures.

Semantics are Python's, with the project's edges (see :mod:`slotgraph.expr.operations`): ordering across
incompatible types is ``False``, ``in`` needs a container. Chains evaluate each operand once and stop at
the first false link. The common shapes — ``name <op> literal``, ``literal < name <= literal`` and
``name in [literals]`` — are fused into a single closure each, because evaluation speed matters for
conditions checked on every turn (benchmarks/expr_bench.py).
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from slotgraph.expr import operations as ops
from slotgraph.expr.errors import UNSUPPORTED_OPERATOR
from slotgraph.expr.limits import node_position

if TYPE_CHECKING:
    from slotgraph.expr.compiler import Compiler, Evaluator

Comparator = Callable[[Any, Any], Any]

SUPPORTED: Final[frozenset[type[ast.cmpop]]] = frozenset(
    {ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn}
)
_ORDERING: Final[Mapping[type[ast.cmpop], Comparator]] = MappingProxyType(
    {
        ast.Lt: operator.lt,
        ast.LtE: operator.le,
        ast.Gt: operator.gt,
        ast.GtE: operator.ge,
    }
)


def _lt(a: Any, b: Any) -> Any:
    try:
        return a < b
    except TypeError:
        return False


def _le(a: Any, b: Any) -> Any:
    try:
        return a <= b
    except TypeError:
        return False


def _gt(a: Any, b: Any) -> Any:
    try:
        return a > b
    except TypeError:
        return False


def _ge(a: Any, b: Any) -> Any:
    try:
        return a >= b
    except TypeError:
        return False


_SAFE_ORDERING: Final[Mapping[type[ast.cmpop], Comparator]] = MappingProxyType(
    {
        ast.Lt: _lt,
        ast.LtE: _le,
        ast.Gt: _gt,
        ast.GtE: _ge,
    }
)


def compile_comparison(compiler: Compiler, node: ast.Compare) -> Evaluator:
    for op in node.ops:
        if type(op) not in SUPPORTED:
            symbol = "is not" if isinstance(op, ast.IsNot) else "is" if isinstance(op, ast.Is) else "?"
            compiler.refuse(node, UNSUPPORTED_OPERATOR, f"'{symbol}' is not allowed; use '==' or '!='")
    operands = [compiler.compile(node.left), *(compiler.compile(c) for c in node.comparators)]
    if len(node.ops) == 1:
        return _single(compiler, node, operands[0], operands[1])
    fused = _fused_range(compiler, node)
    if fused is not None:
        return fused
    steps = [
        _step(compiler, op, node, comparator)
        for op, comparator in zip(node.ops, node.comparators, strict=True)
    ]
    if len(steps) == 2:
        first, middle, last = operands
        step_one, step_two = steps

        def chained_two(env: Any) -> Any:
            a = first(env)
            b = middle(env)
            result = step_one(a, b)
            if not result:
                return result
            return step_two(b, last(env))

        return chained_two

    def chained(env: Any) -> Any:
        left = operands[0](env)
        result: Any = True
        for step, operand in zip(steps, operands[1:], strict=True):
            right = operand(env)
            result = step(left, right)
            if not result:
                return result
            left = right
        return result

    return chained


def _step(compiler: Compiler, op: ast.cmpop, node: ast.Compare, comparator: ast.expr) -> Comparator:
    """One link of a chain as a two-argument function."""
    kind = type(op)
    if kind is ast.Eq:
        return operator.eq
    if kind is ast.NotEq:
        return operator.ne
    if kind in _SAFE_ORDERING:
        return _SAFE_ORDERING[kind]
    negate = kind is ast.NotIn
    literal = compiler.literal_collection(comparator)
    if literal is not None:
        members, hashed = literal

        def member_of_literal(a: Any, b: Any) -> bool:
            try:
                found = a in hashed
            except TypeError:
                found = a in members
            return found is not negate

        return member_of_literal
    position = node_position(node, compiler.source)

    def member(a: Any, b: Any) -> bool:
        return ops.contains(a, b, position) is not negate

    return member


def _single(compiler: Compiler, node: ast.Compare, left: Evaluator, right: Evaluator) -> Evaluator:
    """One comparison, with ``name <op> literal`` and ``x <op> literal`` fused into one closure."""
    kind = type(node.ops[0])
    target = node.comparators[0]
    name = node.left.id if isinstance(node.left, ast.Name) and compiler.names_are_variables else None
    if kind in (ast.In, ast.NotIn):
        step = _step(compiler, node.ops[0], node, target)
        literal = compiler.literal_collection(target)
        if name is not None and literal is not None:
            members, hashed = literal
            negate = kind is ast.NotIn
            key = name

            def name_in_literal(env: Any) -> bool:
                a = env.get(key)
                try:
                    found = a in hashed
                except TypeError:
                    found = a in members
                return found is not negate

            return name_in_literal
        if literal is not None:
            members, hashed = literal
            negate = kind is ast.NotIn

            def value_in_literal(env: Any) -> bool:
                a = left(env)
                try:
                    found = a in hashed
                except TypeError:
                    found = a in members
                return found is not negate

            return value_in_literal
        return lambda env: step(left(env), right(env))
    if not isinstance(target, ast.Constant):
        step = _step(compiler, node.ops[0], node, target)
        return lambda env: step(left(env), right(env))
    constant = compiler.constant_value(target)
    if kind is ast.Eq:
        if name is not None:
            key = name
            return lambda env: env.get(key) == constant
        return lambda env: left(env) == constant
    if kind is ast.NotEq:
        if name is not None:
            key = name
            return lambda env: env.get(key) != constant
        return lambda env: left(env) != constant
    if name is not None:
        return _name_vs_constant(kind, name, constant)
    return _value_vs_constant(kind, left, constant)


def _name_vs_constant(kind: type[ast.cmpop], key: str, constant: Any) -> Evaluator:
    """``name <op> literal`` for an ordering operator; incompatible types compare ``False``."""
    if kind is ast.Lt:

        def lt(env: Any) -> Any:
            value = env.get(key)
            try:
                return value < constant
            except TypeError:
                return False

        return lt
    if kind is ast.LtE:

        def le(env: Any) -> Any:
            value = env.get(key)
            try:
                return value <= constant
            except TypeError:
                return False

        return le
    if kind is ast.Gt:

        def gt(env: Any) -> Any:
            value = env.get(key)
            try:
                return value > constant
            except TypeError:
                return False

        return gt

    def ge(env: Any) -> Any:
        value = env.get(key)
        try:
            return value >= constant
        except TypeError:
            return False

    return ge


def _value_vs_constant(kind: type[ast.cmpop], left: Evaluator, constant: Any) -> Evaluator:
    """``<expression> <op> literal`` for an ordering operator; incompatible types compare ``False``."""
    if kind is ast.Lt:

        def lt(env: Any) -> Any:
            value = left(env)
            try:
                return value < constant
            except TypeError:
                return False

        return lt
    if kind is ast.LtE:

        def le(env: Any) -> Any:
            value = left(env)
            try:
                return value <= constant
            except TypeError:
                return False

        return le
    if kind is ast.Gt:

        def gt(env: Any) -> Any:
            value = left(env)
            try:
                return value > constant
            except TypeError:
                return False

        return gt

    def ge(env: Any) -> Any:
        value = left(env)
        try:
            return value >= constant
        except TypeError:
            return False

    return ge


def _fused_range(compiler: Compiler, node: ast.Compare) -> Evaluator | None:
    """``literal <op> name <op> literal`` with two ordering operators, e.g. ``0 < score <= 100``."""
    if len(node.ops) != 2:
        return None
    low, (middle, high) = node.left, node.comparators
    if not (
        all(type(op) in _ORDERING for op in node.ops)
        and isinstance(low, ast.Constant)
        and isinstance(middle, ast.Name)
        and isinstance(high, ast.Constant)
        and compiler.names_are_variables
    ):
        return None
    first, second = _ORDERING[type(node.ops[0])], _ORDERING[type(node.ops[1])]
    lower, upper, key = compiler.constant_value(low), compiler.constant_value(high), middle.id

    def in_range(env: Any) -> Any:
        value = env.get(key)
        try:
            return first(lower, value) and second(value, upper)
        except TypeError:
            return False

    return in_range
