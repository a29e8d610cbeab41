"""Benchmark one engine invocation through the spec-compatible entry, against ``copy.deepcopy`` (stdlib only).

Run: ``.venv/bin/python benchmarks/engine.py [--quick]`` (from the repository root; ``src`` is added to the
path).

**Inputs.** A Bella Notte-like config (inline below) over representative states, in two sets:

* *hand-written* — first turn, fresh readback, awaiting confirmation ("yes"), post-executor cascade,
  mid-collection, terminal: small states as tool tests write them;
* *returned* — the state the engine returned for each of those, passed back on the next call (as a host
  that stores ``sm`` between tool calls does): it carries ``_last_state`` and the routing tables.

**Paths** (per invocation of ``slot_filling_engine``):

* ``warm`` — the same config object every call (a host that keeps it);
* ``new config`` — a new but equal config dict every call (a host that deserialises it per tool call; the
  dicts are made before timing);
* ``cold`` — the first call for a config: every cache emptied before each call (a fresh process per call);
* ``cold, verdict`` — the same, with validation verdicts kept on disk (``SLOTGRAPH_VERDICT_DIR``, in a
  temporary directory): a fresh process per call for a config an earlier process validated, the case of a
  host that starts one process per tool call; the call compiles from the plan kept with the verdict (no
  checks, no typed nodes). What such a process saves on imports (no pydantic) is measured by
  ``benchmarks/startup.py``, which starts real processes.

**Floor.** ``copy.deepcopy`` of the same state, measured interleaved with each path in the same run (the
machine is shared: only ratios measured together mean anything). Each path's figure is the sum over the
states of the median time per call, divided by the same sum for the floor. Times are CPU time of this
process (waiting for a core is not counted).

**Growth.** The config is repeated k times (renamed, chained) up to 999 slots; the growth exponent
``log(t_999 / t_90) / log(999 / 90)`` is reported for compilation and every path (1 is linear), from the
best of 7 batches, each started after a full garbage collection. It is measured in a fresh process (this
script with ``--growth-only``), and the cold paths after the ``new config`` path's twenty equal copies of
the 999-slot config are gone: compiling a 999-slot config allocates enough objects for the cyclic garbage
collector's collections to run, and each walks every object alive in the process — the per-state phase's
leftovers, those copies — which is not the engine's growth (it put the cold exponents at 1.15–1.27 from run
to run). The same exponents with the collector paused are printed beside them for comparison (the goal is
the collector's running figure). A 1,000-slot ``requires`` chain declared in reverse must compile (no
recursion limit).

Goals (issue 23): warm <= 2x the floor, new config <= 3x, cold <= 12x (both cold paths are reported against
it); every exponent <= 1.15.
"""

from __future__ import annotations

import argparse
import copy
import gc
import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from slotgraph._native import status
from slotgraph.adapters.cxas import clear_config_memo, slot_filling_engine
from slotgraph.config import clear_compile_cache, compile_config, configure_verdict_dir

GOALS = {"warm": 2.0, "new config": 3.0, "cold": 12.0, "cold, verdict": 12.0}
COLD = ("cold", "cold, verdict")
VERDICTS = tempfile.TemporaryDirectory(prefix="slotgraph-bench-verdicts-")
EXPONENT_GOAL = 1.15
CLOCK = time.process_time

