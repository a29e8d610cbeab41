"""Which keys of its input an expression can read, found statically from the checked AST.

Callers that memoise a verdict (the engine evaluates each slot condition once per invocation) use this to
know when the verdict may have changed: only when one of the keys it reads did. The answer is ``None`` when
the expression may read anything (the lambda passes its whole argument on, e.g. ``len(filled)``).
"""

from __future__ import annotations

import ast

from slotgraph.expr.limits import all_nodes

__all__ = ["lambda_reads", "variable_reads"]


def variable_reads(tree: ast.expr) -> frozenset[str]:
    """The variables an expression of the default or ``dot_paths`` dialect reads: its bare names."""
    return frozenset(node.id for node in all_nodes(tree) if isinstance(node, ast.Name))


def lambda_reads(body: ast.expr, parameter: str) -> frozenset[str] | None:
    """The keys a legacy lambda reads from its argument, when every use of the parameter is
    ``param.get(<literal>...)`` or ``param[<literal>]``; else ``None`` (it may read any key)."""
    keys: set[str] = set()
    direct: set[int] = set()
    uses: list[ast.Name] = []  # every use of the parameter, found in the same walk
    for node in all_nodes(body):
        if type(node) is ast.Name:
            if node.id == parameter:
                uses.append(node)
            continue
        receiver: ast.expr | None = None
        key: ast.expr | None = None
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
        ):
            receiver, key = node.func.value, node.args[0]
        elif isinstance(node, ast.Subscript):
            receiver, key = node.value, node.slice
        if (
            isinstance(receiver, ast.Name)
            and receiver.id == parameter
            and isinstance(key, ast.Constant)
            and isinstance(key.value, str)
        ):
            keys.add(key.value)
            direct.add(id(receiver))
    if any(id(node) not in direct for node in uses):
        return None
    return frozenset(keys)
