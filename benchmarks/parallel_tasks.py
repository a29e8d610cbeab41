"""Benchmark parallel tasks: the turn that fires two independent look-ups, parallel vs one at a time.

Run: ``.venv/bin/python benchmarks/parallel_tasks.py [--turns N] [--latency-ms MS]`` (from the repository
root).

Two executors simulate a backend that answers after ``--latency-ms`` (an ``asyncio.sleep``: waiting, not CPU,
which is what a real look-up costs). The same config is run with both tasks ``parallel: true`` and, as the
baseline measured in the same run and interleaved with it, without: the figure is the ratio of the median
wall-clock time of the turn that fires them (parallel / one at a time). Ideal: 0.5 (two equal waits
overlapped); the engine's and the runtime's own work is the rest.

Goal (issue 22): <= 0.6.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import statistics
import time
from typing import Any

from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep, call

GOAL = 0.6
NOW = datetime.datetime(2026, 7, 10, 12, 0)


def config(parallel: bool) -> dict[str, Any]:
    return {
        "slots": [
            {"name": "city", "setter": "set_city", "ask": "Where to?"},
            {"name": "flight", "source": "task:Flight"},
            {"name": "hotel", "source": "task:Hotel"},
        ],
        "tasks": [
            {"name": "Flight", "tool": "quote_flight", "inputs": ["city"], "outputs": {"price": "flight"},
             "success_check": "ok", "parallel": parallel},
            {"name": "Hotel", "tool": "quote_hotel", "inputs": ["city"], "outputs": {"total": "hotel"},
             "success_check": "ok", "parallel": parallel, "then_say": "Flight {flight}, hotel {hotel}."},
        ],
    }  # fmt: skip


def tools(latency: float) -> list[Any]:
    def set_city(city: str) -> dict[str, Any]:
        """Record the city."""
        return {"stored": True, "value": city}

    async def quote_flight(city: str) -> dict[str, Any]:
        """Quote a flight."""
        await asyncio.sleep(latency)
        return {"ok": True, "price": "€90"}

    async def quote_hotel(city: str) -> dict[str, Any]:
        """Quote a hotel."""
        await asyncio.sleep(latency)
        return {"ok": True, "total": "€300"}

    return [set_city, quote_flight, quote_hotel]


def one_turn(parallel: bool, latency: float) -> float:
    """Wall-clock seconds of the turn that sets the city and fires both look-ups."""
    model = ScriptedModel([ScriptedStep(tool_calls=(call("set_city", city="Lisbon"),))])
    agent = Agent.from_config(config(parallel), tools=tools(latency), model=model)
    session = agent.session(clock=lambda: NOW)
    start = time.perf_counter()
    result = session.send("Lisbon please")
    elapsed = time.perf_counter() - start
    assert "Flight €90, hotel €300." in result.text, result.text
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description="parallel tasks vs one at a time")
    parser.add_argument("--turns", type=int, default=15, help="turns measured for each mode")
    parser.add_argument("--latency-ms", type=float, default=50.0, help="simulated latency of each look-up")
    args = parser.parse_args()
    latency = args.latency_ms / 1000
    one_turn(True, latency), one_turn(False, latency)  # warm up (imports, compiled config)
    samples: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(args.turns):
        for parallel in (False, True):  # interleaved: both modes see the same machine load
            samples[parallel].append(one_turn(parallel, latency))
    seq, par = statistics.median(samples[False]), statistics.median(samples[True])
    print(f"two look-ups of {args.latency_ms:g} ms each, median of {args.turns} turns (interleaved)")
    print(f"  one at a time   {seq * 1000:8.1f} ms")
    print(f"  parallel        {par * 1000:8.1f} ms")
    ratio = par / seq
    print(f"GOAL\tparallel tasks: turn time vs one at a time\t{ratio:.2f}\t<=\t{GOAL:g}\tx")
    print(f"parallel/sequential turn ratio: {ratio:.2f}")


if __name__ == "__main__":
    main()
