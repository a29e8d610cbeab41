"""``compile_expression``: parse once into closures, then ``Expression.evaluate`` many times."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from slotgraph.expr.compiler import Compiler, Evaluator, run
from slotgraph.expr.errors import (
    UNKNOWN_DIALECT,
    ExpressionError,
    ExpressionSyntaxError,
    unexpected_compile_error,
)
from slotgraph.expr.parsing import parse_expression
from slotgraph.expr.reads import variable_reads

DIALECTS: Final = ("default", "dot_paths")
"""Dialects of :func:`compile_expression`; the legacy lambda dialect is :func:`compile_lambda`."""


@dataclass(frozen=True, slots=True)
class Expression:
    """A compiled, immutable expression. Equality and hashing go by ``(source, dialect)``."""

    source: str
    dialect: str
    _evaluator: Evaluator = field(repr=False, compare=False)
    names: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    """The variables the expression reads (see :mod:`slotgraph.expr.reads`)."""

    @property
    def raw(self) -> Evaluator:
        """The bare compiled evaluator, for callers that treat *any* exception as a failure: unlike
        :meth:`evaluate`, it may raise exceptions other than ExpressionEvaluationError."""
        return self._evaluator

    def evaluate(self, variables: Mapping[str, Any]) -> Any:
        """The expression's value; unknown names are ``None``. Raises only ExpressionEvaluationError."""
        return run(self._evaluator, variables, self.source)


def compile_expression(source: str, *, dialect: str = "default") -> Expression:
    """Compile ``source`` in ``dialect`` (``"default"`` or ``"dot_paths"``); raises ExpressionSyntaxError
    (also for a ``source`` that is not a string, as an untyped config may hold)."""
    if dialect not in DIALECTS:
        raise ExpressionSyntaxError(
            UNKNOWN_DIALECT, f"unknown dialect {dialect!r}; expected one of {', '.join(DIALECTS)}"
        )
    try:
        text, tree = parse_expression(source)
        evaluator = Compiler(text, dot_paths=dialect == "dot_paths").compile(tree)
    except ExpressionError:
        raise
    except Exception as exc:  # a compiler defect must still surface as a library error
        raise unexpected_compile_error(source, exc) from exc
    return Expression(text, dialect, evaluator, variable_reads(tree))
