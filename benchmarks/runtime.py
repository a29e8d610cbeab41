"""Benchmark the runtime: overhead per turn, and model calls / prompt tokens per completed booking.

Run: ``.venv/bin/python benchmarks/runtime.py [--bookings N]`` (from the repository root).

1. **Runtime overhead per turn** — a full Bella Notte booking (8 user turns) is played N times with a
   :class:`ScriptedModel`; each turn's wall time minus the time spent inside the model's ``generate`` is the
   runtime's overhead (engine invocations, tool dispatch, argument validation, state copies, instruction
   assembly, events). Median and p99 in microseconds.
2. **Cost per completed booking** — Slotgraph (engine-driven: hidden tools, preempted replies, executors
   fired by the engine) against a **prompt-only** agent run through the same loop: every tool visible on every
   call, no engine (a no-op stand-in), the DAG written out in the instruction, and the same *ideal* scripted
   model that always makes the right call — so it must say every question and readback itself and call the
   executors itself. Reported: model calls, and prompt tokens estimated as **characters / 4** of (a) the
   system instruction plus the tool schemas (JSON) of each call, (b) the same plus the conversation so far.
   The prompt-only instruction carries the DAG as compact JSON plus five lines of rules — a lower bound on
   what a hand-written prompt would need.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from slotgraph.config import CompiledDag, compile_config
from slotgraph.runtime import (
    Agent,
    EngineOutcome,
    ModelRequest,
    ModelResponse,
    ScriptedModel,
    ScriptedStep,
    call,
    estimate_prompt_tokens,
)

AGENT_DIR = Path(__file__).resolve().parents[1] / "examples" / "bella_notte"
NOW = datetime.datetime(2026, 7, 10, 12, 0)
# The name and the special requests are confirmed together (grouped readback, spec §7a).
USER_TURNS = ["Hi", "A table for 4 on July 17th", "yes", "7:30 please", "yes", "Chen", "no", "yes"]


class TimedModel:
    """Wraps a model and accumulates the time spent inside ``generate``."""

    def __init__(self, inner: ScriptedModel) -> None:
        self.inner = inner
        self.seconds = 0.0

    async def generate(self, request: ModelRequest) -> ModelResponse:
        start = time.perf_counter()
        try:
            return await self.inner.generate(request)
        finally:
            self.seconds += time.perf_counter() - start


class NoEngine:
    """The prompt-only baseline: nothing hidden, nothing preempted, nothing routed."""

    def begin_turn(self, dag: CompiledDag, sm: Mapping[str, Any]) -> dict[str, Any]:
        return {"status": "in_progress", **sm}

    def invoke(self, dag: CompiledDag, sm: Mapping[str, Any], **_: Any) -> EngineOutcome:
        return EngineOutcome(dict(sm), {})

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


def prompt_only_instruction(base: str, raw_dag: Mapping[str, Any]) -> str:
    """What a prompt-only agent must carry: the whole DAG, in words (here: its config as JSON)."""
    rules = (
        "Collect the slots below in order, asking each slot's question. Read back values marked "
        "requires_readback and call confirm_pending when the user confirms, reject_pending when not. Call a "
        "task's tool yourself as soon as all its inputs are confirmed; on failure follow on_failure (retry, "
        "clear slots, escalate after max_retries). Use the configured error messages for invalid values. "
        "Never call a tool before its requirements are met."
    )
    dag_json = json.dumps(raw_dag, separators=(",", ":"))
    return f"{base}\n\n<reservation_process>\n{rules}\n{dag_json}\n</reservation_process>"


def play(agent: Agent, script: list[ScriptedStep], *, engine: Any = None) -> dict[str, Any]:
    model = ScriptedModel(script)
    timed = TimedModel(model)
    session = agent.session(model=timed, clock=lambda: NOW, seed=0, engine=engine)
    overheads = []
    for text in USER_TURNS:
        timed.seconds = 0.0
        start = time.perf_counter()
        session.send(text)
        overheads.append(time.perf_counter() - start - timed.seconds)
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
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--bookings", type=int, default=200)
    args = parser.parse_args()

    agent = Agent.load(AGENT_DIR)
    overheads: list[float] = []
    for _ in range(args.bookings):
        overheads.extend(play(agent, slotgraph_script())["overheads"])
    overheads.sort()
    p99 = overheads[min(len(overheads) - 1, int(len(overheads) * 0.99))]
    print(f"runtime overhead per turn ({len(overheads)} turns, model time excluded):")
    print(f"  median {statistics.median(overheads) * 1e6:9.0f} µs   p99 {p99 * 1e6:9.0f} µs")

    from slotgraph.config import load_definition

    raw_dag = load_definition(AGENT_DIR).raw_dag
    baseline = Agent(
        name="prompt_only",
        dag=compile_config({"slots": [], "tasks": []}),
        tools=agent.tools,
        instruction=prompt_only_instruction(agent.instruction, raw_dag),
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


if __name__ == "__main__":
    main()
