"""Benchmark slotgraph.expr: compiled evaluation vs. re-parsing each time vs. CPython's own bytecode.

    .venv/bin/python benchmarks/expr_bench.py [--number 200000]

Every form configs use is measured: the default dialect's conditions, and the original platform's lambda
strings (slot/task ``condition`` and ``readback_fmt`` as the spec and the shipped examples write them). For
each it times (per evaluation; compiled and baseline best of 9 repeats taken alternately):

* compiled  — compiled once, then evaluated: ``Expression.evaluate(variables)`` for an expression, the
  :class:`~slotgraph.expr.CompiledLambda` called with its argument for a lambda;
* reparse   — compiled again on every evaluation;
* baseline  — the same text compiled by CPython's builtin ``compile()``: ``eval`` of the expression's code
  with the variables as locals, and for a lambda a call of the native Python function the text defines
  (what the original platform runs). This file is the ONE place the project uses compile/eval, on the
  constant strings below, never on config, model or user text.

Goal: compiled within 2x of the baseline for every form.
"""

from __future__ import annotations

import argparse
import time
import timeit
from collections.abc import Callable
from typing import Any

from slotgraph._native import status
from slotgraph.expr import compile_expression, compile_lambda

GOAL = 2.0
CASES: list[tuple[str, dict[str, Any]]] = [
    ('party_size >= 5 and status == "in_progress"', {"party_size": 6, "status": "in_progress"}),
    ('tier in ["gold", "platinum"]', {"tier": "platinum"}),
    ("0 < score <= 100", {"score": 42}),
    ("missing_var == 'x'", {}),
    ("not verified or attempts > 3", {"verified": True, "attempts": 1}),
    ("name + ' ' + surname == 'Ada Lovelace'", {"name": "Ada", "surname": "Lovelace"}),
    ("a and b and c and d", {"a": 1, "b": 2, "c": 3, "d": 4}),
]
LAMBDA_CASES: list[tuple[str, Any]] = [
    # The spec's and the examples' slot condition (§4.4).
    ("lambda filled: int(filled.get('party_size', 0)) >= 5", {"party_size": 6, "welcome": True}),
    ("lambda filled: int(filled.get('num_guests', 0)) >= 5", {}),
    # The platform sample's forms: membership and equality on a read value.
    (
        "lambda filled: filled.get('visit_reason') in ('toothache', 'broken_tooth')",
        {"visit_reason": "checkup"},
    ),
    ("lambda f: f.get('active_flow') == 'billing'", {"active_flow": "billing"}),
    ("lambda filled: filled['party_size'] > 4", {"party_size": 6}),
    ("lambda filled: len(filled) > 2", {"a": 1, "b": 2, "c": 3}),
    # A readback formatter (``readback_fmt``).
    ("lambda v: f'custom {v}'", "x"),
]


REPEATS = 9
CLOCK = time.process_time
"""CPU time of this process: time spent waiting for a core on a shared machine is not counted."""


def best(statement: Callable[[], object], number: int) -> float:
    """Seconds per call, best of :data:`REPEATS` repeats."""
    return min(timeit.Timer(statement, timer=CLOCK).repeat(number=number, repeat=REPEATS)) / number


def paired(
    compiled: Callable[[], object], baseline: Callable[[], object], number: int
) -> tuple[float, float]:
    """Seconds per call of each, best of :data:`REPEATS` repeats taken alternately, so that both see the same
    load on a shared machine (the ratio is what counts)."""
    ours, theirs = [], []
    for _ in range(REPEATS):
        ours.append(timeit.Timer(compiled, timer=CLOCK).timeit(number))
        theirs.append(timeit.Timer(baseline, timer=CLOCK).timeit(number))
    return min(ours) / number, min(theirs) / number


def measure(source: str, variables: dict[str, Any], number: int) -> tuple[float, float, float]:
    """Seconds per evaluation of an expression: (compiled, baseline, reparse)."""
    expression = compile_expression(source)
    # The baseline: CPython's own bytecode for the same constant benchmark string (see the docstring).
    code = compile(source, "<bench>", "eval")
    names: dict[str, Any] = {"__builtins__": {}}
    # The baseline must see the same unknown-is-None semantics, so every name is present.
    python_vars = {name: variables.get(name) for name in code.co_names} | variables
    assert expression.evaluate(variables) == eval(code, names, python_vars)  # noqa: S307
    compiled, baseline = paired(
        lambda: expression.evaluate(variables),
        lambda: eval(code, names, python_vars),  # noqa: S307
        number,
    )
    reparse = best(lambda: compile_expression(source).evaluate(variables), max(number // 50, 100))
    return compiled, baseline, reparse


def measure_lambda(source: str, argument: Any, number: int) -> tuple[float, float, float]:
    """Seconds per call of a legacy lambda: (compiled, native Python lambda, reparse)."""
    compiled_fn = compile_lambda(source)
    native = eval(source, {"__builtins__": __builtins__})  # noqa: S307 - the constant strings above
    assert compiled_fn(argument) == native(argument)
    compiled, baseline = paired(lambda: compiled_fn(argument), lambda: native(argument), number)
    reparse = best(lambda: compile_lambda(source)(argument), max(number // 50, 100))
    return compiled, baseline, reparse


def main() -> None:
    parser = argparse.ArgumentParser(description="slotgraph.expr evaluation benchmark")
    parser.add_argument("--number", type=int, default=200_000, help="evaluations per repeat")
    args = parser.parse_args()
    columns = ("compiled", "baseline", "reparse", "comp/base", "repa/comp")
    header = f"{'expression':58}" + "".join(f" {column:>10}" for column in columns)
    print(f"core: {status().reason}")
    print(header)
    print("-" * len(header))
    worst = 0.0
    rows = [(source, variables, measure) for source, variables in CASES]
    rows += [(source, argument, measure_lambda) for source, argument in LAMBDA_CASES]
    for source, variables, measure_one in rows:
        compiled, baseline, reparse = measure_one(source, variables, args.number)
        ratio = compiled / baseline
        worst = max(worst, ratio)
        print(
            f"{source[:58]:58} {compiled * 1e9:8.0f}ns {baseline * 1e9:8.0f}ns {reparse * 1e9:8.0f}ns"
            f" {ratio:9.2f}x {reparse / compiled:9.0f}x"
        )
    print(f"\nworst compiled/baseline ratio: {worst:.2f}x (goal: within {GOAL:g}x)")
    print(f"GOAL\tconditions: worst form vs Python's compiled code\t{worst:.2f}\t<=\t{GOAL:g}\tx")


if __name__ == "__main__":
    main()
