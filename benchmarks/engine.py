"""Benchmark one engine invocation through the spec-compatible entry (stdlib only).

Run: ``.venv/bin/python benchmarks/engine.py`` (from the repository root; ``src`` is added to the path).

A Bella Notte-like config (inline below) over a realistic mix of states — first turn, fresh readback,
awaiting confirmation ("yes"), post-executor cascade, mid-collection, terminal. For each, it reports the
median and p99 in microseconds of

* ``cold``  — ``slot_filling_engine`` right after the compiled-config cache was cleared (first compile);
* ``warm``  — ``slot_filling_engine`` with the config already compiled (the steady state of a session);
* ``engine`` — ``run_engine`` on the compiled DAG (no fingerprinting of the raw config);
* ``deepcopy`` — a bare ``copy.deepcopy`` of the same state, the yardstick: ``warm/deepcopy`` is printed.
"""

from __future__ import annotations

import copy
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from slotgraph.adapters.cxas import clear_config_memo, slot_filling_engine
from slotgraph.config import clear_compile_cache, compile_config
from slotgraph.engine import run_engine

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


def measure(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - start) / 1000)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(len(samples) * 0.99))]


def main(runs: int = 3000, cold_runs: int = 200) -> None:
    dag = compile_config(CONFIG)
    print(f"slot_filling_engine, Bella Notte-like config; {runs} warm / {cold_runs} cold runs per state (µs)")
    header = f"{'state':<20} {'cold med':>9} {'cold p99':>9} {'warm med':>9} {'warm p99':>9}"
    print(header + f" {'engine med':>10} {'deepcopy':>9} {'warm/deepcopy':>14}")
    for label, (sm, text) in STATES.items():
        data = {"raw_config": CONFIG, "sm": sm, "last_user_text": text}

        def cold(data: dict[str, Any] = data) -> object:
            clear_compile_cache()
            clear_config_memo()
            return slot_filling_engine(data)

        def warm(data: dict[str, Any] = data) -> object:
            return slot_filling_engine(data)

        def engine(sm: dict[str, Any] = sm, text: str = text) -> object:
            return run_engine(dag, sm, last_user_text=text)

        def deep(sm: dict[str, Any] = sm) -> object:
            return copy.deepcopy(sm)

        cold_med, cold_p99 = measure(cold, cold_runs)
        warm(), engine()  # warm the cache again after the cold runs
        warm_med, warm_p99 = measure(warm, runs)
        engine_med, _ = measure(engine, runs)
        deep_med, _ = measure(deep, runs)
        print(
            f"{label:<20} {cold_med:>9.1f} {cold_p99:>9.1f} {warm_med:>9.1f} {warm_p99:>9.1f}"
            f" {engine_med:>10.1f} {deep_med:>9.1f} {warm_med / deep_med:>13.1f}x"
        )


if __name__ == "__main__":
    main()
