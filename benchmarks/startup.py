"""Benchmark start-up: how long ``slotgraph --help`` and ``slotgraph validate`` take in a fresh process.

Run: ``.venv/bin/python benchmarks/startup.py [--runs N]`` (from the repository root).

Each command runs N times as ``python -m slotgraph ...`` in a new interpreter; the figure is the median CPU
time (user + system) of the child process, so waiting for a core on a shared machine is not counted. A bare
``python -c pass`` is measured interleaved as the interpreter's own start-up, for reference, and so is
``validate``'s tool probe alone as a fresh interpreter (the child ``validate`` starts to import the agent's
``tools.py`` where it cannot fork itself: macOS, Windows, a process with threads), with the environment
``validate`` gives it (:func:`slotgraph.cli.tool_checks.probe_env`). On Linux ``validate`` forks its probe,
whose CPU is part of the ``validate`` figure.

``validate`` is measured three times: the first validation (its cache emptied before every run, so each run
validates and stores the result), an unchanged app validated again (answered from the cache that the warm-up
filled, :mod:`slotgraph.cli.validate_cache`), and a copy whose ``dag.yaml`` is edited before every run while
its ``tools.py`` is not (validated again, the tools probe's stored output reused). Each uses its own
``XDG_CACHE_HOME``.

Also measured, without a goal of its own: a fresh process that makes one engine call through the
spec-compatible entry (``slot_filling_engine`` on Bella Notte's DAG as the JSON a host passes), as a host
that starts a process per tool call runs it — without validation verdicts, and with a verdict and compiled
plan on disk (``SLOTGRAPH_VERDICT_DIR``, filled by the warm-up run), where the process imports no pydantic.

Goal (issue 23): each command under 150 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from slotgraph.cli.tool_checks import probe_env  # noqa: E402 - after the path is set
from slotgraph.config.loader import read_mapping  # noqa: E402

GOAL_MS = 150.0
BELLA = ROOT / "examples" / "bella_notte"
PROBE = "  a spawned tool probe"
FIRST = "slotgraph validate"
UNCHANGED = "  again, unchanged"
EDITED = "  after a config edit"
SCRATCH = Path(tempfile.mkdtemp(prefix="slotgraph-startup-"))
EDITED_APP = SCRATCH / "bella_notte"  # a copy whose dag.yaml changes before every run; tools.py never does
COMMANDS: dict[str, list[str]] = {
    "python -c pass": ["-c", "pass"],
    "slotgraph --help": ["-m", "slotgraph", "--help"],
    FIRST: ["-m", "slotgraph", "validate", str(BELLA)],
    # the child validate starts where it cannot fork (a fork's CPU is inside the figure above), alone
    PROBE: ["-m", "slotgraph.cli.tool_probe", str(BELLA / "tools.py")],
    # the same app validated again, nothing changed: answered from the cache
    UNCHANGED: ["-m", "slotgraph", "validate", str(BELLA)],
    # the DAG edited, the tools module unchanged: validated again, the probe's stored output reused
    EDITED: ["-m", "slotgraph", "validate", str(EDITED_APP)],
}
CONFIG_JSON = SCRATCH / "bella_notte_dag.json"
ENGINE = "engine call, fresh process"
ENGINE_PLAN = "  with verdict and plan"
_ENGINE_CALL = (
    "import json, sys\n"
    "from slotgraph.adapters.cxas import slot_filling_engine\n"
    "raw = json.load(open(sys.argv[1], encoding='utf-8'))\n"
    "slot_filling_engine({'raw_config': raw, 'sm': {}, 'last_user_text': ''})\n"
)
COMMANDS[ENGINE] = ["-c", _ENGINE_CALL, str(CONFIG_JSON)]
COMMANDS[ENGINE_PLAN] = ["-c", _ENGINE_CALL, str(CONFIG_JSON)]
VERDICTS = SCRATCH / "verdicts"  # filled by the warm-up run of ENGINE_PLAN
CACHES = {name: SCRATCH / "cache" / str(index) for index, name in enumerate((FIRST, UNCHANGED, EDITED))}


def cpu_ms(name: str) -> float:
    """CPU milliseconds (user + system) of one child process running ``python <args>`` (and of the
    processes it waited for: ``validate``'s tool probe counts in ``validate``)."""
    args = COMMANDS[name]
    env = {**(probe_env() if name == PROBE else os.environ), "PYTHONPATH": str(ROOT / "src")}
    env.pop("SLOTGRAPH_NO_CACHE", None)
    env.pop("SLOTGRAPH_VERDICT_DIR", None)
    if name == ENGINE_PLAN:
        env["SLOTGRAPH_VERDICT_DIR"] = str(VERDICTS)
    if name in CACHES:
        env["XDG_CACHE_HOME"] = str(CACHES[name])
    if name == FIRST:  # a first validation: nothing stored yet
        shutil.rmtree(CACHES[name], ignore_errors=True)
    if name == EDITED:
        with (EDITED_APP / "dag.yaml").open("a", encoding="utf-8") as dag:
            dag.write("# edited\n")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, *args], cwd=ROOT, env=env, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description="start-up time of the slotgraph command")
    parser.add_argument("--runs", type=int, default=15, help="runs of each command")
    args = parser.parse_args()
    shutil.copytree(BELLA, EDITED_APP)
    CONFIG_JSON.write_text(json.dumps(dict(read_mapping(BELLA / "dag.yaml", what="DAG config"))), "utf-8")
    try:
        for name in COMMANDS:
            cpu_ms(name)  # write bytecode caches (and fill the unchanged app's cache) before measuring
        samples: dict[str, list[float]] = {name: [] for name in COMMANDS}
        for _ in range(args.runs):
            for name in COMMANDS:
                samples[name].append(cpu_ms(name))
    finally:
        shutil.rmtree(SCRATCH, ignore_errors=True)
    print(f"start-up, median CPU ms of {args.runs} fresh processes each (interleaved)")
    for name, values in samples.items():
        print(f"  {name:<28} {statistics.median(values):7.1f} ms   (min {min(values):.1f})")
    goals = {
        "slotgraph --help": "slotgraph --help",
        FIRST: "slotgraph validate (first validation)",
        UNCHANGED: "slotgraph validate (unchanged app, cache hit)",
        EDITED: "slotgraph validate (config edited, tools.py unchanged)",
    }
    for name, label in goals.items():
        print(f"GOAL\t{label} start-up\t{statistics.median(samples[name]):.0f}\t<\t{GOAL_MS:g}\tms")
    print("start-up measured")


if __name__ == "__main__":
    main()
