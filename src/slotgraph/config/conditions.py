"""Slot and task ``condition`` strings compiled once into :class:`CompiledCondition`
(docs/engine.md#conditions-and-deactivation).

Two dialects, chosen by the text:

- a string starting with ``lambda`` is the original platform's form
  (``"lambda filled: int(filled.get('party_size', 0)) >= 5"``), compiled by
  :func:`slotgraph.expr.compile_lambda` and called with the ``filled`` dict;
- anything else is a Slotgraph extension: an expression in the default dialect of
  :func:`slotgraph.expr.compile_expression` (``"party_size >= 5 and occasion != 'none'"``), evaluated with
  the filled slots as its variables.

Nothing is ever passed to ``eval``. A condition that fails to *evaluate* makes its slot or task inactive
(see :class:`~slotgraph.config.compiled.CompiledCondition`); one that fails to *compile* is a config error.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Any

from slotgraph.config.compiled import CompiledCondition
from slotgraph.config.formatters import is_lambda_source
from slotgraph.expr import (
    ExpressionError,
    ExpressionEvaluationError,
    compile_expression,
    compile_lambda,
)

__all__ = ["compile_condition", "condition_problem", "likely_condition_fix"]


def _guarded(fn: Callable[[Mapping[str, Any]], Any], source: str) -> Callable[[Mapping[str, Any]], Any]:
    """Turn any stray exception into an ExpressionEvaluationError so the engine sees one error type."""

    def evaluate(filled: Mapping[str, Any]) -> Any:
        try:
            return fn(filled)
        except ExpressionError:
            raise
        except Exception as err:  # defensive: expr promises not to leak other errors
            raise ExpressionEvaluationError(
                "evaluation_failed", f"condition failed: {err}", source=source
            ) from err

    return evaluate


@functools.lru_cache(maxsize=1024)
def compile_condition(source: str) -> CompiledCondition:
    """Compile a condition string; raises :class:`slotgraph.expr.ExpressionSyntaxError` if it is invalid.

    Cached by the text (a compiled condition is immutable and shared freely): validation and compilation of a
    config, and configs that repeat a condition, compile it once. ``clear_compile_cache`` empties the cache.
    """
    if is_lambda_source(source):
        compiled = compile_lambda(source)
        return CompiledCondition(
            source=source, fn=_guarded(compiled, source), raw=compiled.raw, reads=compiled.reads
        )
    expression = compile_expression(source)
    return CompiledCondition(
        source=source, fn=_guarded(expression.evaluate, source), raw=expression.raw, reads=expression.names
    )


_LONE_EQUALS = re.compile(r"(?<![=!<>])=(?!=)")
_LONE_AND_OR = re.compile(r"&&|\|\||(?<![=!<>])!(?!=)")


def likely_condition_fix(source: str) -> str | None:
    """A corrected condition when a common slip makes ``source`` fail to compile, else None.

    ``party_size = 5`` → ``party_size == 5`` (assignment for comparison), ``a && b`` → ``a and b``,
    ``a || b`` → ``a or b``, ``!a`` → ``not a``. The candidate is returned only when it compiles.
    """
    candidates = []
    if _LONE_EQUALS.search(source):
        candidates.append(_LONE_EQUALS.sub("==", source))
    if _LONE_AND_OR.search(source):
        replaced = source.replace("&&", " and ").replace("||", " or ")
        replaced = re.sub(r"(?<![=!<>])!(?!=)", " not ", replaced)
        candidates.append(" ".join(replaced.split()))
    for candidate in candidates:
        try:
            compile_condition(candidate)
        except ExpressionError:
            continue
        return candidate
    return None


def condition_problem(source: Any) -> ExpressionError | str | None:
    """What is wrong with a condition: the compile error, a type complaint, or None when it compiles."""
    if not isinstance(source, str):
        return f"a condition must be a string, got {type(source).__name__}"
    if not source.strip():
        return "the condition is empty"
    try:
        compile_condition(source)
    except ExpressionError as err:
        return err
    return None
