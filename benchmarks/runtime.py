"""Benchmark the runtime: overhead per turn, and model calls / prompt tokens per completed booking.

Run: ``.venv/bin/python benchmarks/runtime.py [--bookings N]`` (from the repository root).

1. **Runtime overhead per turn** — a full Bella Notte booking (8 user turns) is played N times with a
   :class:`ScriptedModel` through the sync facade (``Session.send``); each turn's CPU time minus the CPU
   time spent inside the model's ``generate`` is the runtime's overhead (the sync facade, engine
   invocations, tool dispatch, argument validation, state copies, instruction assembly, events). Median and
   p99 in microseconds; the wall-clock median is printed beside it (it also counts time spent waiting for a
   core on a shared machine). CPU time is the process's (``time.process_time``: every thread, so the tool
   threads are in it, and a background loop thread if the facade ever needed one). The same bookings are
   also played through ``await session.asend`` on an event loop of this thread (what the server does), each
   booking right after its ``send`` twin: the difference is the facade's own work (this thread runs the
   facade's loop for each turn itself, ``slotgraph.runtime.sync_loop``).
2. **Cost per completed booking** — Slotgraph (engine-driven: hidden tools, preempted replies, executors
   fired by the engine) against a **prompt-only** agent run through the same loop: every tool visible on every
   call, no engine (a no-op stand-in), the DAG written out in the instruction, and the same *ideal* scripted
   model that always makes the right call — so it must say every question and readback itself and call the
   executors itself. Reported: model calls, and prompt tokens estimated as **characters / 4** of (a) the
   system instruction plus the tool schemas (JSON) of each call, (b) the same plus the conversation so far.
   The prompt-only instruction carries the process as a careful prompt engineer would write it for this
   agent (:data:`PROMPT_ONLY_PROCESS`: the order of questions, the read-backs, when to call each tool, the
   failure and escalation rules — about 1.7 KB of prose, not the config as JSON).
3. **Copies and validations per booking** — how often the state is deep-copied (calls of
   :func:`slotgraph.runtime.state_copy.copy_state`, the runtime's one copy, plus any ``copy.deepcopy`` made by
   slotgraph code) and validated (``validate_state``, and the engine entries' ``checked_copy``, which checks
   the state while copying it) in one booking, counted with :mod:`cProfile` on a booking played with
   ``asend`` in this thread.
4. **An agent with logic** — the median runtime overhead per turn (CPU minus the offline model's) of the
   clinic example (variables, rules, a gated tool) over its ``full_booking`` scenario's user turns, through
   ``asend``; printed for reference, without a goal of its own (docs/performance.md, section 3, "An agent
   with logic").
5. **Starting a session** — the median CPU time of ``agent.session()`` for the agent as loaded (its model
   from ``agent.yaml``, resolved for each session). It was ~2.2 ms until the model plugins' entry points
   were listed once per process (docs/performance.md, section 3, "Starting a session").

Goal (issue 23): runtime overhead per turn <= 150 µs median.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import datetime
import json
import pstats
import statistics
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from slotgraph.config import CompiledDag, compile_config
from slotgraph.engine import EngineAction, Reason
from slotgraph.runtime import (
    Agent,
    EngineResult,
    Model,
    ModelRequest,
    ModelResponse,
    ScriptedModel,
    ScriptedStep,
    call,
    estimate_prompt_tokens,
)

AGENT_DIR = Path(__file__).resolve().parents[1] / "examples" / "bella_notte"
GOAL_US = 150.0
NOW = datetime.datetime(2026, 7, 10, 12, 0)
# The name and the special requests are confirmed together (grouped readback, spec §7a).
USER_TURNS = ["Hi", "A table for 4 on July 17th", "yes", "7:30 please", "yes", "Chen", "no", "yes"]


class TimedModel:
    """Wraps a model and accumulates the wall and CPU time spent inside ``generate``."""

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


class NoEngine:
    """The prompt-only baseline: nothing hidden, nothing preempted, nothing routed."""

    def begin_turn(self, dag: CompiledDag, sm: Mapping[str, Any]) -> dict[str, Any]:
        return {"status": "in_progress", **sm}

    def invoke(self, dag: CompiledDag, sm: Mapping[str, Any], **_: Any) -> EngineResult:
        return EngineResult(dict(sm), EngineAction(reason=Reason.NEXT_QUESTION))

    def after_tool(self, dag: CompiledDag, sm: Mapping[str, Any], *_: Any) -> dict[str, Any]:
        return dict(sm)

    def confirm_pending(self, dag: CompiledDag, sm: Mapping[str, Any]) -> dict[str, Any]:
        return dict(sm)

    def reject_pending(self, dag: CompiledDag, sm: Mapping[str, Any]) -> dict[str, Any]:
        return dict(sm)


def slotgraph_script() -> list[ScriptedStep]:
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


def prompt_only_script() -> list[ScriptedStep]:
    times = "17:30, 18:00, 18:30, 19:00, 19:30, 20:00, 21:00"
    return [
        ScriptedStep(text="Welcome to Bella Notte! How many guests will be joining us?"),
        ScriptedStep(tool_calls=(call("set_reservation_basics", party_size=4, preferred_date="2026-07-17"),)),
        ScriptedStep(text="Just to confirm: 4 guests on July 17th?"),
        ScriptedStep(tool_calls=(call("confirm_pending"),)),
        ScriptedStep(tool_calls=(call("find_available_times", party_size=4, preferred_date="2026-07-17"),)),
        ScriptedStep(text=f"We have {times}. Which time works best for you?"),
        ScriptedStep(tool_calls=(call("set_selected_time", time="19:30"),)),
        ScriptedStep(text="7:30 PM — is that right?"),
        ScriptedStep(tool_calls=(call("confirm_pending"),)),
        ScriptedStep(text="Perfect! What name should I put the reservation under?"),
        ScriptedStep(tool_calls=(call("set_guest_info", guest_name="Chen"),)),
        ScriptedStep(text="Do you have any special requests or dietary needs?"),
        ScriptedStep(tool_calls=(call("set_guest_info", special_requests="None"),)),
        ScriptedStep(text="Under the name Chen, no special requests — correct?"),
        ScriptedStep(tool_calls=(call("confirm_pending"),)),
        ScriptedStep(
            tool_calls=(
                call(
                    "book_reservation",
                    party_size=4,
                    preferred_date="2026-07-17",
                    selected_time="19:30",
                    guest_name="Chen",
                    special_requests="None",
                ),
            )
        ),
        ScriptedStep(text="Your reservation is confirmed! Your confirmation number is BN-XXXX."),
    ]


PROMPT_ONLY_PROCESS = """\
<reservation_process>
Take a table reservation, one question at a time, in this order:
1. Greet: "Welcome to Bella Notte! I'd be happy to help you with a reservation."
2. Party size (set_reservation_basics.party_size), 1-12; larger groups: events@bellanotte.example.
3. Only for 5 or more guests: a contact phone number (set_large_party_phone).
4. The date (set_reservation_basics.preferred_date), not in the past.
   Read party size and date back ("4 guests on July 17th") and wait for a yes: confirm_pending on yes,
   reject_pending on a correction.
