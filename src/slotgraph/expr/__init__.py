"""The safe expression language: every condition in Slotgraph is parsed once into an allow-listed tree.

Nothing here calls ``eval``, ``exec`` or ``compile()``: source text goes through ``ast.parse`` and is
translated into nested closures that can only read variables and combine plain values.

* :func:`compile_expression` — the default dialect, or ``dialect="dot_paths"`` (trigger conditions).
* :func:`compile_lambda` — the legacy ``lambda filled: ...`` dialect of configs from the original platform.
* :func:`evaluate_code_rule` — truthiness with a fail-open / fail-closed policy; never raises.
* :func:`extract_output_path` — the minimal ``$.order.items[0].sku`` projection for result capture.

Errors (each carries a stable ``code``, a ``position``, the ``source``, and a caret excerpt in ``str()``)::

    Exception
     └── ExpressionError                  code, message, position, source
          ├── ExpressionSyntaxError        compile time: syntax, unsupported_node, unsupported_operator,
          │                                forbidden_name, unknown_name, unknown_function, bad_arguments,
          │                                bad_format, not_lambda, bad_path, unknown_dialect, invalid_source,
          │                                too_long, too_deep, too_many_nodes, value_too_large
          └── ExpressionEvaluationError    run time: type_error, not_container, not_mapping, missing_key,
                                           index_error, value_error, overflow, value_too_large,
                                           evaluation_failed

No other exception type escapes a public function of this package.
"""

from slotgraph.expr.errors import (
    COMPILE_CODES,
    ERROR_CODES,
    EVALUATION_CODES,
    ExpressionError,
    ExpressionEvaluationError,
    ExpressionSyntaxError,
    Position,
)
from slotgraph.expr.expression import DIALECTS, Expression, compile_expression
from slotgraph.expr.lambdas import BUILTINS, CompiledLambda, compile_lambda
from slotgraph.expr.limits import (
    MAX_DEPTH,
    MAX_INT_BITS,
    MAX_NODES,
    MAX_ROUND_DIGITS,
    MAX_SOURCE_LENGTH,
    MAX_VALUE_SIZE,
)
from slotgraph.expr.paths import extract_output_path, parse_output_path
from slotgraph.expr.policy import evaluate_code_rule

__all__ = [
    "BUILTINS",
    "COMPILE_CODES",
    "DIALECTS",
    "ERROR_CODES",
    "EVALUATION_CODES",
    "MAX_DEPTH",
    "MAX_INT_BITS",
    "MAX_NODES",
    "MAX_ROUND_DIGITS",
    "MAX_SOURCE_LENGTH",
    "MAX_VALUE_SIZE",
    "CompiledLambda",
    "Expression",
    "ExpressionError",
    "ExpressionEvaluationError",
    "ExpressionSyntaxError",
    "Position",
    "compile_expression",
    "compile_lambda",
    "evaluate_code_rule",
    "extract_output_path",
    "parse_output_path",
]