EXHAUST = {"say": "Please call us at 555-0100.", "then": {"tool": "end_session", "args": {"reason": "retry"}}}
CONFIG: dict[str, Any] = {
    "slots": [
        {"name": "welcome", "source": "announce", "message": "Welcome to Bella Notte!", "preempt": False},
        {
            "name": "party_size",
            "source": ["event", "user"],
            "setter": "set_reservation_basics",
            "setter_field": "party_size",
            "ask": "How many guests will be joining us?",
            "requires_readback": True,
            "readback_fmt": {"type": "plural", "one": "guest", "other": "guests"},
            "validation": {
                "max_retries": 3,
                "errors": {"out_of_range": "We seat 1 to 12."},
                "on_exhaust": EXHAUST,
            },
        },
        {
            "name": "large_party_phone",
            "setter": "set_large_party_phone",
            "ask": "Best number to reach you?",
            "condition": "lambda filled: int(filled.get('party_size', 0)) >= 5",
        },
        {
            "name": "preferred_date",
            "setter": "set_reservation_basics",
            "setter_field": "preferred_date",
            "ask": "What date would you like?",
            "requires_readback": True,
            "readback_fmt": "date",
            "validation": {"max_retries": 3, "errors": {"past_date": "That date has passed."}},
        },
        {"name": "available_times", "source": "task:FindAvailableTimes"},
        {
            "name": "selected_time",
            "setter": "set_selected_time",
            "requires": ["available_times"],
            "ask": "We have {available_times}. Which time works best?",
            "requires_readback": True,
            "readback_fmt": "time",
            "validate_against": {
                "response_field": "value",
                "filled_slot": "available_times",
                "error_code": "not_available",
            },
            "validation": {"max_retries": 3, "errors": {"not_available": "We have {available_times}."}},
        },
        {
            "name": "guest_name",
            "setter": "set_guest_info",
            "setter_field": "guest_name",
            "ask": "What name should I put the reservation under?",
            "requires_readback": True,
            "readback_fmt": {"type": "prefix", "prefix": "under the name"},
        },
        {
            "name": "special_requests",
            "setter": "set_guest_info",
            "setter_field": "special_requests",
            "ask": "Any special requests?",
            "requires_readback": True,
            "readback_fmt": {"type": "none_sub", "text": "no special requests"},
        },
        {"name": "confirmation_number", "source": "task:BookReservation"},
    ],
    "tasks": [
        {
            "name": "FindAvailableTimes",
            "tool": "find_available_times",
            "inputs": ["party_size", "preferred_date"],
            "outputs": {"available_times": "available_times"},
            "success_check": "success",
            "then_say": "We have availability at {available_times}.",
            "on_failure": {
                "retry_say": "Fully booked. Another date?",
                "max_retries": 2,
                "clear_slots": ["preferred_date"],
                "on_exhaust": EXHAUST,
            },
        },
        {
            "name": "BookReservation",
            "tool": "book_reservation",
            "inputs": [
                "party_size",
                "preferred_date",
                "selected_time",
                "guest_name",
                "special_requests",
                "large_party_phone",
            ],
            "outputs": {"confirmation_number": "confirmation_number"},
            "success_check": "success",
            "terminal": True,
            "then_say": "Confirmed! Number {confirmation_number}.",
            "on_failure": {"retry_say": "Let me try once more.", "max_retries": 2, "on_exhaust": EXHAUST},
        },
    ],
    "steer_back": {"soft_after": 2, "hard_after": 4, "escalate_after": 6, "on_exhaust": EXHAUST},
    "confirm_transition_prefix": ["Wonderful!", "Perfect!", "Great!"],
}

BASICS = {"party_size": 4, "preferred_date": "2026-06-17"}
SNAP_BASICS = {"filled": {"welcome": True}, "pending": dict(BASICS), "deferred": {}}
STATES: dict[str, tuple[dict[str, Any], str]] = {
    "first turn": ({}, ""),
    "fresh readback": (
        {
            "filled": {"welcome": True},
            "pending": dict(BASICS),
            "_last_state": {"filled": {"welcome": True}, "pending": {}, "deferred": {}},
        },
        "",
    ),
    "auto-confirm 'yes'": (
        {"filled": {"welcome": True}, "pending": dict(BASICS), "_last_state": SNAP_BASICS},
        "yes",
    ),
    "post-executor": (
        {
            "filled": {"welcome": True, **BASICS, "available_times": "6 PM, 7:30 PM, 9 PM"},
            "task_results": {
                "FindAvailableTimes": {"success": True, "available_times": "6 PM, 7:30 PM, 9 PM"}
            },
            "_task_just_completed": "FindAvailableTimes",
            "_last_state": {"filled": {"welcome": True, **BASICS}, "pending": {}, "deferred": {}},
        },
        "",
    ),
    "mid-collection": (
        {
            "filled": {
                "welcome": True,
                **BASICS,
                "available_times": "6 PM, 7:30 PM, 9 PM",
                "selected_time": "19:30",
            },
            "task_results": {"FindAvailableTimes": {"success": True, "available_times": "6 PM"}},
            "_retries": {"slot:party_size": 1},
            "_steer_back_turns": 1,
            "_last_state": {
                "filled": {"welcome": True, **BASICS, "available_times": "6 PM", "selected_time": "19:30"},
                "pending": {},
                "deferred": {},
            },
        },
        "I'd like it by the window",
    ),
    "terminal": ({"status": "complete", "filled": {"welcome": True, **BASICS}}, "thanks!"),
}


