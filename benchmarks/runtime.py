"""Where Slotgraph's own time goes, in process: a diagnostic without goals of its own.

Run: ``.venv/bin/python benchmarks/runtime.py [--bookings N]`` (from the repository root).

The overhead per turn against the peers, model calls and prompt tokens per booking are ``peers.py``'s (its
goals); this script measures what only Slotgraph has, each figure the CPU time of the process
(``time.process_time``: every thread, so tool threads and the sync facade's loop thread count) minus the CPU
time spent inside the model's ``generate``:

1. **The sync facade** — the README's Bella Notte booking (8 user turns, :class:`ScriptedModel`) played N
   times through ``session.send`` and, each booking right after its ``send`` twin, through
   ``await session.asend`` on an event loop of this thread (what the server does). The difference is what
   calling from synchronous code costs. Median and p99 per turn; the wall-clock median of ``send`` beside it
   (it also counts waiting for a core on a shared machine).
2. **An agent with logic** — the clinic example (variables, rules, a gated tool) over its
   ``full_booking`` scenario's user turns with its own offline model, through ``asend``: what the logic layer
   adds to a turn, next to Bella Notte's.
3. **Starting a session** — ``agent.session()`` with the agent's model resolved from ``agent.yaml`` (a new
   model per session), as a host that starts a session per conversation does.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import statistics
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from slotgraph import Agent, Model, ScriptedModel, ScriptedStep, Session, call
from slotgraph.models import ModelRequest, ModelResponse

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NOW = datetime.datetime(2026, 7, 10, 12, 0)
# The name and the special requests are confirmed together (a grouped readback).
USER_TURNS = ["Hi", "A table for 4 on July 17th", "yes", "7:30 please", "yes", "Chen", "no", "yes"]


class TimedModel:
    """Wraps a model and adds up the wall and CPU time spent inside ``generate``."""

    def __init__(self, inner: Model) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.cpu_seconds = 0.0

    async def generate(self, request: ModelRequest) -> ModelResponse:
        start, cpu = time.perf_counter(), time.process_time()
        try:
            return await self.inner.generate(request)
        finally:
            self.seconds += time.perf_counter() - start
            self.cpu_seconds += time.process_time() - cpu


def booking_script() -> list[ScriptedStep]:
    """The model's part of the booking: it records what the guest said and words the engine's next move."""
    return [
        ScriptedStep(text="Welcome to Bella Notte! How many guests will be joining us?"),
        ScriptedStep(tool_calls=(call("set_reservation_basics", party_size=4, preferred_date="2026-07-17"),)),
        ScriptedStep(text="Just to confirm: 4 guests on July 17th?"),
        ScriptedStep(tool_calls=(call("set_selected_time", time="19:30"),)),
        ScriptedStep(text="7:30 PM — is that right?"),
        ScriptedStep(tool_calls=(call("set_guest_info", guest_name="Chen"),)),
        ScriptedStep(text="Any special requests or dietary needs?"),
        ScriptedStep(tool_calls=(call("set_guest_info", special_requests="None"),)),
        ScriptedStep(text="Under the name Chen, no special requests — correct?"),
    ]


def _session(agent: Agent, model: TimedModel, now: datetime.datetime) -> Session:
    return agent.session(model=model, clock=lambda: now, seed=0)


def play_sync(agent: Agent) -> tuple[list[float], list[float]]:
    """One booking through ``send``: each turn's CPU and wall time, the model's excluded."""
    script = ScriptedModel(booking_script())
    timed = TimedModel(script)
    session = _session(agent, timed, NOW)
    overheads, walls = [], []
    for text in USER_TURNS:
        timed.seconds = timed.cpu_seconds = 0.0
        start, cpu = time.perf_counter(), time.process_time()
        session.send(text)
        overheads.append(time.process_time() - cpu - timed.cpu_seconds)
        walls.append(time.perf_counter() - start - timed.seconds)
    script.assert_complete()
    if session.status != "complete":
        raise AssertionError(f"the booking did not complete: {session.state}")
    return overheads, walls


async def play_async(agent: Agent, turns: list[str], now: datetime.datetime, model: Model) -> list[float]:
    """One conversation through ``await session.asend``: each turn's CPU time, the model's excluded."""
    timed = TimedModel(model)
    session = _session(agent, timed, now)
    overheads = []
    for text in turns:
        timed.cpu_seconds = 0.0
        cpu = time.process_time()
        await session.asend(text)
        overheads.append(time.process_time() - cpu - timed.cpu_seconds)
    return overheads


def clinic_turn_us(conversations: int) -> tuple[float, int]:
    """The median overhead per turn of the clinic example over its ``full_booking`` scenario's user turns
    (its own offline model), and the number of turns per conversation."""
    directory = EXAMPLES / "clinic"
    scenario = yaml.safe_load((directory / "scenarios" / "full_booking.yaml").read_text(encoding="utf-8"))
    turns = [str(turn["user"]) for turn in scenario["turns"]]
    now = datetime.datetime.fromisoformat(str(scenario["now"]))
    agent = Agent.load(directory)
    overheads: list[float] = []
    with asyncio.Runner() as runner:
        runner.run(play_async(agent, turns, now, agent.session().model))  # warm-up
        for _ in range(conversations):
            overheads.extend(runner.run(play_async(agent, turns, now, agent.session().model)))
    return statistics.median(overheads) * 1e6, len(turns)


def session_start_us(agent: Agent, runs: int = 200) -> float:
    """Median CPU time of ``agent.session()`` with no model given (the agent's ``model:`` resolved)."""
    times = []
    for _ in range(runs):
        cpu = time.process_time()
        agent.session()
        times.append(time.process_time() - cpu)
    return statistics.median(times) * 1e6


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--bookings", type=int, default=200, help="bookings each way (default 200)")
    args = parser.parse_args()
    if args.bookings < 1:
        parser.error("--bookings: at least 1")

    agent = Agent.load(EXAMPLES / "bella_notte")
    synced: list[float] = []
    walls: list[float] = []
    awaited: list[float] = []
    with asyncio.Runner() as runner:
        play_sync(agent)  # warm-up: lazy imports and first-use set-up, each way
        runner.run(play_async(agent, USER_TURNS, NOW, ScriptedModel(booking_script())))
        for _ in range(args.bookings):
            overheads, booking_walls = play_sync(agent)
            synced += overheads
            walls += booking_walls
            awaited += runner.run(play_async(agent, USER_TURNS, NOW, ScriptedModel(booking_script())))
    print(
        f"Bella Notte, {args.bookings} bookings of {len(USER_TURNS)} turns each way, interleaved; "
        "CPU per turn, model excluded:"
    )
    for label, values in (("`session.send`", synced), ("`await session.asend`", awaited)):
        print(
            f"  {label:<22} median {statistics.median(values) * 1e6:6.0f} µs   "
            f"p99 {_p99(values) * 1e6:6.0f} µs"
        )
    facade = (statistics.median(synced) - statistics.median(awaited)) * 1e6
    wall = statistics.median(walls) * 1e6
    print(f"  the sync facade adds {facade:.0f} µs (wall median of `send`: {wall:.0f} µs)")
    logic, per = clinic_turn_us(max(3, args.bookings // 4))
    print(
        f"an agent with logic (examples/clinic, {per} turns, `asend`, offline model excluded): {logic:.0f} µs"
    )
    start = session_start_us(agent)
    print(f"starting a session (`agent.session()`, its model from agent.yaml): {start:.0f} µs CPU")


if __name__ == "__main__":
    main()
