"""Benchmark start-up: how long ``slotgraph --help`` and ``slotgraph validate`` take in a fresh process.

Run: ``.venv/bin/python benchmarks/startup.py [--runs N]`` (from the repository root).

Each command runs N times as ``python -m slotgraph ...`` in a new interpreter; the figure is the median CPU
time (user + system) of the child process, so waiting for a core on a shared machine is not counted. A bare
``python -c pass`` is measured interleaved as the interpreter's own start-up, for reference, and so is
``validate``'s tool probe alone (the child process ``validate`` starts to import the agent's ``tools.py``; its
CPU is part of the ``validate`` figure), with the environment ``validate`` gives it
(:func:`slotgraph.cli.tool_checks.probe_env`).

Goal (issue 23): each command under 150 ms.
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
sys.path.insert(0, str(ROOT / "src"))

from slotgraph.cli.tool_checks import probe_env  # noqa: E402 - after the path is set

GOAL_MS = 150.0
BELLA = ROOT / "examples" / "bella_notte"
PROBE = "  its tool probe"
COMMANDS: dict[str, list[str]] = {
    "python -c pass": ["-c", "pass"],
    "slotgraph --help": ["-m", "slotgraph", "--help"],
    "slotgraph validate": ["-m", "slotgraph", "validate", str(BELLA)],
    # the child validate starts (already inside the figure above), alone, as validate runs it
    PROBE: ["-m", "slotgraph.cli.tool_probe", str(BELLA / "tools.py")],
}


def cpu_ms(args: list[str]) -> float:
    """CPU milliseconds (user + system) of one child process running ``python <args>`` (and of the
    processes it waited for: ``validate``'s tool probe counts in ``validate``)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {
        **(probe_env() if args[:2] == COMMANDS[PROBE][:2] else os.environ),
        "PYTHONPATH": str(ROOT / "src"),
    }
    subprocess.run([sys.executable, *args], cwd=ROOT, env=env, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description="start-up time of the slotgraph command")
    parser.add_argument("--runs", type=int, default=15, help="runs of each command")
    args = parser.parse_args()
    for command in COMMANDS.values():
        cpu_ms(command)  # write bytecode caches before measuring
    samples: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(args.runs):
        for name, command in COMMANDS.items():
            samples[name].append(cpu_ms(command))
    print(f"start-up, median CPU ms of {args.runs} fresh processes each (interleaved)")
    for name, values in samples.items():
        print(f"  {name:<20} {statistics.median(values):7.1f} ms   (min {min(values):.1f})")
    for name in ("slotgraph --help", "slotgraph validate"):
        print(f"GOAL\t{name} start-up\t{statistics.median(samples[name]):.0f}\t<\t{GOAL_MS:g}\tms")
    print("start-up measured")


if __name__ == "__main__":
    main()
