"""Run-time semantics of the operators: Python's, with the project's deliberate edges.

* ordering (``<`` ``<=`` ``>`` ``>=``) across incompatible types is ``False`` — the only silent catch;
* ``+``/``-``/unary minus on incompatible types is an evaluation error (``type_error``);
* ``+`` of any two lists/tuples gives a list; strings and lists built by ``+`` are capped in size;
* ``in`` needs a container (str, list, tuple, set, frozenset, mapping); ``x in <str>`` needs a str ``x``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from slotgraph.expr.errors import (
    NOT_CONTAINER,
    OVERFLOW,
    TYPE_ERROR,
    VALUE_TOO_LARGE,
    ExpressionEvaluationError,
    Position,
)
from slotgraph.expr.limits import MAX_VALUE_SIZE


def type_name(value: object) -> str:
    return type(value).__name__


def is_number(value: object) -> bool:
    """int, float and bool (bool counts as int, as in Python)."""
    return isinstance(value, int | float)


def add(left: Any, right: Any, position: Position | None) -> Any:
    if is_number(left) and is_number(right):
        try:
            return left + right
        except OverflowError:
            raise ExpressionEvaluationError(OVERFLOW, "number too large in '+'", position=position) from None
    if isinstance(left, str) and isinstance(right, str):
        check_size(len(left) + len(right), position)
        return left + right
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        check_size(len(left) + len(right), position)
        return [*left, *right]
    raise ExpressionEvaluationError(
        TYPE_ERROR,
        f"unsupported operand types for '+': {type_name(left)!r} and {type_name(right)!r}",
        position=position,
    )


def subtract(left: Any, right: Any, position: Position | None) -> Any:
    if is_number(left) and is_number(right):
        try:
            return left - right
        except OverflowError:
            raise ExpressionEvaluationError(OVERFLOW, "number too large in '-'", position=position) from None
    raise ExpressionEvaluationError(
        TYPE_ERROR,
        f"unsupported operand types for '-': {type_name(left)!r} and {type_name(right)!r}",
        position=position,
    )


def negate(value: Any, position: Position | None) -> Any:
    if is_number(value):
        return -value
    raise ExpressionEvaluationError(
        TYPE_ERROR, f"bad operand type for unary '-': {type_name(value)!r}", position=position
    )


def contains(item: Any, container: Any, position: Position | None) -> bool:
    """Python's ``item in container``, restricted to plain containers."""
    if isinstance(container, str):
        if not isinstance(item, str):
            raise ExpressionEvaluationError(
                TYPE_ERROR,
                f"'in <string>' requires a string as left operand, not {type_name(item)!r}",
                position=position,
            )
        return item in container
    if isinstance(container, list | tuple | set | frozenset | Mapping):
        try:
            return item in container
        except TypeError:
            raise ExpressionEvaluationError(
                TYPE_ERROR,
                f"{type_name(item)!r} cannot be looked up in a {type_name(container)!r}",
                position=position,
            ) from None
    raise ExpressionEvaluationError(
        NOT_CONTAINER, f"'in' needs a container, not {type_name(container)!r}", position=position
    )


def check_size(size: int, position: Position | None) -> None:
    if size > MAX_VALUE_SIZE:
        raise ExpressionEvaluationError(
            VALUE_TOO_LARGE,
            f"result would have {size} items; the limit is {MAX_VALUE_SIZE}",
            position=position,
        )