def batch_time(fn: Callable[[int], object], calls: int) -> float:
    """CPU seconds per call of ``fn(i)`` over ``calls`` calls."""
    start = CLOCK()
    for i in range(calls):
        fn(i)
    return (CLOCK() - start) / calls


def settled_batch_time(fn: Callable[[int], object], calls: int, paused: bool = False) -> float:
    """:func:`batch_time` after a full garbage collection, so that a batch pays for the collections its own
    garbage triggers and not for one an earlier batch left due; ``paused``: the collector is off during it."""
    gc.collect()
    if paused:
        gc.disable()
    try:
        return batch_time(fn, calls)
    finally:
        gc.enable()


def _deepcopy_state(sm: dict[str, Any], _: int) -> object:
    """The floor: ``copy.deepcopy`` of the state."""
    return copy.deepcopy(sm)


def paired(
    path: Callable[[int], object], floor: Callable[[int], object], calls: int, rounds: int
) -> tuple[float, float]:
    """Median seconds per call of ``path`` and ``floor``, batches taken alternately."""
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(batch_time(path, calls))
        theirs.append(batch_time(floor, calls))
    return statistics.median(ours), statistics.median(theirs)


def cold_call(data: dict[str, Any], verdicts: bool = False) -> Callable[[int], object]:
    """Every in-process cache emptied before the call; ``verdicts``: the on-disk verdicts are kept."""
    if verdicts:  # an earlier process validated this config and left its verdict
        configure_verdict_dir(VERDICTS.name)
        clear_compile_cache()
        slot_filling_engine(data)
        configure_verdict_dir(None)

    def call(_: int) -> object:
        clear_compile_cache()
        clear_config_memo()
        configure_verdict_dir(VERDICTS.name if verdicts else None)
        try:
            return slot_filling_engine(data)
        finally:
            configure_verdict_dir(None)

    return call


def paths(
    config: dict[str, Any], sm: dict[str, Any], text: str, copies: int
) -> dict[str, Callable[[int], object]]:
    """The three paths for one state; ``copies`` equal config dicts are made up front for ``new config``."""
    data = {"raw_config": config, "sm": sm, "last_user_text": text}
    fresh = [{**data, "raw_config": copy.deepcopy(config)} for _ in range(copies)]
    slot_filling_engine(data)
    return {
        "warm": lambda _: slot_filling_engine(data),
        "new config": lambda i: slot_filling_engine(fresh[i % copies]),
        "cold": cold_call(data),
        "cold, verdict": cold_call(data, verdicts=True),
    }


def returned_states() -> dict[str, tuple[dict[str, Any], str]]:
    """The state the engine returned for each hand-written input, passed back with no new user text."""
    out = {}
    for label, (sm, text) in STATES.items():
        returned = slot_filling_engine({"raw_config": CONFIG, "sm": sm, "last_user_text": text, "seed": 1})
        out[f"{label} (returned)"] = (returned["sm"], "")
    return out


