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
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Final, Protocol

from slotgraph.expr import operations as ops
from slotgraph.expr.compiler import Compiler, Evaluator
from slotgraph.expr.errors import (
    BAD_ARGUMENTS,
    BAD_FORMAT,
    EVALUATION_FAILED,
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
from slotgraph.expr.limits import MAX_ROUND_DIGITS, MAX_VALUE_SIZE, node_position
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

    names_are_variables = False
    handlers: ClassVar[Mapping[type[ast.AST], str]] = MappingProxyType(
        {
            **Compiler.handlers,
            ast.Call: "compile_call",
            ast.Subscript: "compile_subscript",
            ast.JoinedStr: "compile_joined_str",
            ast.Compare: "compile_compare",
        }
    )

    def __init__(self, source: str, parameter: str) -> None:
        super().__init__(source)
        self.parameter = parameter
        self.guarded: list[Evaluator] = []
        """Fused closures that raise only ExpressionErrors carrying the source (usable as the entry)."""

    def compile_name(self, node: ast.Name) -> Evaluator:
        if node.id != self.parameter:
            hint = " (builtins can only be called)" if node.id in BUILTINS else ""
            self.refuse(
                node, UNKNOWN_NAME, f"unknown name {node.id!r}; only {self.parameter!r} is defined{hint}"
            )
        return lambda env: env

    # -- fused shapes: the forms configs write, one closure each (benchmarks/expr_bench.py) ---------------

    def _fast_read(self, node: ast.expr) -> _FastRead | None:
        """``param.get(<literal>[, <literal>])``, ``param[<literal>]``, optionally inside a one-argument
        builtin (``int(param.get('n', 0))``): read straight from a dict argument; anything else (another
        mapping, a missing key for ``[...]``) goes through the general closure, which raises as it should."""
        function = None
        inner = node
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in BUILTINS
            and len(node.args) == 1
            and not node.keywords
            and BUILTINS[node.func.id][1] <= 1
        ):
            function, inner = node.func.id, node.args[0]
        read = self._param_key(inner)
        if read is None:
            return None
        key, default, miss = read
        return _FastRead(
            key=key,
            default=default,
            miss=miss,
            slow=self.compile(inner),
            function=None if function is None else BUILTINS[function][0],
            name=function or "",
            position=node_position(node, self.source),
            source=self.source,
        )

    def _param_key(self, node: ast.expr) -> tuple[Any, Any, Any] | None:
        """(key, default, miss) of ``param.get(k[, d])`` (miss: never) or ``param['k']`` (miss: absent)."""
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == self.parameter
            and 1 <= len(node.args) <= 2
            and not node.keywords
            and all(isinstance(arg, ast.Constant) for arg in node.args)
        ):
            values = [self.constant_value(arg) for arg in node.args]  # type: ignore[arg-type]
            return values[0], values[1] if len(values) == 2 else None, _NEVER
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == self.parameter
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            return node.slice.value, _ABSENT, _ABSENT
        if isinstance(node, ast.Name) and node.id == self.parameter:
            return _WHOLE, _NEVER, _NEVER  # dict.get(_WHOLE) is always the default: taken from env instead
        return None

    def compile_compare(self, node: ast.Compare) -> Evaluator:
        if len(node.ops) == 1:
            read = self._fast_read(node.left)
            if read is not None:
                fused = _fused_compare(self, node, read)
                if fused is not None:
                    self.guarded.append(fused)
                    return fused
        return super().compile_compare(node)

    def compile_call(self, node: ast.Call) -> Evaluator:
        if node.keywords or any(isinstance(arg, ast.Starred) for arg in node.args):
            self.refuse(node, BAD_ARGUMENTS, "only positional arguments are allowed")
        func = node.func
        position = node_position(node, self.source)
        if isinstance(func, ast.Attribute):
            if func.attr != "get":
                self.refuse(node, UNKNOWN_FUNCTION, f"method {func.attr!r} is not allowed; only .get(...)")
            if not 1 <= len(node.args) <= 2:
                self.refuse(node, BAD_ARGUMENTS, ".get() takes a key and an optional default")
            fused = self._parameter_get(func.value, node.args, position)
            if fused is not None:
                return fused
            return self._mapping_get(
                self.compile(func.value), [self.compile(arg) for arg in node.args], position
            )
        if not isinstance(func, ast.Name):
            self.refuse(node, UNSUPPORTED_NODE, "only builtins and .get(...) can be called")
        if func.id not in BUILTINS:
            allowed = ", ".join(BUILTINS)
            self.refuse(node, UNKNOWN_FUNCTION, f"function {func.id!r} is not allowed; allowed: {allowed}")
        function, least, most = BUILTINS[func.id]
        if len(node.args) < least or (most is not None and len(node.args) > most):
            expected = f"{least}" if least == most else f"{least} to {most}" if most else f"at least {least}"
            self.refuse(
                node, BAD_ARGUMENTS, f"{func.id}() takes {expected} argument(s), got {len(node.args)}"
            )
        arguments = [self.compile(arg) for arg in node.args]
        name = func.id
        if len(arguments) == 1:
            read = self._fast_read(node)
            if read is not None:
                fused = _fused_read(read)
                self.guarded.append(fused)
                return fused
            return _call_one(name, function, arguments[0], position)

        def call(env: Any) -> Any:
            values = [argument(env) for argument in arguments]
            if name == "round" and len(values) == 2:
                _check_round_digits(values[1], position)
            return _call_builtin(name, function, values, position)

        return call

    def _parameter_get(
        self, receiver: ast.expr, arguments: list[ast.expr], position: Position | None
    ) -> Evaluator | None:
        """``param.get(<literal>[, <literal>])`` — the common form — fused into one closure."""
        if not (isinstance(receiver, ast.Name) and receiver.id == self.parameter):
            return None
        if not all(isinstance(arg, ast.Constant) for arg in arguments):
            return None
        key, *rest = (self.constant_value(arg) for arg in arguments)  # type: ignore[arg-type]
        default = rest[0] if rest else None

        def get(env: Any) -> Any:
            if type(env) is dict:
                return env.get(key, default)
            if not isinstance(env, Mapping):
                raise ExpressionEvaluationError(
                    NOT_MAPPING, f".get() needs a mapping, not {ops.type_name(env)!r}", position=position
                )
            try:
                return env.get(key, default)
            except TypeError:
                raise ExpressionEvaluationError(
                    TYPE_ERROR, f"unusable key of type {ops.type_name(key)!r}", position=position
                ) from None

        return get

    def _mapping_get(
        self, receiver: Evaluator, arguments: list[Evaluator], position: Position | None
    ) -> Evaluator:
        key_of = arguments[0]
        default_of = arguments[1] if len(arguments) == 2 else None

        def get(env: Any) -> Any:
            mapping = receiver(env)
            if type(mapping) is not dict and not isinstance(mapping, Mapping):
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
        position = node_position(node, self.source)

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

    def compile_joined_str(self, node: ast.JoinedStr) -> Evaluator:
        parts: list[Evaluator] = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(_constant_text(value.value))
            elif isinstance(value, ast.FormattedValue):
                parts.append(self._formatted(value))
            else:
                self.refuse_node(value)
        position = node_position(node, self.source)
        fused = self._fused_text(node, position)
        if fused is not None:
            self.guarded.append(fused)
            return fused

        def join(env: Any) -> str:
            pieces = [part(env) for part in parts]
            ops.check_size(sum(len(piece) for piece in pieces), position)
            return "".join(pieces)

        return join

    def _fused_text(self, node: ast.JoinedStr, position: Position | None) -> Evaluator | None:
        """``f'<text>{param<conversion><spec>}<text>'`` — the readback formatter form — as one closure.

        Only called after the general compilation accepted the f-string (conversion and spec checked)."""
        formatted = [value for value in node.values if isinstance(value, ast.FormattedValue)]
        if len(formatted) != 1 or not (
            isinstance(formatted[0].value, ast.Name) and formatted[0].value.id == self.parameter
        ):
            return None
        at = node.values.index(formatted[0])
        prefix = "".join(str(v.value) for v in node.values[:at] if isinstance(v, ast.Constant))
        suffix = "".join(str(v.value) for v in node.values[at + 1 :] if isinstance(v, ast.Constant))
        spec_node = formatted[0].format_spec
        spec = ""
        if isinstance(spec_node, ast.JoinedStr):  # constant parts only: checked by the general compilation
            spec = "".join(str(v.value) for v in spec_node.values if isinstance(v, ast.Constant))
        convert = None if formatted[0].conversion == -1 else _CONVERSIONS[formatted[0].conversion]
        source = self.source
        room = MAX_VALUE_SIZE - len(prefix) - len(suffix)

        def text(env: Any) -> str:
            try:
                value = env if convert is None else convert(env)
                if type(value) is str and not spec:
                    piece = value
                else:
                    try:
                        piece = format(value, spec)
                    except (ValueError, TypeError) as exc:
                        raise ExpressionEvaluationError(
                            VALUE_ERROR,
                            f"cannot format {ops.type_name(value)!r} with {spec!r}: {exc}",
                            position=position,
                        ) from None
                if len(piece) > room:
                    ops.check_size(len(prefix) + len(piece) + len(suffix), position)
                return prefix + piece + suffix if suffix else prefix + piece
            except Exception as exc:
                raise evaluation_failure(exc, source)  # noqa: B904 - the cause is set there

        return text

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
        position = node_position(node, self.source)

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


