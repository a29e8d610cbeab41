"""Benchmark Slotgraph against its peers on the README's booking: overhead per turn, model use, code written.

Run: ``.venv/bin/python benchmarks/peers.py [--bookings N] [--only slotgraph,langgraph] [--design record]``
(from the repository root; the peers come with ``pip install -e '.[bench]'``, a missing one is skipped with
its install hint).

The Bella Notte booking of the README (party size and date, read back; a time from the availability, read
back; name and special requests, read back together; the booking) is implemented in Slotgraph
(``examples/bella_notte``) and in LangGraph, pydantic-ai, the OpenAI Agents SDK and Google ADK, each written
the way its documentation teaches (``benchmarks/peer_apps/``), with the same backend functions and the same
seven user turns. A scripted model plays each — through the framework's own fake-model mechanism, one
script for every peer and Slotgraph's own for Slotgraph (``benchmarks/peer_apps/scripted.py``) — and every
implementation must give the README's seven replies, the booking's confirmation number included.

**Two designs of a peer, both taught by the peers' documentation** (``--design``):

* ``conversation`` (the default, and the goals' design): the agent-with-tools of each quickstart, the
  conversation carried by the documented multi-turn mechanism (LangGraph's checkpointer thread,
  pydantic-ai's ``message_history``, the Agents SDK's ``to_input_list()``, ADK's session). The model keeps
  the details in the conversation and calls a tool only to look up the times, to book (passing every
  detail, which the tool checks) and to hand over: the fewest model calls a prompt-driven agent can make
  (9 per booking) and the cheapest turns. It is the generous choice, so the goals are held against it.
* ``record``: the state guides' pattern — a tool records each detail in the framework's per-conversation
  state as the guest gives it (ADK's ``tool_context.state``, LangGraph's ``Command`` update from a tool,
  the Agents SDK's context object, pydantic-ai's dependencies; see each ``*_record_app.py``), checked with
  Slotgraph's own setters, and the booking reads the state. It is what Slotgraph does (its setters record
  the values in the session's state), what an app does when it must hold checked values between turns, and
  it costs the peers 13 model calls per booking. A "yes" is only conversation for a peer (no
  confirmation tool), so the model never calls one for it.

Measured, the implementations interleaved booking by booking in one event loop (the order rotated each
round; one warm-up booking each, not counted):

1. **Framework overhead per turn** — each turn's CPU time (``time.process_time``, every thread) minus the
   CPU time spent inside the scripted model (its conversion of the framework's request included): median
   and 90th percentile, in µs, and the ratio to the fastest peer.
2. **Model calls and prompt tokens per booking** — tokens estimated by one rule for all,
   ``slotgraph.models.scripted.estimate_prompt_tokens`` (system instruction + tool schemas as JSON + the
   conversation, characters / 4), summed over the booking's model calls.
3. **What the developer had to write** — non-blank lines that are not comments (module docstrings left
   out) of the implementation's own files: for Slotgraph ``agent.yaml``, ``dag.yaml`` and the few lines
   that hold a conversation; for a peer its app module, ``shared.py`` (the process written out in its
   instruction, the hand-over tool) and its design's tools (``booking.py`` or ``recorded.py``). The backend
   (``examples/bella_notte/tools.py``, whose validators the peers' tools call too) and the persona
   (``instruction.md``) are shared and counted for none.

Goal (issue 43): Slotgraph's overhead per turn at most 1/10 of the fastest peer's; model calls and prompt
tokens per booking no more than the fewest of the peers'.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import contextlib
import datetime
import importlib
import importlib.util
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks.peer_apps import scripted  # noqa: E402
from benchmarks.peer_apps.backend import EXAMPLE, backend  # noqa: E402

from slotgraph import ScriptedModel, ScriptedStep, call  # noqa: E402
from slotgraph.models.protocol import ModelRequest, ToolResultMessage  # noqa: E402
from slotgraph.models.scripted import estimate_prompt_tokens  # noqa: E402

TODAY = datetime.date(2026, 7, 10)  # a Friday: "next Friday" is July 17th, as in the README
OVERHEAD_GOAL = 0.1
APPS = ROOT / "benchmarks" / "peer_apps"

TURNS = ["A table for 4 next Friday", "yes", "7:30 pm", "yes", "under Chen", "no special requests", "yes"]
BOOKING = {
    "party_size": 4,
    "preferred_date": "2026-07-17",
    "selected_time": "19:30",
    "guest_name": "Chen",
    "special_requests": "None",
}
TIMES = backend.find_available_times(4, "2026-07-17")["available_times"]
CONFIRMATION = backend.book_reservation(**BOOKING)["confirmation_number"]
REPLIES = [
    "Just to confirm — 4 guests, on July 17th. Is that correct?",
    f"We have {TIMES}. Which time works best for you?",
    "Just to confirm — at 7:30 PM. Is that correct?",
    "Perfect! What name should I put the reservation under?",
    "Do you have any special requests or dietary needs we should know about?",
    "Just to confirm — under the name Chen, no special requests. Is that correct?",
    f"Your reservation is confirmed! Your confirmation number is {CONFIRMATION}.",
]


def _answered(text: str) -> Callable[[ModelRequest], bool]:
    """A step's check: the request's last message is a tool result that mentions ``text`` (the tool ran)."""

    def check(request: ModelRequest) -> bool:
        last = request.messages[-1] if request.messages else None
        return isinstance(last, ToolResultMessage) and text in str(last.result)

    return check


def _recorded(name: str) -> Callable[[ModelRequest], bool]:
    """A step's check: the request's last message is ``record_details``' result, which recorded ``name``
    and reported no error (a framework may hand the result over as the text of a dict)."""

    def check(request: ModelRequest) -> bool:
        last = request.messages[-1] if request.messages else None
        if not isinstance(last, ToolResultMessage):
            return False
        result = last.result
        if isinstance(result, str):
            with contextlib.suppress(ValueError, SyntaxError):
                result = ast.literal_eval(result)
        return isinstance(result, dict) and name in result.get("recorded", {}) and not result.get("errors")

    return check


def slotgraph_steps() -> list[ScriptedStep]:
    """What the model does under Slotgraph: it records what the guest said and words the engine's next
    move; the engine confirms a plain "yes", fires the tasks and asks the questions it owns."""
    return [
        ScriptedStep(tool_calls=(call("set_reservation_basics", party_size=4, preferred_date="2026-07-17"),)),
        ScriptedStep(text=REPLIES[0]),
        ScriptedStep(tool_calls=(call("set_selected_time", time="19:30"),)),
        ScriptedStep(text=REPLIES[2]),
        ScriptedStep(tool_calls=(call("set_guest_info", guest_name="Chen"),)),
        ScriptedStep(text=REPLIES[4]),
        ScriptedStep(tool_calls=(call("set_guest_info", special_requests="None"),)),
        ScriptedStep(text=REPLIES[5]),
    ]


def peer_steps(design: str) -> list[ScriptedStep]:
    """What the model does for a prompt-driven peer: everything. In the conversation design, with the
    fewest calls — it keeps the details in the conversation, looks up the times once they are confirmed and
    books at the last yes; in the record design it also records each detail as the guest gives it."""
    if design == "record":
        return record_steps()
    return [
        ScriptedStep(text=REPLIES[0]),
        ScriptedStep(tool_calls=(call("find_available_times", party_size=4, preferred_date="2026-07-17"),)),
        ScriptedStep(text=REPLIES[1], check=_answered(TIMES)),
        ScriptedStep(text=REPLIES[2]),
        ScriptedStep(text=REPLIES[3]),
        ScriptedStep(text=REPLIES[4]),
        ScriptedStep(text=REPLIES[5]),
        ScriptedStep(tool_calls=(call("book_reservation", **BOOKING),)),
        ScriptedStep(text=REPLIES[6], check=_answered(CONFIRMATION)),
    ]


def record_steps() -> list[ScriptedStep]:
    """The record design's script: each detail recorded as given, then the same replies."""
    return [
        ScriptedStep(tool_calls=(call("record_details", party_size=4, preferred_date="2026-07-17"),)),
        ScriptedStep(text=REPLIES[0], check=_recorded("preferred_date")),
        ScriptedStep(tool_calls=(call("find_available_times"),)),
        ScriptedStep(text=REPLIES[1], check=_answered(TIMES)),
        ScriptedStep(tool_calls=(call("record_details", selected_time="19:30"),)),
        ScriptedStep(text=REPLIES[2], check=_recorded("selected_time")),
        ScriptedStep(text=REPLIES[3]),
        ScriptedStep(tool_calls=(call("record_details", guest_name="Chen"),)),
        ScriptedStep(text=REPLIES[4], check=_recorded("guest_name")),
        ScriptedStep(tool_calls=(call("record_details", special_requests="None"),)),
        ScriptedStep(text=REPLIES[5], check=_recorded("special_requests")),
        ScriptedStep(tool_calls=(call("book_reservation"),)),
        ScriptedStep(text=REPLIES[6], check=_answered(CONFIRMATION)),
    ]


