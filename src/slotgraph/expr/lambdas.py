"""The legacy lambda dialect: ``lambda filled: int(filled.get('party_size', 0)) >= 5``.

Configs written for the original platform carry conditions and formatters as one-parameter lambda
strings. They are compiled here — never ``eval``-ed — to the default grammar plus a small surface:

* the parameter is the only name (other names, including builtins used as values, are refused);
* ``.get(key)`` / ``.get(key, default)`` on any value that turns out to be a mapping at run time
  (the parameter, or a mapping obtained from it); on anything else it is a ``not_mapping`` error;
* calls to the pure builtins ``int float str bool len min max abs round`` (positional arguments only);
* subscripts with a constant key (``filled['x']``, ``items[0]``, ``items[-1]``) with Python's
  semantics: a missing key is ``missing_key``, an index out of range is ``index_error``;
* f-strings with a conversion (``!s``, ``!r``, ``!a``) and a constant, standard format spec.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Final

from slotgraph.expr import operations as ops
from slotgraph.expr.compiler import Compiler, Evaluator, run
from slotgraph.expr.errors import (
    BAD_ARGUMENTS,
    BAD_FORMAT,
    INDEX_ERROR,
    MISSING_KEY,
    NOT_LAMBDA,
    NOT_MAPPING,
    OVERFLOW,
    TYPE_ERROR,
    UNKNOWN_FUNCTION,
    UNKNOWN_NAME,
    UNSUPPORTED_NODE,
    VALUE_ERROR,
    VALUE_TOO_LARGE,
    ExpressionError,
    ExpressionEvaluationError,
    ExpressionSyntaxError,
    Position,
    unexpected_compile_error,
)
from slotgraph.expr.limits import MAX_ROUND_DIGITS, node_position
from slotgraph.expr.parsing import parse_expression
from slotgraph.expr.reads import lambda_reads

# name -> (function, minimum arguments, maximum arguments or None for unbounded)
BUILTINS: Final[Mapping[str, tuple[Callable[..., Any], int, int | None]]] = MappingProxyType(
    {
        "int": (int, 1, 1),
        "float": (float, 1, 1),
        "str": (str, 1, 1),
        "bool": (bool, 1, 1),
        "len": (len, 1, 1),
        "min": (min, 1, None),
        "max": (max, 1, None),
        "abs": (abs, 1, 1),
        "round": (round, 1, 2),
    }
)

# [[fill]align][sign][z][#][0][width][grouping][.precision][type], width/precision at most 3 digits.
_FORMAT_SPEC: Final = re.compile(
    r"(?:.?[<>=^])?[+\- ]?z?#?0?(?:\d{1,3})?[,_]?(?:\.\d{1,3})?[bcdeEfFgGnosxX%]?"
)
_CONVERSIONS: Final[Mapping[int, Callable[[Any], Any]]] = MappingProxyType(
    {-1: lambda v: v, 115: str, 114: repr, 97: ascii}
)


class LambdaCompiler(Compiler):
    """The default grammar with the lambda dialect's extras; the environment is the lambda argument."""

    handlers: ClassVar[Mapping[type[ast.AST], str]] = MappingProxyType(
        {
            **Compiler.handlers,
            ast.Call: "compile_call",
            ast.Subscript: "compile_subscript",
            ast.JoinedStr: "compile_joined_str",
        }
    )

    def __init__(self, source: str, parameter: str) -> None:
        super().__init__(source)
        self.parameter = parameter

    def compile_name(self, node: ast.Name) -> Evaluator:
        if node.id != self.parameter:
            hint = " (builtins can only be called)" if node.id in BUILTINS else ""
            self.refuse(
                node, UNKNOWN_NAME, f"unknown name {node.id!r}; only {self.parameter!r} is defined{hint}"
            )
        return lambda env: env

    # -- calls: .get(...) and the builtins ---------------------------------------------------------

    def compile_call(self, node: ast.Call) -> Evaluator:
        if node.keywords or any(isinstance(arg, ast.Starred) for arg in node.args):
            self.refuse(node, BAD_ARGUMENTS, "only positional arguments are allowed")
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr != "get":
                self.refuse(node, UNKNOWN_FUNCTION, f"method {func.attr!r} is not allowed; only .get(...)")
            if not 1 <= len(node.args) <= 2:
                self.refuse(node, BAD_ARGUMENTS, ".get() takes a key and an optional default")
            return self._get(node, self.compile(func.value), [self.compile(arg) for arg in node.args])
        if not isinstance(func, ast.Name):
            self.refuse(node, UNSUPPORTED_NODE, "only builtins and .get(...) can be called")
        if func.id not in BUILTINS:
            allowed = ", ".join(BUILTINS)
            self.refuse(node, UNKNOWN_FUNCTION, f"function {func.id!r} is not allowed; allowed: {allowed}")
        name = func.id
        function, least, most = BUILTINS[name]
        if len(node.args) < least or (most is not None and len(node.args) > most):
            expected = f"{least}" if least == most else f"{least} to {most}" if most else f"at least {least}"
            self.refuse(node, BAD_ARGUMENTS, f"{name}() takes {expected} argument(s), got {len(node.args)}")
        arguments = [self.compile(arg) for arg in node.args]
        position = self.position(node)

        def call(env: Any) -> Any:
            values = [argument(env) for argument in arguments]
            if name == "round" and len(values) == 2:
                _check_round_digits(values[1], position)
            return _call_builtin(name, function, values, position)

        return call

    def _get(self, node: ast.Call, receiver: Evaluator, arguments: list[Evaluator]) -> Evaluator:
        """``<receiver>.get(key[, default])``: the receiver must be a mapping at run time."""
        key_of = arguments[0]
        default_of = arguments[1] if len(arguments) == 2 else None
        position = self.position(node)

        def get(env: Any) -> Any:
            mapping = receiver(env)
            if not isinstance(mapping, Mapping):
                raise ExpressionEvaluationError(
                    NOT_MAPPING, f".get() needs a mapping, not {ops.type_name(mapping)!r}", position=position
                )
            key = key_of(env)
            default = None if default_of is None else default_of(env)
            try:
                return mapping.get(key, default)
            except TypeError:
                raise ExpressionEvaluationError(
                    TYPE_ERROR, f"unusable key of type {ops.type_name(key)!r}", position=position
                ) from None

        return get

    # -- subscripts with a constant key ------------------------------------------------------------

    def compile_subscript(self, node: ast.Subscript) -> Evaluator:
        key_node = node.slice
        if isinstance(key_node, ast.UnaryOp) and isinstance(key_node.op, ast.USub):
            key_node = key_node.operand
            sign = -1
        else:
            sign = 1
        if not isinstance(key_node, ast.Constant) or not isinstance(key_node.value, str | int):
            self.refuse(node, UNSUPPORTED_NODE, "subscripts need a constant string or integer key")
        key = self.constant_value(key_node)
        if isinstance(key, bool) or (sign < 0 and not isinstance(key, int)):
            self.refuse(node, UNSUPPORTED_NODE, "subscripts need a constant string or integer key")
        key = -key if sign < 0 else key
        base = self.compile(node.value)
        position = self.position(node)

        def item(env: Any) -> Any:
            value = base(env)
            if isinstance(value, Mapping):
                try:
                    return value[key]
                except KeyError:
                    raise ExpressionEvaluationError(
                        MISSING_KEY, f"key {key!r} is missing", position=position
                    ) from None
            if isinstance(value, list | tuple | str) and isinstance(key, int):
                try:
                    return value[key]
                except IndexError:
                    raise ExpressionEvaluationError(
                        INDEX_ERROR, f"index {key} is out of range", position=position
                    ) from None
            raise ExpressionEvaluationError(
                TYPE_ERROR, f"{ops.type_name(value)!r} cannot be subscripted with {key!r}", position=position
            )

        return item

    # -- f-strings -----------------------------------------------------------------------------------

    def compile_joined_str(self, node: ast.JoinedStr) -> Evaluator:
        parts: list[Evaluator] = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(_constant_text(value.value))
            elif isinstance(value, ast.FormattedValue):
                parts.append(self._formatted(value))
            else:
                self.refuse_node(value)
        position = self.position(node)

        def join(env: Any) -> str:
            pieces = [part(env) for part in parts]
            ops.check_size(sum(len(piece) for piece in pieces), position)
            return "".join(pieces)

        return join

    def _formatted(self, node: ast.FormattedValue) -> Evaluator:
        spec = ""
        if node.format_spec is not None:
            spec_node = node.format_spec
            if not (
                isinstance(spec_node, ast.JoinedStr)
                and all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in spec_node.values)
            ):
                self.refuse(node, BAD_FORMAT, "format specs must be constant (no nested '{...}')")
            spec = "".join(str(v.value) for v in spec_node.values if isinstance(v, ast.Constant))
            if _FORMAT_SPEC.fullmatch(spec) is None:
                self.refuse(node, BAD_FORMAT, f"format spec {spec!r} is not a simple standard format spec")
        convert = _CONVERSIONS.get(node.conversion)
        if convert is None:
            self.refuse(node, BAD_FORMAT, "unknown conversion")
        inner = self.compile(node.value)
        position = self.position(node)

        def formatted(env: Any) -> str:
            value = convert(inner(env))
            try:
                return format(value, spec)
            except (ValueError, TypeError) as exc:
                raise ExpressionEvaluationError(
                    VALUE_ERROR,
                    f"cannot format {ops.type_name(value)!r} with {spec!r}: {exc}",
                    position=position,
                ) from None

        return formatted


