"""Translate an allow-listed Python AST into nested closures, once; evaluate them many times.

The compiler walks the tree produced by ``ast.parse`` (never ``compile()``, never ``eval``) and returns
an :data:`Evaluator` — a plain function of the evaluation environment. Each node type has one handler,
which compiles the node's children and returns a closure combining their values; anything outside the
grammar is refused here, with the position and the reason, so a compiled expression can only ever read
variables, compare and combine plain values. :mod:`slotgraph.expr.lambdas` extends this class for the
legacy lambda dialect.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, ClassVar, Final, NoReturn

from slotgraph.expr import operations as ops
from slotgraph.expr.comparisons import compile_comparison
from slotgraph.expr.errors import (
    EVALUATION_FAILED,
    FORBIDDEN_NAME,
    UNSUPPORTED_NODE,
    UNSUPPORTED_OPERATOR,
    VALUE_TOO_LARGE,
    ExpressionError,
    ExpressionEvaluationError,
    ExpressionSyntaxError,
    Position,
)
from slotgraph.expr.limits import MAX_INT_BITS, node_position

Evaluator = Callable[[Any], Any]
"""A compiled (sub)expression: takes the environment (the variables mapping, or the lambda argument)."""

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


def is_dunder(name: str) -> bool:
    return name.startswith("__")


def run(evaluator: Evaluator, env: Any, source: str) -> Any:
    """Evaluate a compiled expression, every failure becoming an ExpressionError that carries ``source``:
    a library error as it is, resource exhaustion and any other exception (a caller's object raising) as
    ``evaluation_failed``."""
    try:
        return evaluator(env)
    except ExpressionError as err:
        err.source = source
        raise
    except (RecursionError, MemoryError) as exc:
        raise ExpressionEvaluationError(
            EVALUATION_FAILED, f"evaluation exhausted resources ({type(exc).__name__})", source=source
        ) from None
    except Exception as exc:
        raise ExpressionEvaluationError(
            EVALUATION_FAILED, f"evaluation failed ({type(exc).__name__})", source=source
        ) from exc


class Compiler:
    """The default grammar; ``dot_paths=True`` adds mapping reads through ``a.b.c``."""

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

    def __init__(self, source: str, *, dot_paths: bool = False) -> None:
        self.source = source
        self.dot_paths = dot_paths

    def compile(self, node: ast.expr) -> Evaluator:
        method = self.handlers.get(type(node))
        if method is None:
            self.refuse_node(node)
        handler: Callable[[Any], Evaluator] = getattr(self, method)
        return handler(node)

    def refuse(self, node: ast.AST, code: str, message: str) -> NoReturn:
        raise ExpressionSyntaxError(
            code, message, position=node_position(node, self.source), source=self.source
        )

    def refuse_node(self, node: ast.AST) -> NoReturn:
        reason = _REFUSED_NODES.get(type(node), f"{type(node).__name__} is not allowed in an expression")
        self.refuse(node, UNSUPPORTED_NODE, reason)

    def position(self, node: ast.AST) -> Position | None:
        return node_position(node, self.source)

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
        return lambda env: env.get(name)

    def check_name(self, node: ast.AST, name: str) -> str:
        if is_dunder(name):
            self.refuse(node, FORBIDDEN_NAME, f"names starting with '__' are not allowed: {name!r}")
        return name

    def compile_attribute(self, node: ast.Attribute) -> Evaluator:
        """``a.b`` in the ``dot_paths`` dialect: the key ``"b"`` of a mapping, ``None`` for anything else."""
        if not self.dot_paths:
            self.refuse_node(node)
        key = self.check_name(node, node.attr)
        base = self.compile(node.value)

        def read(env: Any) -> Any:
            value = base(env)
            return value.get(key) if isinstance(value, Mapping) else None

        return read

    # -- collections -------------------------------------------------------------------------------

    def compile_list(self, node: ast.List) -> Evaluator:
        items = [self.compile(element) for element in node.elts]
        return lambda env: [item(env) for item in items]

    def compile_tuple(self, node: ast.Tuple) -> Evaluator:
        items = [self.compile(element) for element in node.elts]
        return lambda env: tuple([item(env) for item in items])

    # -- operators ---------------------------------------------------------------------------------

    def compile_bool_op(self, node: ast.BoolOp) -> Evaluator:
        """``and``/``or`` as in Python: evaluated left to right, stopping at the first operand that decides,
        whose value is the result."""
        operands = [self.compile(value) for value in node.values]
        if isinstance(node.op, ast.And):

            def all_of(env: Any) -> Any:
                for operand in operands:
                    value = operand(env)
                    if not value:
                        return value
                return value

            return all_of

        def any_of(env: Any) -> Any:
            for operand in operands:
                value = operand(env)
                if value:
                    return value
            return value

        return any_of

    def compile_unary_op(self, node: ast.UnaryOp) -> Evaluator:
        if isinstance(node.op, ast.Not):
            operand = self.compile(node.operand)
            return lambda env: not operand(env)
        if isinstance(node.op, ast.USub):
            operand = self.compile(node.operand)
            position = self.position(node)
            return lambda env: ops.negate(operand(env), position)
        symbol = {ast.UAdd: "unary '+'", ast.Invert: "'~'"}.get(type(node.op), type(node.op).__name__)
        self.refuse(node, UNSUPPORTED_OPERATOR, f"{symbol} is not allowed; only unary '-' and 'not'")

    def compile_bin_op(self, node: ast.BinOp) -> Evaluator:
        if not isinstance(node.op, ast.Add | ast.Sub):
            symbol = _BIN_SYMBOLS.get(type(node.op), type(node.op).__name__)
            self.refuse(node, UNSUPPORTED_OPERATOR, f"operator '{symbol}' is not allowed; only '+' and '-'")
        operation = ops.add if isinstance(node.op, ast.Add) else ops.subtract
        left, right = self.compile(node.left), self.compile(node.right)
        position = self.position(node)
        return lambda env: operation(left(env), right(env), position)

    def compile_compare(self, node: ast.Compare) -> Evaluator:
        return compile_comparison(self, node)
