"""``evaluate_code_rule``: the failure policy is the call site's choice, and it never raises.

Whatever the rule or a value it reads raises — a value whose truth value calls ``sys.exit`` included — is
the rule's failure. Only ``KeyboardInterrupt`` goes through: it is the person at the keyboard, not the rule.

Handoff routing rules and workflow triggers fail OPEN (a typo must not strand a caller or silently
disable a trigger); tool ``available_when`` gates fail CLOSED (an erroring gate must not expose a tool).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from slotgraph.expr.errors import ExpressionError, printable
from slotgraph.expr.expression import Expression, compile_expression


def evaluate_code_rule(
    expr: str | Expression,
    variables: Mapping[str, Any],
    *,
    fail_open: bool,
    label: str = "",
    dialect: str = "default",
) -> tuple[bool, str | None]:
    """``(truthiness of the result, None)``, or ``(fail_open, one-line explanation)`` if the rule fails.

    ``dialect`` applies when ``expr`` is a string; a compiled Expression keeps its own dialect. Anything
    else (from an untyped config) fails the rule with an explanation, as the policy promises.
    """
    try:
        compiled = expr if isinstance(expr, Expression) else compile_expression(expr, dialect=dialect)
        return bool(compiled.evaluate(variables)), None
    except ExpressionError as err:
        detail = err.one_line()
    except (Exception, SystemExit) as exc:  # e.g. a caller's value whose truthiness raises, or exits
        detail = f"rule result has no truth value ({type(exc).__name__})"
    return fail_open, _explain(expr, label, detail, fail_open)


def _explain(expr: str | Expression, label: str, detail: str, fail_open: bool) -> str:
    source = expr.source if isinstance(expr, Expression) else expr if isinstance(expr, str) else repr(expr)
    if len(source) > 120:
        source = source[:117] + "..."
    policy = "fail-open: allowed" if fail_open else "fail-closed: denied"
    name = f"rule {label!r}" if label else "rule"
    text = f"{name} {source!r} failed: {detail}; {policy}"
    return "".join(printable(ch) for ch in text)