class CompiledLambda(Protocol):
    """A compiled legacy lambda: call it with the one argument. Failures raise ExpressionEvaluationError.

    :func:`compile_lambda` returns a plain function carrying these attributes (a function call is several
    times cheaper than an object's ``__call__``, and conditions run on every turn).
    """

    source: str
    parameter: str
    reads: frozenset[str] | None
    """The keys of the argument the body reads (``None``: any), see :mod:`slotgraph.expr.reads`."""
    raw: Evaluator
    """The bare compiled body: the fastest call, for callers that treat *any* exception as a failure.
    Unlike calling the lambda, it may raise exceptions other than ExpressionEvaluationError."""

    def __call__(self, argument: Any) -> Any: ...


def _entry(
    source: str, parameter: str, body: Evaluator, reads: frozenset[str] | None, guarded: bool
) -> CompiledLambda:
    """The callable :func:`compile_lambda` returns: the body with every failure as an evaluation error.

    A fused body already guards itself (``guarded``): it is the entry, saving a call.
    """
    if guarded:
        entry: Any = body  # compiled for this lambda alone, so it may carry the attributes itself
    else:

        def entry(argument: Any) -> Any:
            try:
                return body(argument)
            except Exception as exc:
                raise evaluation_failure(exc, source)  # noqa: B904 - the cause is set there

    entry.__qualname__ = entry.__name__ = f"CompiledLambda({source!r})"
    entry.source, entry.parameter, entry.reads, entry.raw = source, parameter, reads, body
    compiled: CompiledLambda = entry
    return compiled


