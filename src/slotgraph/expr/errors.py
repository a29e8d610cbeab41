"""The one exception family of :mod:`slotgraph.expr`, each error carrying a stable ``code``.

``str(err)`` renders the message, the code, the position and a caret excerpt of the source, so a
configuration author sees *where* a condition went wrong; :meth:`ExpressionError.one_line` gives the
same information on a single line for log records.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from slotgraph.errors import SlotgraphError

# Compile-time codes (ExpressionSyntaxError).
SYNTAX: Final = "syntax"
INVALID_SOURCE: Final = "invalid_source"
UNSUPPORTED_NODE: Final = "unsupported_node"
UNSUPPORTED_OPERATOR: Final = "unsupported_operator"
FORBIDDEN_NAME: Final = "forbidden_name"
UNKNOWN_NAME: Final = "unknown_name"
UNKNOWN_FUNCTION: Final = "unknown_function"
BAD_ARGUMENTS: Final = "bad_arguments"
BAD_FORMAT: Final = "bad_format"
NOT_LAMBDA: Final = "not_lambda"
BAD_PATH: Final = "bad_path"
UNKNOWN_DIALECT: Final = "unknown_dialect"
TOO_LONG: Final = "too_long"
TOO_DEEP: Final = "too_deep"
TOO_MANY_NODES: Final = "too_many_nodes"

# Codes raised at either phase (a literal can be too large at compile time, a `+` result at run time).
VALUE_TOO_LARGE: Final = "value_too_large"

# Evaluation-time codes (ExpressionEvaluationError).
TYPE_ERROR: Final = "type_error"
NOT_CONTAINER: Final = "not_container"
NOT_MAPPING: Final = "not_mapping"
MISSING_KEY: Final = "missing_key"
INDEX_ERROR: Final = "index_error"
VALUE_ERROR: Final = "value_error"
OVERFLOW: Final = "overflow"
EVALUATION_FAILED: Final = "evaluation_failed"

COMPILE_CODES: Final = frozenset(
    {
        SYNTAX,
        INVALID_SOURCE,
        UNSUPPORTED_NODE,
        UNSUPPORTED_OPERATOR,
        FORBIDDEN_NAME,
        UNKNOWN_NAME,
        UNKNOWN_FUNCTION,
        BAD_ARGUMENTS,
        BAD_FORMAT,
        NOT_LAMBDA,
        BAD_PATH,
        UNKNOWN_DIALECT,
        TOO_LONG,
        TOO_DEEP,
        TOO_MANY_NODES,
        VALUE_TOO_LARGE,
    }
)
EVALUATION_CODES: Final = frozenset(
    {
        TYPE_ERROR,
        NOT_CONTAINER,
        NOT_MAPPING,
        MISSING_KEY,
        INDEX_ERROR,
        VALUE_ERROR,
        OVERFLOW,
        VALUE_TOO_LARGE,
        EVALUATION_FAILED,
    }
)
ERROR_CODES: Final = COMPILE_CODES | EVALUATION_CODES

_EXCERPT_WIDTH: Final = 72
_LINE_BREAK: Final = re.compile(r"\r\n|\r|\n")


class Position(NamedTuple):
    """Where in the source an error points: 1-based ``line``, 0-based ``column`` in characters."""

    line: int
    column: int


class ExpressionError(SlotgraphError):
    """Base of every error raised by :mod:`slotgraph.expr`; ``code`` is stable and machine-readable (each
    instance carries the code of its problem, e.g. ``unknown_name``)."""

    code: str = "expression_error"
    message: str
    position: Position | None
    source: str | None

    def __init__(
        self, code: str, message: str, *, position: Position | None = None, source: str | None = None
    ) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message
        self.position = position
        self.source = source

    def __str__(self) -> str:
        head = f"{self.message} [{self.code}]"
        if self.position is not None:
            head += f" at line {self.position.line}, column {self.position.column + 1}"
        excerpt = self.excerpt()
        return f"{head}\n{excerpt}" if excerpt else head

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(code={self.code!r}, message={self.message!r}, position={self.position!r})"
        )

    def excerpt(self) -> str:
        """Two lines: the offending source line (windowed, control characters escaped) and a caret."""
        if self.source is None:
            return ""
        lines = source_lines(self.source)
        line_no, column = (1, 0) if self.position is None else self.position
        text = lines[min(max(line_no, 1), len(lines)) - 1]
        start = max(0, column - _EXCERPT_WIDTH // 2)
        window = text[start : start + _EXCERPT_WIDTH]
        shown = "".join(printable(ch) for ch in window[: column - start])
        rest = "".join(printable(ch) for ch in window[column - start :])
        prefix = "…" if start else ""
        suffix = "…" if start + _EXCERPT_WIDTH < len(text) else ""
        caret = " " * (len(prefix) + len(shown)) + "^" if self.position is not None else ""
        return f"    {prefix}{shown}{rest}{suffix}" + (f"\n    {caret}" if caret else "")

    def one_line(self) -> str:
        """The message, code and position on one line, safe to put in a log record."""
        where = "" if self.position is None else f" at {self.position.line}:{self.position.column + 1}"
        return "".join(printable(ch) for ch in f"{self.message} [{self.code}]{where}")


class ExpressionSyntaxError(ExpressionError):
    """The source was refused at compile time: unparsable, outside the grammar, or over a bound."""


class ExpressionEvaluationError(ExpressionError):
    """A compiled expression failed on particular values (e.g. ``"a" + 1``, ``x in 5``)."""


def unexpected_compile_error(source: object, exc: BaseException) -> ExpressionSyntaxError:
    """Wrap a non-library exception raised while compiling (``RecursionError``, ``MemoryError``, a defect)."""
    code = TOO_DEEP if isinstance(exc, RecursionError) else SYNTAX
    return ExpressionSyntaxError(
        code,
        f"cannot compile expression ({type(exc).__name__})",
        source=source if isinstance(source, str) else None,
    )


def source_lines(source: str) -> list[str]:
    """Split like the Python tokenizer does (``\\n``, ``\\r\\n``, ``\\r``), unlike ``str.splitlines``."""
    return _LINE_BREAK.split(source)


def printable(ch: str) -> str:
    return ch if ch.isprintable() else ascii(ch)[1:-1]