5. Once both are confirmed, call find_available_times(party_size, preferred_date) and offer its times. If
   it fails, say the day is fully booked and ask for another date; after 2 failures, apologise, give the
   number 555-0100 and call end_session(reason="retry_exhausted", session_escalated=true).
6. The time (set_selected_time): only one of the offered times. Read it back; confirm_pending on yes.
7. The name (set_guest_info.guest_name), then special requests or dietary needs
   (set_guest_info.special_requests). Read both back together; confirm_pending on yes.
8. Call book_reservation with party_size, preferred_date, selected_time, guest_name, special_requests (and
   large_party_phone if asked), then give the confirmation number. If it fails, try once more; then
   apologise, give 555-0100 and call end_session as above.
If a setter returns an error, ask again with a short explanation; after 3 errors on one value, give
555-0100 and call end_session. If the guest drifts off topic, steer back to the open question.
</reservation_process>"""


def prompt_only_instruction(base: str) -> str:
    """What a prompt-only agent must carry: the agent's instruction plus the whole process, in words."""
    return f"{base}\n\n{PROMPT_ONLY_PROCESS}"


async def play_async(agent: Agent) -> list[float]:
    """:func:`play`'s booking through ``asend`` on the running loop: each turn's CPU minus the model's."""
    model = ScriptedModel(slotgraph_script())
    timed = TimedModel(model)
    session = agent.session(model=timed, clock=lambda: NOW, seed=0)
    overheads = []
    for text in USER_TURNS:
        timed.seconds = timed.cpu_seconds = 0.0
        cpu = time.process_time()
        await session.asend(text)
        overheads.append(time.process_time() - cpu - timed.cpu_seconds)
    model.assert_complete()
    return overheads


