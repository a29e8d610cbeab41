"""Static type checks of expressions against declared variable types: what validation can see before a run.

An expression that parses can still fail every time it is evaluated: ``verified + "x"`` when ``verified`` is
a declared boolean (``+`` of a boolean and a string is an evaluation error, and ``None`` — "not set" — fails
the same way). At run time such an expression fails *closed* or *open* by its call site's policy, silently
as far as the author can tell; :func:`type_problems` finds it at load.

Only certain failures are reported. A name's type is known when the variable is declared mutable with a
type other than ``any`` (writes of another type are refused, so it holds that type or ``None``), or it is a
name the runtime provides with a fixed type (``status``, ``current_phase``, ``current_topic``,
``session_id``, ``channel`` are strings, ``filled`` is an object). Linked and undeclared variables, dot
paths and ``result`` are unknown, and an unknown operand is never reported. An operation is reported when
*every* value its operands can hold makes it fail:

* ``+`` of two values that are not both numbers (booleans count), both strings or both lists;
* ``-`` and unary ``-`` of a value that is not a number;
* ``x in y`` when ``y`` is not a container (a number, a boolean, ``None``), or is a string and ``x`` is not.

Nothing is evaluated: the source (already compiled, so it parses) is read with :func:`ast.parse`.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Final

__all__ = ["TYPE_OF_DECLARED", "type_problems"]

TYPE_OF_DECLARED: Final[Mapping[str, str]] = {
    "string": "str",
    "integer": "int",
    "number": "number",
    "boolean": "bool",
    "list": "list",
    "object": "dict",
}
"""A declared variable type as the checker's type (``any`` is unknown)."""

_NUMBERS: Final = frozenset({"bool", "int", "float", "number"})
_WORDS: Final = {
    "bool": "a boolean",
    "int": "an integer",
    "float": "a number",
    "number": "a number",
    "str": "a string",
    "list": "a list",
    "dict": "an object",
    "none": "None",
}


def _constant(value: object) -> str | None:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    return None


class _Checker:
    def __init__(self, types: Mapping[str, str]) -> None:
        self.types = types
        self.problems: list[str] = []

    def describe(self, node: ast.expr, kind: str) -> str:
        word = _WORDS.get(kind, kind)
        return f"{word} ({node.id})" if isinstance(node, ast.Name) else word

    def visit(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Constant):
            return _constant(node.value)
        if isinstance(node, ast.Name):
            return self.types.get(node.id)
        if isinstance(node, ast.List | ast.Tuple):
            for item in node.elts:
                self.visit(item)
            return "list"
        if isinstance(node, ast.UnaryOp):
            operand = self.visit(node.operand)
            if isinstance(node.op, ast.Not):
                return "bool"
            if isinstance(node.op, ast.USub) and operand is not None and operand not in _NUMBERS:
                self.problems.append(f"unary '-' needs a number, not {self.describe(node.operand, operand)}")
                return None
            return "number" if operand in _NUMBERS else None
        if isinstance(node, ast.BinOp):
            return self.binary(node)
        if isinstance(node, ast.BoolOp):
            kinds = {self.visit(value) for value in node.values}
            return kinds.pop() if len(kinds) == 1 else None
        if isinstance(node, ast.Compare):
            self.compare(node)
            return "bool"
        if isinstance(node, ast.Attribute):
            self.visit(node.value)
            return None
        return None

    def binary(self, node: ast.BinOp) -> str | None:
        left, right = self.visit(node.left), self.visit(node.right)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Add):
            if left in _NUMBERS and right in _NUMBERS:
                return "number"
            if left == right and left in ("str", "list"):
                return left
            symbol = "+"
        elif isinstance(node.op, ast.Sub):
            if left in _NUMBERS and right in _NUMBERS:
                return "number"
            symbol = "-"
        else:
            return None
        both = f"{self.describe(node.left, left)} and {self.describe(node.right, right)}"
        self.problems.append(f"'{symbol}' cannot combine {both}")
        return None

    def compare(self, node: ast.Compare) -> None:
        operands = [node.left, *node.comparators]
        kinds = [self.visit(operand) for operand in operands]
        for index, op in enumerate(node.ops):
            if not isinstance(op, ast.In | ast.NotIn):
                continue
            item, container = kinds[index], kinds[index + 1]
            where = operands[index + 1]
            if container in ("bool", "int", "float", "number", "none"):
                self.problems.append(
                    f"'in' needs a container on its right, not {self.describe(where, container)}"
                )
            elif container == "str" and item is not None and item != "str":
                self.problems.append(
                    f"'in' a string needs a string on its left, not {self.describe(operands[index], item)}"
                )


def type_problems(source: str, types: Mapping[str, str]) -> list[str]:
    """The operations of ``source`` that fail for every value their operands can hold, given the known
    ``types`` of names (``"str"``, ``"int"``, ``"number"``, ``"bool"``, ``"list"``, ``"dict"``); one line
    each, e.g. ``"'+' cannot combine a boolean (verified) and a string"``. ``source`` must parse (compile
    it first)."""
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError:
        return []  # the compile check reports it
    checker = _Checker(types)
    checker.visit(tree.body)
    return checker.problems