@dataclass(frozen=True)
class Implementation:
    name: str
    requires: str  # the module that must import
    package: str  # the distribution that brings it
    module: str  # benchmarks/peer_apps/<module>.py; a peer's record design: <module>_record_app.py
    fake_model: Callable[[scripted.Player], Any]
    new_chat: Callable[[Any, Any], Awaitable[Any]]  # (module, built app) -> a conversation

    @property
    def peer(self) -> bool:
        return self.name != "slotgraph"

    def available(self) -> bool:
        try:
            return importlib.util.find_spec(self.requires) is not None
        except (ModuleNotFoundError, ValueError):  # a parent package missing; a module set to None
            return False

    def module_for(self, design: str) -> str:
        if self.peer and design == "record":
            return f"{self.module.removesuffix('_app')}_record_app"
        return self.module

    def steps(self, design: str) -> list[ScriptedStep]:
        return peer_steps(design) if self.peer else slotgraph_steps()

    def written_files(self, design: str) -> list[Path]:
        """What the developer wrote: Slotgraph's config and the few lines that hold a conversation; a
        peer's app module, the shared instruction and its design's tools (a record app that reuses the
        conversation app's loop is not charged for it)."""
        own = APPS / f"{self.module_for(design)}.py"
        if not self.peer:
            return [own, EXAMPLE / "agent.yaml", EXAMPLE / "dag.yaml"]
        return [own, APPS / "shared.py", APPS / ("recorded.py" if design == "record" else "booking.py")]


