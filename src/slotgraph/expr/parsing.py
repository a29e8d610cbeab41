"""Source text → a checked Python AST: type and length checks, nesting pre-scan, ``ast.parse``, shape caps.

``ast.parse`` is the only thing that reads the text; whatever it raises (``SyntaxError``, ``ValueError``
for null bytes, ``RecursionError``/``MemoryError`` on pathological nesting, ``OverflowError``) becomes an
:class:`ExpressionSyntaxError`.
"""

from __future__ import annotations

import ast
import warnings

from slotgraph.expr.errors import INVALID_SOURCE, SYNTAX, TOO_DEEP, ExpressionSyntaxError, Position
from slotgraph.expr.limits import check_source_length, check_tree_shape, prescan_nesting


def parse_expression(source: str) -> tuple[str, ast.expr]:
    """Parse one Python expression; return the stripped source and the expression node."""
    if not isinstance(source, str):
        raise ExpressionSyntaxError(INVALID_SOURCE, f"expression must be a str, not {type(source).__name__}")
    check_source_length(source)
    # Surrounding whitespace is dropped (Python would call a leading space an indent); positions and
    # the excerpt in errors refer to the stripped text, which is also what Expression.source keeps.
    source = source.strip()
    prescan_nesting(source)
    if not source:
        raise ExpressionSyntaxError(SYNTAX, "expression is empty", position=Position(1, 0), source=source)
    try:
        # The tokenizer warns about things like "\\d" in a string or "1if" (Syntax/DeprecationWarning). Those
        # warnings are silenced so the outcome does not depend on the process's warning filters (with
        # -W error they would turn into SyntaxErrors). catch_warnings swaps process-wide filters for the
        # duration of the parse; compiling happens at config load, not in hot concurrent paths.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        # Python's message may already be "invalid syntax" (or "invalid syntax. Perhaps you forgot a comma?")
        message = exc.msg if exc.msg.startswith("invalid syntax") else f"invalid syntax: {exc.msg}"
        raise ExpressionSyntaxError(
            SYNTAX, message, position=_syntax_position(exc, source), source=source
        ) from None
    except (RecursionError, MemoryError):
        raise ExpressionSyntaxError(
            TOO_DEEP, "expression is too deeply nested to parse", source=source
        ) from None
    except (ValueError, OverflowError, TypeError) as exc:
        raise ExpressionSyntaxError(SYNTAX, f"invalid source: {exc}", source=source) from None
    check_tree_shape(tree, source)
    return source, tree.body


def _syntax_position(exc: SyntaxError, source: str) -> Position | None:
    if exc.lineno is None:
        return None
    # SyntaxError offsets are 1-based character offsets.
    return Position(exc.lineno, max((exc.offset or 1) - 1, 0))
