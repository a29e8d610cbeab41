"""Which keys of its input an expression can read, found statically from the checked AST.

A caller that keeps a verdict can tell from this when it may have changed: only when one of the keys the
expression reads did. The answer is ``None`` when the expression may read anything (the lambda passes its
whole argument on, e.g. ``len(filled)``).
"""

from __future__ import annotations

import ast

__all__ = ["lambda_reads", "variable_reads"]


def variable_reads(tree: ast.expr) -> frozenset[str]:
    """The variables an expression of the default or ``dot_paths`` dialect reads: its bare names."""
    return frozenset(node.id for node in ast.walk(tree) if isinstance(node, ast.Name))


def lambda_reads(body: ast.expr, parameter: str) -> frozenset[str] | None:
    """The keys a legacy lambda reads from its argument, when every use of the parameter is
    ``param.get(<literal>...)`` or ``param[<literal>]``; else ``None`` (it may read any key)."""
    keys: set[str] = set()
    keyed_uses: set[int] = set()  # the ids of the parameter's Name nodes that read a literal key
    for node in ast.walk(body):
        receiver, key = _receiver_and_key(node)
        if (
            isinstance(receiver, ast.Name)
            and receiver.id == parameter
            and isinstance(key, ast.Constant)
            and isinstance(key.value, str)
        ):
            keys.add(key.value)
            keyed_uses.add(id(receiver))
    uses = [node for node in ast.walk(body) if isinstance(node, ast.Name) and node.id == parameter]
    if any(id(use) not in keyed_uses for use in uses):
        return None
    return frozenset(keys)


def _receiver_and_key(node: ast.AST) -> tuple[ast.expr | None, ast.expr | None]:
    """``(receiver, key)`` of ``receiver.get(key, ...)`` and ``receiver[key]``, else ``(None, None)``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return node.func.value, node.args[0] if node.args else None
    if isinstance(node, ast.Subscript):
        return node.value, node.slice
    return None, None