async def _plain_chat(module: Any, app: Any) -> Any:
    return module.Chat(app)


async def _slotgraph_chat(module: Any, app: Any) -> Any:
    return module.Chat(app, TODAY)


async def _adk_chat(module: Any, app: Any) -> Any:
    return await module.Chat.start(app)


IMPLEMENTATIONS = [
    Implementation(
        "slotgraph", "slotgraph", "slotgraph", "slotgraph_app", scripted.TimedModel, _slotgraph_chat
    ),
    Implementation(
        "langgraph", "langgraph", "langgraph", "langgraph_app", scripted.langchain_model, _plain_chat
    ),
    Implementation(
        "pydantic-ai",
        "pydantic_ai",
        "pydantic-ai-slim",
        "pydantic_ai_app",
        scripted.pydantic_ai_model,
        _plain_chat,
    ),
    Implementation(
        "openai-agents",
        "agents",
        "openai-agents",
        "openai_agents_app",
        scripted.openai_agents_model,
        _plain_chat,
    ),
    Implementation("google-adk", "google.adk", "google-adk", "adk_app", scripted.adk_model, _adk_chat),
]
DESIGNS = ("conversation", "record")


@dataclass
class Booking:
    overheads: list[float]  # seconds of CPU per turn, model excluded
    calls: int
    tokens: int


class Runner:
    """One implementation, built once; each :meth:`book` plays one conversation with a fresh script."""

    def __init__(self, impl: Implementation, design: str) -> None:
        self.impl, self.design = impl, design
        self.module = importlib.import_module(f"benchmarks.peer_apps.{impl.module_for(design)}")
        self.player = scripted.Player(ScriptedModel([]))
        self.app = self.module.build(impl.fake_model(self.player), TODAY)

    async def book(self) -> Booking:
        script = self.player.script = ScriptedModel(self.impl.steps(self.design))
        chat = await self.impl.new_chat(self.module, self.app)
        overheads, replies = [], []
        for text in TURNS:
            model_before, cpu = self.player.cpu, time.process_time()
            replies.append(await chat.send(text))
            overheads.append(time.process_time() - cpu - (self.player.cpu - model_before))
        script.assert_complete()
        if replies != REPLIES:
            raise AssertionError(f"{self.impl.name} did not play the README booking: {replies}")
        tokens = sum(estimate_prompt_tokens(request) for request in script.requests)
        return Booking(overheads, len(script.requests), tokens)