def scaled(k: int) -> dict[str, Any]:
    """``k`` renamed copies of CONFIG, each copy's welcome requiring the previous copy's confirmation."""
    slots: list[dict[str, Any]] = []
    tasks: list[dict[str, Any]] = []
    for i in range(k):
        names = {s["name"] for s in CONFIG["slots"]} | {t["name"] for t in CONFIG["tasks"]}
        names |= {s["setter"] for s in CONFIG["slots"] if "setter" in s} | {
            t["tool"] for t in CONFIG["tasks"]
        }

        def rename(value: Any, i: int = i, names: set[str] = names) -> Any:
            if isinstance(value, dict):
                return {key: rename(item) for key, item in value.items()}
            if isinstance(value, list):
                return [rename(item) for item in value]
            if isinstance(value, str):
                if value in names:
                    return f"{value}_{i}"
                if value.startswith("task:"):
                    return f"task:{value[5:]}_{i}"
                for name in names:
                    value = value.replace(f"{{{name}}}", f"{{{name}_{i}}}").replace(
                        f"'{name}'", f"'{name}_{i}'"
                    )
            return value

        copy_slots = rename(CONFIG["slots"])
        if i:
            copy_slots[0]["requires"] = [f"confirmation_number_{i - 1}"]
        slots += copy_slots
        copy_tasks = rename(CONFIG["tasks"])
        if i < k - 1:
            copy_tasks[-1].pop("terminal")
        tasks += copy_tasks
    return {
        **{key: value for key, value in CONFIG.items() if key not in ("slots", "tasks")},
        "slots": slots,
        "tasks": tasks,
    }


def reverse_chain(depth: int) -> dict[str, Any]:
    slots = [
        {
            "name": f"s{i}",
            "setter": f"set_s{i}",
            "ask": f"S{i}?",
            **({"requires": [f"s{i - 1}"]} if i else {}),
        }
        for i in range(depth)
    ]
    return {
        "slots": slots[::-1],
        "tasks": [{"name": "Finish", "tool": "finish", "inputs": [f"s{depth - 1}"]}],
    }


