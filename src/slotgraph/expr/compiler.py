"""Translate an allow-listed Python AST into nested closures, once; evaluate them many times.

The compiler walks the tree produced by ``ast.parse`` (never ``compile()``, never ``eval``) and returns
an :data:`Evaluator` — a plain function of the evaluation environment. Anything outside the grammar is
refused here, with the position and the reason, so a compiled expression can only ever read variables,
compare and combine plain values. :mod:`slotgraph.expr.lambdas` extends this class for the legacy
lambda dialect.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, ClassVar, Final, NoReturn

from slotgraph.expr import operations as ops
from slotgraph.expr.comparisons import compile_comparison
from slotgraph.expr.errors import (
    FORBIDDEN_NAME,
    UNSUPPORTED_NODE,
    UNSUPPORTED_OPERATOR,
    VALUE_TOO_LARGE,
    ExpressionSyntaxError,
    Position,
)
from slotgraph.expr.limits import MAX_INT_BITS, MAX_VALUE_SIZE, node_position

Evaluator = Callable[[Any], Any]
"""A compiled (sub)expression: takes the environment (the variables mapping, or the lambda argument)."""

_MISSING: Final = object()

_REFUSED_NODES: Final[Mapping[type[ast.AST], str]] = MappingProxyType(
    {
        ast.Call: "function calls are not allowed",
        ast.Subscript: "subscripts are not allowed",
        ast.Attribute: "attribute access is not allowed in this dialect",
        ast.Lambda: "lambdas are not allowed here",
        ast.IfExp: "conditional expressions (x if c else y) are not allowed; combine with and/or",
        ast.Dict: "dict literals are not allowed",
        ast.Set: "set literals are not allowed",
        ast.ListComp: "comprehensions are not allowed",
        ast.SetComp: "comprehensions are not allowed",
        ast.DictComp: "comprehensions are not allowed",
        ast.GeneratorExp: "generator expressions are not allowed",
        ast.JoinedStr: "f-strings are not allowed in this dialect",
        ast.FormattedValue: "f-strings are not allowed in this dialect",
        ast.NamedExpr: "assignment expressions (:=) are not allowed",
        ast.Starred: "starred expressions are not allowed",
        ast.Slice: "slices are not allowed",
        ast.Await: "await is not allowed",
        ast.Yield: "yield is not allowed",
        ast.YieldFrom: "yield is not allowed",
    }
)


def is_dunder(name: str) -> bool:
    return name.startswith("__")


class Compiler:
    """The default grammar; ``dot_paths=True`` adds mapping reads through ``a.b.c``."""

    def __init__(self, source: str, *, dot_paths: bool = False) -> None:
        self.source = source
        self.dot_paths = dot_paths

    # -- entry points ------------------------------------------------------------------------------

    def compile(self, node: ast.expr) -> Evaluator:
        method = self.handlers.get(type(node))
        if method is None:
            return self.refuse_node(node)
        handler: Callable[[Any], Evaluator] = getattr(self, method)
        return handler(node)

    def refuse(self, node: ast.AST, code: str, message: str) -> NoReturn:
        raise ExpressionSyntaxError(
            code, message, position=node_position(node, self.source), source=self.source
        )

    def refuse_node(self, node: ast.AST) -> NoReturn:
        reason = _REFUSED_NODES.get(type(node), f"{type(node).__name__} is not allowed in an expression")
        self.refuse(node, UNSUPPORTED_NODE, reason)

    # -- leaves ------------------------------------------------------------------------------------

    def compile_constant(self, node: ast.Constant) -> Evaluator:
        value = self.constant_value(node)
        return lambda env: value

    def constant_value(self, node: ast.Constant) -> Any:
        value = node.value
        if value is None or isinstance(value, bool | str | float):
            return value
        if isinstance(value, int):
            if value.bit_length() > MAX_INT_BITS:
                self.refuse(node, VALUE_TOO_LARGE, f"integer literal is longer than {MAX_INT_BITS} bits")
            return value
        self.refuse(node, UNSUPPORTED_NODE, f"{type(value).__name__} literals are not allowed")

    def compile_name(self, node: ast.Name) -> Evaluator:
        name = self.check_name(node, node.id)

        def read(env: Any) -> Any:
            return env.get(name)

        return read

    def check_name(self, node: ast.AST, name: str) -> str:
        if is_dunder(name):
            self.refuse(node, FORBIDDEN_NAME, f"names starting with '__' are not allowed: {name!r}")
        return name

    def compile_attribute(self, node: ast.Attribute) -> Evaluator:
        if not self.dot_paths:
            self.refuse_node(node)
        key = self.check_name(node, node.attr)
        base = self.compile(node.value)

        def read(env: Any) -> Any:
            value = base(env)
            if type(value) is dict or isinstance(value, Mapping):
                return value.get(key)
            return None

        return read

    # -- collections -------------------------------------------------------------------------------

    def compile_list(self, node: ast.List) -> Evaluator:
        constant = self.constant_items(node.elts)
        if constant is not _MISSING:
            frozen: tuple[Any, ...] = constant
            return lambda env: list(frozen)
        items = [self.compile(element) for element in node.elts]
        return lambda env: [item(env) for item in items]

    def compile_tuple(self, node: ast.Tuple) -> Evaluator:
        constant = self.constant_items(node.elts)
        if constant is not _MISSING:
            frozen: tuple[Any, ...] = constant
            return lambda env: frozen
        items = [self.compile(element) for element in node.elts]
        return lambda env: tuple(item(env) for item in items)

    def constant_items(self, elements: list[ast.expr]) -> Any:
        """The elements as a tuple if all are scalar literals (checked), else ``_MISSING``."""
        if all(isinstance(element, ast.Constant) for element in elements):
            return tuple(self.constant_value(element) for element in elements)  # type: ignore[arg-type]
        return _MISSING

    # -- operators ---------------------------------------------------------------------------------

    def compile_bool_op(self, node: ast.BoolOp) -> Evaluator:
        operands = [self.compile(value) for value in node.values]
        if self.names_are_variables and all(isinstance(value, ast.Name) for value in node.values):
            return _names_bool_op(
                tuple(value.id for value in node.values if isinstance(value, ast.Name)), node.op
            )
        if isinstance(node.op, ast.And):
            if len(operands) == 2:
                first, second = operands
                return lambda env: first(env) and second(env)

            def all_of(env: Any) -> Any:
                result = None
                for operand in operands:
                    result = operand(env)
                    if not result:
                        return result
                return result

            return all_of
        if len(operands) == 2:
            first, second = operands
            return lambda env: first(env) or second(env)

        def any_of(env: Any) -> Any:
            result = None
            for operand in operands:
                result = operand(env)
                if result:
                    return result
            return result

        return any_of

    def compile_unary_op(self, node: ast.UnaryOp) -> Evaluator:
        if isinstance(node.op, ast.Not):
            operand = self.compile(node.operand)
            return lambda env: not operand(env)
        if isinstance(node.op, ast.USub):
            position = node_position(node, self.source)
            if isinstance(node.operand, ast.Constant) and ops.is_number(node.operand.value):
                value = ops.negate(self.constant_value(node.operand), position)
                return lambda env: value
            operand = self.compile(node.operand)
            return lambda env: ops.negate(operand(env), position)
        symbol = {ast.UAdd: "unary '+'", ast.Invert: "'~'"}.get(type(node.op), type(node.op).__name__)
        self.refuse(node, UNSUPPORTED_OPERATOR, f"{symbol} is not allowed; only unary '-' and 'not'")

    def compile_bin_op(self, node: ast.BinOp) -> Evaluator:
        if not isinstance(node.op, ast.Add | ast.Sub):
            symbol = _BIN_SYMBOLS.get(type(node.op), type(node.op).__name__)
            self.refuse(node, UNSUPPORTED_OPERATOR, f"operator '{symbol}' is not allowed; only '+' and '-'")
        chain = self._add_chain(node)
        if chain is not None:
            return chain
        left, right = self.compile(node.left), self.compile(node.right)
        position = node_position(node, self.source)
        if isinstance(node.op, ast.Add):

            def plus(env: Any) -> Any:
                a = left(env)
                b = right(env)
                kind = type(a)
                if kind is type(b):
                    if kind is int or kind is float:
                        return a + b
                    if kind is str and len(a) + len(b) <= MAX_VALUE_SIZE:
                        return a + b
                return ops.add(a, b, position)

            return plus

        def minus(env: Any) -> Any:
            a, b = left(env), right(env)
            if (type(a) is int or type(a) is float) and (type(b) is int or type(b) is float):
                return a - b
            return ops.subtract(a, b, position)

        return minus

    def _add_chain(self, node: ast.BinOp) -> Evaluator | None:
        """``a + ' ' + b`` — ``+`` over bare names and literals only — as one closure (same semantics)."""
        if not self.names_are_variables:
            return None
        steps: list[tuple[str | tuple[Any], Position | None]] = []
        current: ast.expr = node
        while isinstance(current, ast.BinOp) and isinstance(current.op, ast.Add):
            operand = current.right
            position = node_position(current, self.source)
            if isinstance(operand, ast.Name):
                steps.append((self.check_name(operand, operand.id), position))
            elif isinstance(operand, ast.Constant):
                steps.append(((self.constant_value(operand),), position))  # a literal: boxed in a tuple
            else:
                return None
            current = current.left
        if isinstance(current, ast.Name):
            first: str | tuple[Any] = self.check_name(current, current.id)
        elif isinstance(current, ast.Constant):
            first = (self.constant_value(current),)
        else:
            return None
        steps.reverse()
        rest = tuple(steps)
        general = self._general_add_chain(first, rest)
        return _text_join(first, rest, general) or general

    @staticmethod
    def _general_add_chain(
        first: str | tuple[Any], rest: tuple[tuple[str | tuple[Any], Position | None], ...]
    ) -> Evaluator:
        def add_all(env: Any) -> Any:
            total = env.get(first) if type(first) is str else first[0]
            for step, position in rest:
                value = env.get(step) if type(step) is str else step[0]
                kind = type(total)
                if kind is str and type(value) is str:
                    total += value
                    if len(total) > MAX_VALUE_SIZE:
                        ops.check_size(len(total), position)
                elif kind is type(value) and (kind is int or kind is float):
                    total = total + value
                else:
                    total = ops.add(total, value, position)
            return total

        return add_all

    def compile_compare(self, node: ast.Compare) -> Evaluator:
        return compile_comparison(self, node)

    def literal_collection(self, node: ast.expr) -> tuple[tuple[Any, ...], frozenset[Any]] | None:
        """For ``x in [literal, ...]``: the members, and a frozenset of them for a hashed lookup."""
        if isinstance(node, ast.List | ast.Tuple):
            members = self.constant_items(node.elts)
            if members is not _MISSING:
                return members, frozenset(members)
        return None

    handlers: ClassVar[Mapping[type[ast.AST], str]] = MappingProxyType(
        {
            ast.Constant: "compile_constant",
            ast.Name: "compile_name",
            ast.Attribute: "compile_attribute",
            ast.List: "compile_list",
            ast.Tuple: "compile_tuple",
            ast.BoolOp: "compile_bool_op",
            ast.UnaryOp: "compile_unary_op",
            ast.BinOp: "compile_bin_op",
            ast.Compare: "compile_compare",
        }
    )
    """Node type → name of the method compiling it; subclasses extend the table."""

    names_are_variables: bool = True
    """A bare name reads ``env.get(name)`` (lets the compiler fuse ``name <op> literal``)."""


_BIN_SYMBOLS: Final[Mapping[type[ast.operator], str]] = MappingProxyType(
    {
        ast.Mult: "*",
        ast.Div: "/",
        ast.FloorDiv: "//",
        ast.Mod: "%",
        ast.Pow: "**",
        ast.MatMult: "@",
        ast.LShift: "<<",
        ast.RShift: ">>",
        ast.BitOr: "|",
        ast.BitXor: "^",
        ast.BitAnd: "&",
    }
)


def _names_bool_op(names: tuple[str, ...], op: ast.boolop) -> Evaluator:
    """``a and b and c`` / ``a or b or c`` over plain names, without a closure call per name."""
    if isinstance(op, ast.And):

        def all_names(env: Any) -> Any:
            result = None
            for name in names:
                result = env.get(name)
                if not result:
                    return result
            return result

        return all_names

    def any_name(env: Any) -> Any:
        result = None
        for name in names:
            result = env.get(name)
            if result:
                return result
        return result

    return any_name


def _text_join(
    first: str | tuple[Any], rest: tuple[tuple[str | tuple[Any], Position | None], ...], general: Evaluator
) -> Evaluator | None:
    """The shapes ``a + b`` and ``a + ' ' + b`` (bare names, string literals in between) as one closure that
    concatenates when every value is a string and the result is within the size cap; anything else (a
    number, a missing name, an oversized result) is handed to ``general``, which computes the same value or
    raises the same error."""
    operands = (first, *(step for step, _ in rest))
    names = [operand for operand in operands if type(operand) is str]
    if len(operands) == 2 and len(names) == 2:
        left, right = names

        def join_two(env: Any) -> Any:
            a, b = env.get(left), env.get(right)
            if type(a) is str and type(b) is str and len(a) + len(b) <= MAX_VALUE_SIZE:
                return a + b
            return general(env)

        return join_two
    middle = operands[1] if len(operands) == 3 else None
    if (
        len(operands) == 3
        and type(operands[0]) is str
        and type(operands[2]) is str
        and type(middle) is tuple
        and type(middle[0]) is str
    ):
        left, right, separator = operands[0], operands[2], middle[0]
        budget = MAX_VALUE_SIZE - len(separator)

        def join_three(env: Any) -> Any:
            a, b = env.get(left), env.get(right)
            if type(a) is str and type(b) is str and len(a) + len(b) <= budget:
                return a + separator + b
            return general(env)

        return join_three
    return None