def compile_lambda(source: object) -> CompiledLambda:
    """Compile a one-parameter lambda string of the legacy dialect (see the module docstring); a
    ``source`` that is not a string raises ExpressionSyntaxError (typed ``object`` for that reason)."""
    try:
        return _compile_lambda(source)
    except ExpressionError:
        raise
    except Exception as exc:  # a compiler defect must still surface as a library error
        raise unexpected_compile_error(source, exc) from exc


def _compile_lambda(source: object) -> CompiledLambda:
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
    guarded = any(body is fused for fused in compiler.guarded)
    return _entry(text, parameter, body, lambda_reads(tree.body, parameter), guarded)


def _constant_text(text: str) -> Evaluator:
    return lambda env: text


def _check_round_digits(digits: Any, position: Position | None) -> None:
    if isinstance(digits, int) and abs(digits) > MAX_ROUND_DIGITS:
        raise ExpressionEvaluationError(
            VALUE_TOO_LARGE, f"round() ndigits beyond ±{MAX_ROUND_DIGITS}", position=position
        )


_NEVER: Final = object()
"""A value ``dict.get`` never returns: ``.get`` reads have no miss."""
_ABSENT: Final = object()
"""The default of a ``[...]`` read: when returned, the key is missing (the general closure raises)."""
_WHOLE: Final = object()
"""The key of a read of the whole argument (``len(filled)``)."""


@dataclass(frozen=True, slots=True)
class _FastRead:
    """A fused read of the lambda's argument (see ``LambdaCompiler._fast_read``)."""

    key: Any
    default: Any
    miss: Any
    slow: Evaluator
    function: Callable[[Any], Any] | None
    name: str
    position: Position | None
    source: str


def _builtin_failure(name: str, exc: Exception, position: Position | None) -> ExpressionEvaluationError:
    code = (
        OVERFLOW
        if isinstance(exc, OverflowError)
        else VALUE_ERROR
        if isinstance(exc, ValueError)
        else TYPE_ERROR
    )
    return ExpressionEvaluationError(code, f"{name}(): {exc}", position=position)


def evaluation_failure(exc: Exception, source: str) -> ExpressionError:
    """What a lambda raises for ``exc`` escaping its body: an ExpressionError gets the source, anything else
    becomes an ``evaluation_failed`` ExpressionEvaluationError (chained, except for exhausted resources)."""
    if isinstance(exc, ExpressionError):
        exc.source = source
        return exc
    if isinstance(exc, RecursionError | MemoryError):
        error = ExpressionEvaluationError(
            EVALUATION_FAILED, f"evaluation exhausted resources ({type(exc).__name__})", source=source
        )
        error.__suppress_context__ = True
        return error
    error = ExpressionEvaluationError(
        EVALUATION_FAILED, f"evaluation failed ({type(exc).__name__})", source=source
    )
    error.__cause__ = exc
    return error