def play(agent: Agent, script: list[ScriptedStep], *, engine: Any = None) -> dict[str, Any]:
    model = ScriptedModel(script)
    timed = TimedModel(model)
    session = agent.session(model=timed, clock=lambda: NOW, seed=0, engine=engine)
    overheads, walls = [], []
    for text in USER_TURNS:
        timed.seconds = timed.cpu_seconds = 0.0
        start, cpu = time.perf_counter(), time.process_time()
        session.send(text)
        overheads.append(time.process_time() - cpu - timed.cpu_seconds)
        walls.append(time.perf_counter() - start - timed.seconds)
    model.assert_complete()
    assert session.status == "complete" or engine is not None, session.state
    fixed = sum(
        (len(r.system_instruction) + sum(len(json.dumps(t.as_json())) for t in r.tools)) // 4
        for r in model.requests
    )
    total = sum(estimate_prompt_tokens(r) for r in model.requests)
    return {
        "calls": len(model.requests),
        "fixed_tokens": fixed,
        "total_tokens": total,
        "overheads": overheads,
        "walls": walls,
    }


ENGINE_STATE = str(Path("engine", "state.py"))


def _recursive(caller: tuple[str, int, str]) -> bool:
    """A call of ``copy_state`` made while copying (its comprehensions are frames of their own)."""
    return caller[0].endswith("state_copy.py") and caller[2] in ("copy_state", "<dictcomp>", "<listcomp>")


def count_per_booking(agent: Agent) -> tuple[int, int]:
    """State deep copies (``copy_state`` calls, ``copy.deepcopy`` calls from slotgraph code; recursion not
    counted) and ``validate_state`` calls in one booking."""
    profiler = cProfile.Profile()
    profiler.enable()
    asyncio.run(play_async(agent))
    profiler.disable()
    stats = pstats.Stats(profiler)
    copies = validations = 0
    for (filename, _, function), (_, _, _, _, callers) in stats.stats.items():  # type: ignore[attr-defined]
        if function == "deepcopy" and filename.endswith("copy.py"):
            copies += sum(counts[0] for caller, counts in callers.items() if "slotgraph" in caller[0])
        elif function in ("copy_state", "copy_state_dict") and filename.endswith("state_copy.py"):
            copies += sum(counts[0] for caller, counts in callers.items() if not _recursive(caller))
        elif function in ("validate_state", "checked_copy") and filename.endswith(ENGINE_STATE):
            # the engine's entries check the state while copying it (checked_copy), which calls
            # validate_state only to word an error: each check counts once
            validations += sum(counts[0] for caller, counts in callers.items() if caller[2] != "checked_copy")
    return copies, validations


def counted_per_booking(agent: Agent) -> tuple[int, int, str]:
    """:func:`count_per_booking`, and where it was counted."""
    return (*count_per_booking(agent), "this process")


CLINIC_DIR = Path(__file__).resolve().parents[1] / "examples" / "clinic"
CLINIC_SCENARIO = CLINIC_DIR / "scenarios" / "full_booking.yaml"


async def play_logic(agent: Agent, turns: list[str], now: datetime.datetime) -> list[float]:
    """One conversation of an agent with logic through ``asend`` with its own (offline) model: each turn's
    CPU minus the model's."""
    timed = TimedModel(agent.session().model)
    session = agent.session(model=timed, clock=lambda: now, seed=0)
    overheads = []
    for text in turns:
        timed.cpu_seconds = 0.0
        cpu = time.process_time()
        await session.asend(text)
        overheads.append(time.process_time() - cpu - timed.cpu_seconds)
    return overheads


