"""Benchmark start-up: the CPU ``slotgraph --help`` and a first ``slotgraph validate`` cost a fresh process.

Run: ``.venv/bin/python benchmarks/startup.py [--runs N]`` (from the repository root).

Each command runs N times as ``python -m slotgraph ...`` in a new interpreter; the figure is the median CPU
time (user + system) of the child process and of the processes it waited for, so waiting for a core on a
shared machine is not counted. Measured interleaved:

* ``python -c pass``: the interpreter's own start-up, for reference;
* ``slotgraph --help``: goal under :data:`HELP_GOAL_MS`;
* ``slotgraph validate examples/bella_notte``: a first validation — ``validate`` keeps nothing between runs
  (no cache), so every run is one; goal under :data:`VALIDATE_GOAL_MS`;
* ``slotgraph validate examples/bella_notte --check-tools``: the same plus the child process that imports
  ``tools.py`` and builds every tool (no goal: it is asked for).

Goals (issue 43): ``slotgraph --help`` under 150 ms, a first ``slotgraph validate`` of an example under 400 ms
of CPU.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BELLA = ROOT / "examples" / "bella_notte"
HELP_GOAL_MS = 150.0
VALIDATE_GOAL_MS = 400.0
HELP = "slotgraph --help"
VALIDATE = "slotgraph validate (first)"
COMMANDS: dict[str, list[str]] = {
    "python -c pass": ["-c", "pass"],
    HELP: ["-m", "slotgraph", "--help"],
    VALIDATE: ["-m", "slotgraph", "validate", str(BELLA)],
    "  with --check-tools": ["-m", "slotgraph", "validate", str(BELLA), "--check-tools"],
}
GOALS = {HELP: HELP_GOAL_MS, VALIDATE: VALIDATE_GOAL_MS}


def cpu_ms(name: str) -> float:
    """CPU milliseconds (user + system) of one child process running ``python <args>`` (and of the
    processes it waited for: ``--check-tools``' child counts in its ``validate``)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, *COMMANDS[name]], cwd=ROOT, env=env, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description="start-up time of the slotgraph command")
    parser.add_argument("--runs", type=int, default=15, help="runs of each command")
    args = parser.parse_args()
    for name in COMMANDS:
        cpu_ms(name)  # write bytecode caches before measuring
    samples: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(args.runs):
        for name in COMMANDS:
            samples[name].append(cpu_ms(name))
    print(f"start-up, median CPU ms of {args.runs} fresh processes each (interleaved)")
    for name, values in samples.items():
        print(f"  {name:<28} {statistics.median(values):7.1f} ms   (min {min(values):.1f})")
    for name, goal in GOALS.items():
        print(f"GOAL\t{name} start-up\t{statistics.median(samples[name]):.0f}\t<\t{goal:g}\tms")
    print("start-up measured")


if __name__ == "__main__":
    main()