def _fused_read(read: _FastRead) -> Evaluator:
    key, default, miss, slow, function, name, position, source = (
        read.key, read.default, read.miss, read.slow, read.function, read.name, read.position, read.source
    )  # fmt: skip
    whole = key is _WHOLE

    def value_of(env: Any) -> Any:
        try:
            if whole:
                value = env
            elif type(env) is dict:
                value = env.get(key, default)
                if value is miss:
                    value = slow(env)
            else:
                value = slow(env)
            if function is not None:
                try:
                    value = function(value)
                except (OverflowError, ValueError, TypeError) as exc:
                    raise _builtin_failure(name, exc, position) from None
            return value
        except Exception as exc:
            raise evaluation_failure(exc, source)  # noqa: B904 - the cause is set there

    return value_of


def _fused_compare(compiler: LambdaCompiler, node: ast.Compare, read: _FastRead) -> Evaluator | None:
    """``<fast read> <op> <literal>`` (or ``in``/``not in`` a literal list/tuple) as one closure."""
    key, default, miss, slow, function, name, position, source = (
        read.key, read.default, read.miss, read.slow, read.function, read.name, read.position, read.source
    )  # fmt: skip
    whole = key is _WHOLE
    kind = type(node.ops[0])
    target = node.comparators[0]
    if kind in (ast.In, ast.NotIn):
        literal = compiler.literal_collection(target)
        if literal is None:
            return None
        members, hashed = literal
        negate = kind is ast.NotIn

        def member(env: Any) -> bool:
            try:
                if whole:
                    value = env
                elif type(env) is dict:
                    value = env.get(key, default)
                    if value is miss:
                        value = slow(env)
                else:
                    value = slow(env)
                if function is not None:
                    try:
                        value = function(value)
                    except (OverflowError, ValueError, TypeError) as exc:
                        raise _builtin_failure(name, exc, position) from None
                try:
                    found = value in hashed
                except TypeError:
                    found = value in members
                return found is not negate
            except Exception as exc:
                raise evaluation_failure(exc, source)  # noqa: B904 - the cause is set there

        return member
    if not isinstance(target, ast.Constant):
        return None
    constant = compiler.constant_value(target)
    if kind in (ast.Eq, ast.NotEq):
        equal = kind is ast.Eq

        def equality(env: Any) -> Any:
            try:
                if whole:
                    value = env
                elif type(env) is dict:
                    value = env.get(key, default)
                    if value is miss:
                        value = slow(env)
                else:
                    value = slow(env)
                if function is not None:
                    try:
                        value = function(value)
                    except (OverflowError, ValueError, TypeError) as exc:
                        raise _builtin_failure(name, exc, position) from None
                return value == constant if equal else value != constant
            except Exception as exc:
                raise evaluation_failure(exc, source)  # noqa: B904 - the cause is set there

        return equality
    upward, strict = kind in (ast.Gt, ast.GtE), kind in (ast.Gt, ast.Lt)

    def ordered(env: Any) -> Any:
        try:
            if whole:
                value = env
            elif type(env) is dict:
                value = env.get(key, default)
                if value is miss:
                    value = slow(env)
            else:
                value = slow(env)
            if function is not None:
                try:
                    value = function(value)
                except (OverflowError, ValueError, TypeError) as exc:
                    raise _builtin_failure(name, exc, position) from None
            try:  # the operator inline: a call of operator.gt & co. would cost more than the branches
                if upward:
                    return value > constant if strict else value >= constant
                return value < constant if strict else value <= constant
            except TypeError:
                return False
        except Exception as exc:
            raise evaluation_failure(exc, source)  # noqa: B904 - the cause is set there

    return ordered


def _call_one(
    name: str, function: Callable[..., Any], argument: Evaluator, position: Position | None
) -> Evaluator:
    """A one-argument builtin call (``int(x)``, ``len(x)``, ...) without building an argument list."""

    def call(env: Any) -> Any:
        value = argument(env)
        try:
            return function(value)
        except OverflowError as exc:
            raise ExpressionEvaluationError(OVERFLOW, f"{name}(): {exc}", position=position) from None
        except ValueError as exc:
            raise ExpressionEvaluationError(VALUE_ERROR, f"{name}(): {exc}", position=position) from None
        except TypeError as exc:
            raise ExpressionEvaluationError(TYPE_ERROR, f"{name}(): {exc}", position=position) from None

    return call


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