def logic_turn_us(conversations: int) -> tuple[float, int]:
    """The median runtime overhead per turn of the clinic example (variables, rules, a gated tool, the
    offline model) over its ``full_booking`` scenario's user turns; and the number of turns per
    conversation."""
    scenario = yaml.safe_load(CLINIC_SCENARIO.read_text(encoding="utf-8"))
    turns = [str(turn["user"]) for turn in scenario["turns"]]
    now = datetime.datetime.fromisoformat(str(scenario["now"]))
    agent = Agent.load(CLINIC_DIR)
    overheads: list[float] = []
    with asyncio.Runner() as runner:
        runner.run(play_logic(agent, turns, now))  # warm-up
        for _ in range(conversations):
            overheads.extend(runner.run(play_logic(agent, turns, now)))
    return statistics.median(overheads) * 1e6, len(turns)


def session_start_us(agent: Agent, runs: int = 200) -> float:
    """Median CPU time of ``agent.session()`` with no model given: the agent's ``model:`` spec is resolved
    for each session (a new model per session), as a host that starts a session per conversation does."""
    times = []
    for _ in range(runs):
        cpu = time.process_time()
        agent.session()
        times.append(time.process_time() - cpu)
    return statistics.median(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--bookings", type=int, default=200)
    parser.add_argument(
        "--count-only", action="store_true", help="print the copies and validations of one booking, only"
    )
    args = parser.parse_args()
    if args.count_only:
        print(*count_per_booking(Agent.load(AGENT_DIR)))
        return

    agent = Agent.load(AGENT_DIR)
    overheads: list[float] = []
    walls: list[float] = []
    awaited: list[float] = []
    with asyncio.Runner() as runner:
        for _ in range(args.bookings):
            played = play(agent, slotgraph_script())
            overheads.extend(played["overheads"])
            walls.extend(played["walls"])
            awaited.extend(runner.run(play_async(agent)))
    overheads.sort()
    p99 = overheads[min(len(overheads) - 1, int(len(overheads) * 0.99))]
    median = statistics.median(overheads) * 1e6
    print(f"runtime overhead per turn ({len(overheads)} turns, model time excluded):")
    wall = statistics.median(walls) * 1e6
    print(f"  CPU median {median:7.0f} µs   p99 {p99 * 1e6:7.0f} µs   (wall median {wall:.0f} µs)")
    print(
        f"  through `await session.asend` (on this thread's own loop, without the facade), interleaved: "
        f"CPU median {statistics.median(awaited) * 1e6:.0f} µs"
    )
    copies, validations, where = counted_per_booking(agent)
    print(f"  per booking: {copies} state deep-copies, {validations} state validations (counted in {where})")
    start = session_start_us(agent)
    print(f"  starting a session (`agent.session()`, its model from agent.yaml): {start:.0f} µs CPU")
    logic, per = logic_turn_us(max(3, args.bookings // 4))
    print(f"  an agent with logic (examples/clinic, {per} turns, `asend`, model excluded): {logic:.0f} µs")

    baseline = Agent(
        name="prompt_only",
        dag=compile_config({"slots": [], "tasks": []}),
        tools=agent.tools,
        instruction=prompt_only_instruction(agent.instruction),
    )
    ours = play(agent, slotgraph_script())
    theirs = play(baseline, prompt_only_script(), engine=NoEngine())
    print(f"\nper completed Bella Notte booking ({len(USER_TURNS)} user turns; tokens = characters / 4):")
    print(f"  {'':28} {'slotgraph':>10} {'prompt-only':>12} {'ratio':>7}")
    for key, label in [
        ("calls", "model calls"),
        ("fixed_tokens", "prompt tokens (instr+tools)"),
        ("total_tokens", "prompt tokens (+ history)"),
    ]:
        print(f"  {label:28} {ours[key]:>10} {theirs[key]:>12} {ours[key] / theirs[key]:>7.2f}")
    print(f"GOAL\truntime overhead per turn (median)\t{median:.0f}\t<=\t{GOAL_US:g}\tµs")


if __name__ == "__main__":
    main()
