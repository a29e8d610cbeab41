"""Random expression generator for the property tests and benchmarks/expr_fuzz.py (stdlib only).

Builds random Python ASTs from a grammar that deliberately includes forbidden nodes (calls, attribute
access with dunders, subscripts, lambdas, comprehensions, f-strings, walrus, every operator) and
dangerous names, then unparses them with ``ast.unparse``. Also builds random plain-data variables and
checks that a value is plain data.
"""

from __future__ import annotations

import ast
import random
from typing import Any

NAMES = [
    "x", "y", "score", "payload", "filled", "v", "tier", "_x", "_",
    "open", "eval", "exec", "os", "sys", "builtins", "print", "getattr", "type", "object",
    "__import__", "__builtins__", "__class__", "__dict__", "__globals__", "__subclasses__",
]  # fmt: skip
ATTRIBUTES = ["a", "b", "priority", "get", "items", "keys", "upper", "real", "_private",
              "__class__", "__dict__", "__globals__", "__init__", "__subclasses__", "__mro__"]  # fmt: skip
FUNCTIONS = ["int", "float", "str", "bool", "len", "min", "max", "abs", "round",
             "open", "eval", "exec", "getattr", "type", "__import__", "print", "vars", "globals"]  # fmt: skip
CONSTANTS: list[Any] = [0, 1, -1, 2, 5, 100, 2.5, -0.0, 1e308, "", "a", "abc", "gold", "(", "{v}", True,
                        False, None, 10**30, 2**300, b"x", 1j, ...]  # fmt: skip
BIN_OPS = [ast.Add, ast.Add, ast.Add, ast.Sub, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
           ast.LShift, ast.RShift, ast.BitOr, ast.BitAnd, ast.BitXor, ast.MatMult]  # fmt: skip
CMP_OPS = [ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.In, ast.Is, ast.IsNot]
UNARY_OPS = [ast.Not, ast.Not, ast.USub, ast.USub, ast.UAdd, ast.Invert]
PLAIN_TYPES = (type(None), bool, int, float, str, list, tuple, dict)


def random_expr(rng: random.Random, depth: int = 5) -> ast.expr:
    if depth <= 0 or rng.random() < 0.25:
        return _leaf(rng)
    d = depth - 1
    kind = rng.randrange(24)
    if kind < 3:
        return ast.BoolOp(
            op=rng.choice([ast.And(), ast.Or()]),
            values=[random_expr(rng, d) for _ in range(rng.randint(2, 3))],
        )
    if kind < 5:
        return ast.UnaryOp(op=rng.choice(UNARY_OPS)(), operand=random_expr(rng, d))
    if kind < 8:
        return ast.BinOp(left=random_expr(rng, d), op=rng.choice(BIN_OPS)(), right=random_expr(rng, d))
    if kind < 11:
        n = rng.randint(1, 3)
        return ast.Compare(
            left=random_expr(rng, d),
            ops=[rng.choice(CMP_OPS)() for _ in range(n)],
            comparators=[random_expr(rng, d) for _ in range(n)],
        )
    if kind < 13:
        items = [random_expr(rng, d) for _ in range(rng.randint(0, 3))]
        return (
            ast.List(elts=items, ctx=ast.Load())
            if rng.random() < 0.5
            else ast.Tuple(elts=items, ctx=ast.Load())
        )
    if kind < 15:
        return ast.Attribute(value=random_expr(rng, d), attr=rng.choice(ATTRIBUTES), ctx=ast.Load())
    if kind < 17:
        if rng.random() < 0.4:
            func: ast.expr = ast.Attribute(
                value=random_expr(rng, d),
                attr=rng.choice(["get", "get", "keys", "__class__"]),
                ctx=ast.Load(),
            )
        else:
            func = ast.Name(id=rng.choice(FUNCTIONS), ctx=ast.Load())
        args = [random_expr(rng, d) for _ in range(rng.randint(0, 3))]
        keywords = [ast.keyword(arg="key", value=_leaf(rng))] if rng.random() < 0.05 else []
        return ast.Call(func=func, args=args, keywords=keywords)
    if kind == 17:
        key = rng.choice(
            [_leaf(rng), random_expr(rng, d), ast.Slice(lower=_leaf(rng), upper=None, step=None)]
        )
        return ast.Subscript(value=random_expr(rng, d), slice=key, ctx=ast.Load())
    if kind == 18:
        spec = rng.choice([None, ".2f", ">5", ",", "99999", "x", "{v}"])
        spec_node = None if spec is None else ast.JoinedStr(values=[ast.Constant(value=spec)])
        formatted = ast.FormattedValue(
            value=random_expr(rng, d), conversion=rng.choice([-1, 115, 114]), format_spec=spec_node
        )
        return ast.JoinedStr(values=[ast.Constant(value="p "), formatted])
    if kind == 19:
        return ast.IfExp(test=random_expr(rng, d), body=random_expr(rng, d), orelse=random_expr(rng, d))
    if kind == 20:
        return (
            ast.Dict(keys=[_leaf(rng)], values=[random_expr(rng, d)])
            if rng.random() < 0.5
            else ast.Set(elts=[_leaf(rng)])
        )
    if kind == 21:
        args = ast.arguments(
            posonlyargs=[], args=[ast.arg(arg="q")], kwonlyargs=[], kw_defaults=[], defaults=[]
        )
        return ast.Lambda(args=args, body=random_expr(rng, d))
    if kind == 22:
        return ast.NamedExpr(target=ast.Name(id="w", ctx=ast.Store()), value=random_expr(rng, d))
    generator = ast.comprehension(
        target=ast.Name(id="i", ctx=ast.Store()), iter=random_expr(rng, d), ifs=[], is_async=0
    )
    return ast.ListComp(elt=ast.Name(id="i", ctx=ast.Load()), generators=[generator])