@dataclass(frozen=True, slots=True)
class CompiledLambda:
    """A compiled legacy lambda: call it with its one argument. Failures raise ExpressionEvaluationError.

    Equality and hashing go by ``(source, parameter)``."""

    source: str
    parameter: str
    raw: Evaluator = field(repr=False, compare=False)
    """The bare compiled body, for callers that treat *any* exception as a failure: unlike calling the
    lambda, it may raise exceptions other than ExpressionEvaluationError."""
    reads: frozenset[str] | None = field(default=None, repr=False, compare=False)
    """The keys of the argument the body reads (``None``: any), see :mod:`slotgraph.expr.reads`."""

    def __call__(self, argument: Any) -> Any:
        return run(self.raw, argument, self.source)


def compile_lambda(source: str) -> CompiledLambda:
    """Compile a one-parameter lambda string of the legacy dialect (see the module docstring); a
    ``source`` that is not a string (from an untyped config) raises ExpressionSyntaxError."""
    try:
        return _compile_lambda(source)
    except ExpressionError:
        raise
    except Exception as exc:  # a compiler defect must still surface as a library error
        raise unexpected_compile_error(source, exc) from exc


def _compile_lambda(source: str) -> CompiledLambda:
    text, tree = parse_expression(source)
    if not isinstance(tree, ast.Lambda):
        raise ExpressionSyntaxError(
            NOT_LAMBDA,
            "expected a one-parameter lambda, e.g. 'lambda v: ...'",
            position=node_position(tree, text),
            source=text,
        )
    args = tree.args
    if (
        args.posonlyargs
        or args.vararg
        or args.kwonlyargs
        or args.kwarg
        or args.defaults
        or len(args.args) != 1
    ):
        raise ExpressionSyntaxError(
            NOT_LAMBDA,
            "the lambda must take exactly one plain parameter",
            position=node_position(tree, text),
            source=text,
        )
    compiler = LambdaCompiler(text, parameter="")
    parameter = compiler.check_name(args.args[0], args.args[0].arg)
    compiler.parameter = parameter
    body = compiler.compile(tree.body)
    return CompiledLambda(text, parameter, body, lambda_reads(tree.body, parameter))


def _constant_text(text: str) -> Evaluator:
    return lambda env: text


def _check_round_digits(digits: Any, position: Position | None) -> None:
    if isinstance(digits, int) and abs(digits) > MAX_ROUND_DIGITS:
        raise ExpressionEvaluationError(
            VALUE_TOO_LARGE, f"round() ndigits beyond ±{MAX_ROUND_DIGITS}", position=position
        )


def _call_builtin(
    name: str, function: Callable[..., Any], values: list[Any], position: Position | None
) -> Any:
    try:
        return function(*values)
    except OverflowError as exc:
        raise ExpressionEvaluationError(OVERFLOW, f"{name}(): {exc}", position=position) from None
    except ValueError as exc:
        raise ExpressionEvaluationError(VALUE_ERROR, f"{name}(): {exc}", position=position) from None
    except TypeError as exc:
        raise ExpressionEvaluationError(TYPE_ERROR, f"{name}(): {exc}", position=position) from None
