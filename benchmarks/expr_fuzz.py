"""Fuzz slotgraph.expr: random ASTs (incl. forbidden nodes), damaged sources and random text, every dialect.

    .venv/bin/python benchmarks/expr_fuzz.py --cases 100000 [--seed 1]

Fails (exit 1) if any input makes a public function raise something other than an ExpressionError with
a known code, or evaluate to anything but plain data. Prints outcome counts by error code.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "expr"))

from expr_astgen import is_plain, mutate, random_source, random_value, random_variables

from slotgraph.expr import (
    COMPILE_CODES,
    EVALUATION_CODES,
    ExpressionEvaluationError,
    ExpressionSyntaxError,
    compile_expression,
    compile_lambda,
    evaluate_code_rule,
    extract_output_path,
)

TEXT_ALPHABET = "()[]{}'\".,:;+-*/%<>=!&|^~@ _abcxyz0123456789\n\t\\$\x00éλ"


def one_case(rng: random.Random, outcomes: Counter[str]) -> str | None:
    """Run one random input through every entry point; return a failure description or None."""
    kind = rng.random()
    if kind < 0.6:
        source = random_source(rng, rng.randint(1, 7))
    elif kind < 0.9:
        source = mutate(rng, random_source(rng, rng.randint(1, 5)))
    else:
        source = "".join(rng.choice(TEXT_ALPHABET) for _ in range(rng.randint(0, 40)))
    variables = random_variables(rng)
    candidates: list[tuple[str, str]] = [
        ("default", source),
        ("dot_paths", source),
        ("lambda", "lambda v: " + source),
    ]
    for dialect, text in candidates:
        try:
            if dialect == "lambda":
                function = compile_lambda(text)
                evaluate: Any = lambda function=function: function(random_value(rng))  # noqa: E731
            else:
                expression = compile_expression(text, dialect=dialect)
                evaluate = lambda expression=expression: expression.evaluate(variables)  # noqa: E731
        except ExpressionSyntaxError as err:
            if err.code not in COMPILE_CODES:
                return f"unknown compile code {err.code!r} for {text!r}"
            str(err)
            outcomes[f"{dialect}: compile error {err.code}"] += 1
            continue
        except BaseException as exc:
            return f"{type(exc).__name__} escaped compiling {text!r} ({dialect}): {exc}"
        try:
            result = evaluate()
        except ExpressionEvaluationError as err:
            if err.code not in EVALUATION_CODES:
                return f"unknown evaluation code {err.code!r} for {text!r}"
            str(err)
            outcomes[f"{dialect}: evaluation error {err.code}"] += 1
            continue
        except BaseException as exc:
            return f"{type(exc).__name__} escaped evaluating {text!r} ({dialect}): {exc}"
        if not is_plain(result):
            return f"non-plain result {result!r} from {text!r} ({dialect})"
        outcomes[f"{dialect}: value {type(result).__name__}"] += 1
    try:
        _allowed, error = evaluate_code_rule(source, variables, fail_open=rng.random() < 0.5, label="fuzz")
        if error is not None and "\n" in error:
            return f"multi-line explanation for {source!r}"
        extract_output_path(random_value(rng), "$" + source[:20])
    except ExpressionSyntaxError:
        pass
    except BaseException as exc:
        return f"{type(exc).__name__} escaped evaluate_code_rule/extract_output_path for {source!r}: {exc}"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    outcomes: Counter[str] = Counter()
    failures: list[str] = []
    started = time.perf_counter()
    for _ in range(args.cases):
        failure = one_case(rng, outcomes)
        if failure is not None:
            failures.append(failure)
            if len(failures) >= 20:
                break
    elapsed = time.perf_counter() - started
    runs = sum(outcomes.values())
    print(f"{args.cases} cases (seed {args.seed}) in {elapsed:.1f}s; {runs} compile/evaluate runs")
    for outcome, count in sorted(outcomes.items()):
        print(f"  {count:8d}  {outcome}")
    if failures:
        print(f"FAILED: {len(failures)} escapes")
        for failure in failures:
            print("  " + failure)
        return 1
    print("OK: no escapes, only library errors with known codes, only plain-data results")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