def _leaf(rng: random.Random) -> ast.expr:
    if rng.random() < 0.5:
        return ast.Name(id=rng.choice(NAMES), ctx=ast.Load())
    return ast.Constant(value=rng.choice(CONSTANTS))


def random_source(rng: random.Random, depth: int = 5) -> str:
    """An unparsed random expression (falls back to a name if unparse refuses the tree)."""
    tree = ast.fix_missing_locations(ast.Expression(body=random_expr(rng, depth)))
    try:
        return ast.unparse(tree)
    except Exception:
        return "x"


def mutate(rng: random.Random, source: str) -> str:
    """Random character-level damage: deletions, duplications and insertions of syntax characters."""
    chars = list(source)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(chars) + 1)
        choice = rng.random()
        if choice < 0.3 and chars:
            del chars[min(at, len(chars) - 1)]
        elif choice < 0.6:
            chars.insert(at, rng.choice("()[]{}'\".,:+-*/%<>=!~&|^ \n\\\x00éλ_"))
        else:
            chars[at:at] = list(
                rng.choice([" and ", " or ", "not ", " in ", "lambda v: ", ".__class__", "(", "[", "**"])
            )
    return "".join(chars)


def random_value(rng: random.Random, depth: int = 3) -> Any:
    if depth <= 0 or rng.random() < 0.5:
        return rng.choice([None, True, False, 0, 1, -7, 5, 2.5, "", "a", "gold", "abc", 10**20])
    if rng.random() < 0.5:
        return [random_value(rng, depth - 1) for _ in range(rng.randint(0, 3))]
    keys = ["a", "b", "priority", "get", "items", "__class__", "party_size"]
    return {rng.choice(keys): random_value(rng, depth - 1) for _ in range(rng.randint(0, 3))}


def random_variables(rng: random.Random) -> dict[str, Any]:
    """Plain-data variables for some ordinary names; dangerous names stay unset (so must read as None)."""
    return {
        name: random_value(rng)
        for name in ["x", "y", "score", "payload", "filled", "v", "tier", "_x"]
        if rng.random() < 0.7
    }


def is_plain(value: Any, depth: int = 0) -> bool:
    """Only None/bool/int/float/str and lists/tuples/dicts of them — never a function, type or module."""
    if depth > 60 or type(value) not in PLAIN_TYPES:
        return False
    if isinstance(value, list | tuple):
        return all(is_plain(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return all(is_plain(k, depth + 1) and is_plain(v, depth + 1) for k, v in value.items())
    return True
