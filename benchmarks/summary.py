"""Run every benchmark and print one table of every goal: ``make bench``.

Run: ``.venv/bin/python benchmarks/summary.py [--quick] [--only runtime.py,service.py]`` (from the
repository root).

Each script in ``benchmarks/`` runs in its own process (its output is shown as it runs). A benchmark states
its goals as lines ``GOAL<TAB>name<TAB>measured<TAB>operator<TAB>target<TAB>unit``; they are collected into
the closing table, each marked met or not. Every figure there is a ratio or a time measured within one run
(the machine may be shared: see each benchmark for how it measures its baseline alongside). ``--quick``
gives every benchmark a tiny workload (a smoke run: the figures are not meaningful). The exit code is 1 when
a benchmark fails to run, not when a goal is missed.
"""

from __future__ import annotations

import argparse
import operator
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
FULL: dict[str, list[str]] = {
    "startup.py": [],
    "runtime.py": [],
    "peers.py": [],
    "service.py": [],
    "offline_accuracy.py": [],
    "sgd_replay.py": [],
    "expr_fuzz.py": [],
    "parallel_tasks.py": [],
    "offline_growth.py": [],
    "lock_recovery.py": ["--ttl", "5"],
    "install_size.py": ["--check-readme"],  # builds the two virtualenvs of the Makefile (minutes)
}
QUICK: dict[str, list[str]] = {
    "startup.py": ["--runs", "1"],
    "runtime.py": ["--bookings", "2"],
    "peers.py": ["--bookings", "1"],
    "service.py": [
        *("--sessions", "2", "--turns", "1", "--concurrency", "1", "--idle", "10", "--rounds", "1"),
        *("--parts-rounds", "1", "--parts-sessions", "1"),
    ],
    "offline_accuracy.py": [],
    "sgd_replay.py": ["--limit", "4"],
    "expr_fuzz.py": ["--cases", "200"],
    "parallel_tasks.py": ["--turns", "2", "--latency-ms", "5"],
    "offline_growth.py": ["--quick", "--long", "2000"],
    "lock_recovery.py": ["--ttl", "0.5"],
    "install_size.py": ["--venv", f"test={sys.prefix}"],  # this virtualenv only: builds nothing
}
OPERATORS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    "<": operator.lt,
    ">=": operator.ge,
    ">": operator.gt,
}


@dataclass(frozen=True)
class Goal:
    benchmark: str
    name: str
    measured: float
    op: str
    target: float
    unit: str

    @property
    def met(self) -> bool:
        return OPERATORS[self.op](self.measured, self.target)


def parse_goal(benchmark: str, line: str) -> Goal | None:
    parts = line.rstrip("\n").split("\t")
    if len(parts) != 6 or parts[0] != "GOAL" or parts[3] not in OPERATORS:
        return None
    try:
        return Goal(benchmark, parts[1], float(parts[2]), parts[3], float(parts[4]), parts[5])
    except ValueError:
        return None


def run(script: str, args: list[str]) -> tuple[int, list[Goal]]:
    """Run one benchmark, echoing its output; its exit code and the goals it printed."""
    print(f"== benchmarks/{script} {' '.join(args)}".rstrip(), flush=True)
    process = subprocess.Popen(
        [sys.executable, str(HERE / script), *args],
        cwd=HERE.parent,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    goals = []
    for line in process.stdout:
        goal = parse_goal(script, line)
        if goal is not None:
            goals.append(goal)
        else:
            print(line, end="", flush=True)
    return process.wait(), goals


def table(goals: list[Goal]) -> str:
    rows = [("goal", "measured", "target", "")]
    for goal in goals:
        unit = f" {goal.unit}" if goal.unit else ""
        rows.append(
            (
                goal.name,
                f"{goal.measured:g}{unit}",
                f"{goal.op} {goal.target:g}{unit}",
                "met" if goal.met else "NOT MET",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def commit() -> str:
    """The commit the benchmarks measure (``git describe``-like: its short hash, and ``+ changes`` when the
    checkout has uncommitted changes), or why it is unknown."""
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=HERE.parent, capture_output=True, text=True, check=False
    )
    if head.returncode != 0:
        return f"unknown ({(head.stderr.strip() or 'not a git checkout')[-200:]})"
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=HERE.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    return head.stdout.strip() + (" + changes" if dirty.stdout.strip() else "")


def main() -> int:
    parser = argparse.ArgumentParser(description="every benchmark, then one summary of every goal")
    parser.add_argument("--quick", action="store_true", help="tiny workloads (a smoke run)")
    parser.add_argument("--only", default="", help="comma-separated scripts to run (default: all)")
    args = parser.parse_args()
    plan = QUICK if args.quick else FULL
    scripts = sorted(p.name for p in HERE.glob("*.py") if p.name != Path(__file__).name)
    ordered = [name for name in plan if name in scripts] + [name for name in scripts if name not in plan]
    chosen = [name for name in ordered if not args.only or name in args.only.split(",")]
    measured = commit()
    print(f"== commit: {measured}; {os.cpu_count()} cores", flush=True)
    goals: list[Goal] = []
    failed = []
    for script in chosen:
        code, found = run(script, plan.get(script, []))  # a script not listed runs with its defaults
        goals += found
        if code != 0:
            failed.append(script)
    met = sum(goal.met for goal in goals)
    print(
        f"\n== summary: {met} of {len(goals)} goals met (commit {measured})"
        + (" (quick run: not meaningful)" if args.quick else "")
    )
    print(table(goals))
    if failed:
        print(f"\nbenchmarks that failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