def growth(quick: bool) -> dict[str, float]:
    """Seconds per call at 90 and 999 slots for compile and each path -> exponent, with the cyclic garbage
    collector running (the goal's figure) and, for comparison, paused during the timed batches."""
    sizes = (2, 5) if quick else (10, 111)
    calls = 3 if quick else 20
    timings: dict[tuple[str, bool], list[float]] = {}
    counts = []
    for k in sizes:
        config = scaled(k)
        counts.append(len(config["slots"]))
        compile_config(config)  # validate once outside timing

        def compile_once(_: int, config: dict[str, Any] = config) -> object:
            clear_compile_cache()
            return compile_config(config)

        for paused in (False, True):
            timings.setdefault(("compile", paused), []).append(
                min(settled_batch_time(compile_once, 2, paused) for _ in range(calls // 2 + 1))
            )
        warm = paths(config, {}, "", calls)
        for name in ("warm", "new config"):
            for paused in (False, True):
                timings.setdefault((name, paused), []).append(
                    min(settled_batch_time(warm[name], calls, paused) for _ in range(7))
                )
        del warm  # its equal copies of the config (for "new config") must not be alive during the cold paths
        data = {"raw_config": config, "sm": {}, "last_user_text": ""}
        for name, fn in (("cold", cold_call(data)), ("cold, verdict", cold_call(data, verdicts=True))):
            for paused in (False, True):
                timings.setdefault((name, paused), []).append(
                    min(settled_batch_time(fn, calls, paused) for _ in range(7))
                )
    low, high = counts
    print(f"\ngrowth from {low} to {high} slots (first turn; ms per call at {low} / {high}, exponent;")
    print("the same with the cyclic garbage collector paused during the timed calls):")
    exponents: dict[str, float] = {}
    paused_exponents: dict[str, float] = {}
    for (name, paused), (t_low, t_high) in timings.items():
        (paused_exponents if paused else exponents)[name] = math.log(t_high / t_low) / math.log(high / low)
    for name, value in exponents.items():
        t_low, t_high = timings[(name, False)]
        p_low, p_high = timings[(name, True)]
        print(
            f"  {name:<13} {t_low * 1e3:8.2f} {t_high * 1e3:9.2f}   exponent {value:.2f}"
            f"   | paused {p_low * 1e3:8.2f} {p_high * 1e3:9.2f}   exponent {paused_exponents[name]:.2f}"
        )
    return exponents


def growth_in_fresh_process(quick: bool) -> dict[str, float]:
    """:func:`growth` in a new interpreter (see the module docstring); its report is shown as it is."""
    done = subprocess.run(
        [sys.executable, __file__, "--growth-only", *(["--quick"] if quick else [])],
        capture_output=True,
        text=True,
        check=True,
    )
    exponents = {}
    for line in done.stdout.splitlines():
        if line.startswith("EXPONENT\t"):
            _, name, value = line.split("\t")
            exponents[name] = float(value)
        else:
            print(line)
    return exponents


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a tiny workload (smoke test)")
    parser.add_argument("--growth-only", action="store_true", help="only the growth part (run by main)")
    args = parser.parse_args()
    if args.growth_only:
        for name, value in growth(args.quick).items():
            print(f"EXPONENT\t{name}\t{value!r}")
        return
    calls, rounds = (20, 3) if args.quick else (300, 11)
    cold_calls = 5 if args.quick else 40
    sets = {"hand-written": dict(STATES), "returned": returned_states()}
    print(
        "slot_filling_engine, Bella Notte-like config; median CPU µs per call"
        f" ({rounds} interleaved batches); core: {status().reason}"
    )
    print(f"{'state':<34} {'floor':>7} {'warm':>7} {'new cfg':>8} {'cold':>8} {'verdict':>8}")
    totals: dict[str, dict[str, float]] = {}
    for set_name, states in sets.items():
        for label, (sm, text) in states.items():
            row = {}
            floors = []
            for name, fn in paths(CONFIG, sm, text, calls).items():
                n = cold_calls if name in COLD else calls
                ours, floor = paired(fn, partial(_deepcopy_state, sm), n, rounds)
                row[name] = ours
                floors.append(floor)
                for key, value in ((name, ours), (f"floor {name}", floor)):
                    totals.setdefault(set_name, {}).setdefault(key, 0.0)
                    totals[set_name][key] += value
            print(
                f"{label:<34} {statistics.median(floors) * 1e6:7.1f} {row['warm'] * 1e6:7.1f}"
                f" {row['new config'] * 1e6:8.1f} {row['cold'] * 1e6:8.1f} {row['cold, verdict'] * 1e6:8.1f}"
            )
    print("\nratio to the floor (sum of medians over the states / the same for copy.deepcopy):")
    ratios: dict[str, float] = {}
    for name in GOALS:
        per_set = {set_name: t[name] / t[f"floor {name}"] for set_name, t in totals.items()}
        both = sum(t[name] for t in totals.values()) / sum(t[f"floor {name}"] for t in totals.values())
        ratios[name] = both
        shown = "  ".join(f"{set_name} {value:5.1f}x" for set_name, value in per_set.items())
        print(f"  {name:<13} {shown}  all {both:5.1f}x   (goal <= {GOALS[name]:g}x)")
    exponents = growth_in_fresh_process(args.quick)
    clear_compile_cache()
    depth = 60 if args.quick else 1000
    compile_config(reverse_chain(depth))
    print(f"\na {depth}-slot requires chain declared in reverse compiles (no recursion limit)")
    for set_name in totals:
        for name in GOALS:
            value = totals[set_name][name] / totals[set_name][f"floor {name}"]
            print(f"GOAL\tengine {name}, {set_name} states\t{value:.2f}\t<=\t{GOALS[name]:g}\tx deepcopy")
    for name, value in exponents.items():
        print(f"GOAL\tengine growth exponent, {name}\t{value:.2f}\t<=\t{EXPONENT_GOAL:g}\t")
    print("warm/deepcopy")  # the closing marker the smoke test looks for


if __name__ == "__main__":
    main()