def written_lines(path: Path) -> int:
    """Non-blank lines that are not comments; a Python module's docstring left out."""
    text = path.read_text(encoding="utf-8")
    skip: set[int] = set()
    if path.suffix == ".py":
        tree = ast.parse(text)
        if ast.get_docstring(tree) is not None:
            first = tree.body[0]
            skip = set(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return sum(
        1
        for number, line in enumerate(text.splitlines(), 1)
        if number not in skip and line.strip() and not line.strip().startswith("#")
    )


def goal(name: str, measured: float, target: float) -> None:
    """A goal line for ``benchmarks/summary.py``: a ratio, at most ``target``."""
    print(f"GOAL\tpeers: {name}\t{measured:.3f}\t<=\t{target:g}\t×")


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--bookings", type=int, default=30, help="bookings per implementation (default 30)")
    parser.add_argument("--only", default="", help="comma-separated implementations (default: all)")
    parser.add_argument(
        "--design",
        choices=DESIGNS,
        default="conversation",
        help="where a peer keeps the details: in the conversation (default; the goals' design) or recorded "
        "in the framework's state by a tool",
    )
    args = parser.parse_args()
    names = [impl.name for impl in IMPLEMENTATIONS]
    only = [name.strip() for name in args.only.split(",") if name.strip()]
    if unknown := [name for name in only if name not in names]:
        parser.error(f"--only: unknown {', '.join(unknown)}; choose from {', '.join(names)}")
    if args.bookings < 1:
        parser.error("--bookings: at least 1")
    chosen = [impl for impl in IMPLEMENTATIONS if not only or impl.name in only]
    present = [i for i in chosen if i.available()]
    for impl in chosen:
        if impl not in present:
            print(
                f"skipped {impl.name}: {impl.package} is not installed "
                f"(pip install -e '.[bench]', or pip install {impl.package})"
            )

    runners = [Runner(impl, args.design) for impl in present]
    results: dict[str, list[Booking]] = {r.impl.name: [] for r in runners}
    with asyncio.Runner() as loop:
        for runner in runners:
            loop.run(runner.book())  # warm-up: lazy imports and first-use set-up
        for round_ in range(args.bookings):
            shift = round_ % len(runners)
            for runner in runners[shift:] + runners[:shift]:
                results[runner.impl.name].append(loop.run(runner.book()))

    rows = {}
    for impl in present:
        bookings = results[impl.name]
        overheads = [t for b in bookings for t in b.overheads]
        rows[impl.name] = {
            "median": statistics.median(overheads) * 1e6,
            "p90": _p90(overheads) * 1e6,
            "calls": bookings[0].calls,
            "tokens": bookings[0].tokens,
            "lines": sum(written_lines(path) for path in impl.written_files(args.design)),
        }
    peers = [name for name in rows if name != "slotgraph"]
    print(
        f"\nthe README booking ({len(TURNS)} user turns), {args.bookings} bookings per implementation, "
        f"interleaved; the peers' {args.design} design; scripted models, model time excluded; "
        "tokens = characters / 4"
    )
    fastest = min(peers, key=lambda name: rows[name]["median"]) if peers else None
    header = ("", "overhead/turn", "p90", "× fastest peer", "model calls", "prompt tokens", "lines written")
    table = [header]
    for name, row in rows.items():
        ratio = f"{row['median'] / rows[fastest]['median']:.3f}" if fastest else "—"
        table.append(
            (
                name,
                f"{row['median']:,.0f} µs",
                f"{row['p90']:,.0f} µs",
                ratio,
                str(row["calls"]),
                f"{row['tokens']:,}",
                str(row["lines"]),
            )
        )
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for r in table:
        cells = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        print("  " + "  ".join(cells))
    if "slotgraph" not in rows or fastest is None:
        print("no goal: it needs Slotgraph and at least one peer (pip install -e '.[bench]')")
        return 0
    ours = rows["slotgraph"]
    fewest_calls = min(rows[name]["calls"] for name in peers)
    fewest_tokens = min(rows[name]["tokens"] for name in peers)
    design = f"{args.design} design"
    goal(
        f"overhead per turn, Slotgraph / fastest peer ({fastest}, {design})",
        ours["median"] / rows[fastest]["median"],
        OVERHEAD_GOAL,
    )
    goal(
        f"model calls per booking, Slotgraph / fewest of the peers ({design})",
        ours["calls"] / fewest_calls,
        1,
    )
    goal(
        f"prompt tokens per booking, Slotgraph / fewest of the peers ({design})",
        ours["tokens"] / fewest_tokens,
        1,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
