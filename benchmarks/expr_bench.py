"""Benchmark slotgraph.expr: compiled evaluation vs. re-parsing each time vs. CPython's own bytecode.

    .venv/bin/python benchmarks/expr_bench.py [--number 200000]

For each typical condition it times (best of 5, per evaluation):

* compiled  — ``compile_expression(...)`` once, then ``Expression.evaluate(variables)``;
* reparse   — ``compile_expression(...).evaluate(variables)`` every time;
* baseline  — the same text compiled by CPython's builtin ``compile()`` and run with ``eval``: the
  physical floor for a tree-walking evaluator. This file is the ONE place the project uses
  compile/eval, on the constant strings below, never on config, model or user text.

Goal: compiled within 3x of the baseline.
"""

from __future__ import annotations

import argparse
import timeit
from typing import Any

from slotgraph.expr import compile_expression

CASES: list[tuple[str, dict[str, Any]]] = [
    ('party_size >= 5 and status == "in_progress"', {"party_size": 6, "status": "in_progress"}),
    ('tier in ["gold", "platinum"]', {"tier": "platinum"}),
    ("0 < score <= 100", {"score": 42}),
    ("missing_var == 'x'", {}),
    ("not verified or attempts > 3", {"verified": True, "attempts": 1}),
    ("name + ' ' + surname == 'Ada Lovelace'", {"name": "Ada", "surname": "Lovelace"}),
    ("a and b and c and d", {"a": 1, "b": 2, "c": 3, "d": 4}),
]


def best(statement: Any, number: int) -> float:
    """Seconds per call, best of five repeats."""
    return min(timeit.repeat(statement, number=number, repeat=5)) / number


def measure(source: str, variables: dict[str, Any], number: int) -> tuple[float, float, float]:
    """Seconds per evaluation: (compiled, baseline, reparse)."""
    expression = compile_expression(source)
    # The baseline: CPython's own bytecode for the same constant benchmark string (see the docstring).
    code = compile(source, "<bench>", "eval")
    names: dict[str, Any] = {"__builtins__": {}}
    # The baseline must see the same unknown-is-None semantics, so every name is present.
    python_vars = {name: variables.get(name) for name in code.co_names} | variables
    assert expression.evaluate(variables) == eval(code, names, python_vars)  # noqa: S307
    compiled = best(lambda: expression.evaluate(variables), number)
    baseline = best(lambda: eval(code, names, python_vars), number)  # noqa: S307
    reparse = best(lambda: compile_expression(source).evaluate(variables), max(number // 50, 100))
    return compiled, baseline, reparse


def main() -> None:
    parser = argparse.ArgumentParser(description="slotgraph.expr evaluation benchmark")
    parser.add_argument("--number", type=int, default=200_000, help="evaluations per repeat")
    args = parser.parse_args()
    columns = ("compiled", "baseline", "reparse", "comp/base", "repa/comp")
    header = f"{'expression':46}" + "".join(f" {column:>10}" for column in columns)
    print(header)
    print("-" * len(header))
    worst = 0.0
    for source, variables in CASES:
        compiled, baseline, reparse = measure(source, variables, args.number)
        ratio = compiled / baseline
        worst = max(worst, ratio)
        print(
            f"{source[:46]:46} {compiled * 1e9:8.0f}ns {baseline * 1e9:8.0f}ns {reparse * 1e9:8.0f}ns"
            f" {ratio:9.2f}x {reparse / compiled:9.0f}x"
        )
    print(f"\nworst compiled/baseline ratio: {worst:.2f}x (goal: within 3x)")


if __name__ == "__main__":
    main()
