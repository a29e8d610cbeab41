"""How the offline model's planning time grows with the length of a message (stdlib only).

Run: ``.venv/bin/python benchmarks/offline_growth.py [--quick]`` (from the repository root; ``src`` is
added to the path).

The server accepts messages of up to 8,000 characters, and the offline model reads the whole message:
its parsers must stay linear in the message's length, or one long message costs seconds of CPU (it did:
counts, dates and amounts tested each match against every earlier one, and a party phrase was searched for
in the whole text before every number, ~5 s for 8,000 characters of numbers).

**Inputs.** Messages made by repeating one piece until they reach 1,000 and 8,000 characters: numbers
("4 "), number words, dates, clock times, amounts, names and a booking sentence with all of them; each is
planned with the Bella Notte-like tools of the offline model's accuracy cases (every slot type asked).

**Figure.** Every plan parses its message afresh (nothing is kept across plans; within a plan a message is
parsed once per parser, as a real plan does it). For each piece, the
growth exponent ``log(t_8000 / t_1000) / log(8)`` of the median CPU time per plan (1 is linear, 2
quadratic); the goal is the worst piece <= 1.15, as for the engine's growth.
``--long N`` measures up to N characters instead of 8,000 (the smoke test uses a short one).
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import statistics
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from slotgraph.models.offline import plan_turn

EXPONENT_GOAL = 1.15
CLOCK = time.process_time
SHORT, LONG = 1_000, 8_000
NOW = dt.datetime(2026, 7, 10, 12, 0)
INSTRUCTION = (
    "<slot_filling_protocol>\nCollect the information by calling setter tools.\n</slot_filling_protocol>"
)

PIECES = {
    "digits": "4 ",
    "number words": "twenty-one ",
    "dates": "June 5th, ",
    "times": "7:30 pm ",
    "amounts": "$2,500 ",
    "people": "a table for 4 ",
    "names": "Maria Rossi ",
    "phones": "555-0100 ",
    "denials": "not 5, ",
    "sentence": "A table for 4 next Friday at 7:30 pm under Chen, about $120, call 555-0100. ",
}


def _setter(name: str, param: str, kind: str, description: str) -> Mapping[str, Any]:
    schema: dict[str, Any] = {"type": kind, "description": description}
    if kind == "string" and param == "date":
        schema["format"] = "date"
    return {
        "name": name,
        "description": f"Set {description}",
        "parameters": {"type": "object", "properties": {param: schema}, "required": [param]},
    }


TOOLS = (
    _setter("set_party_size", "party_size", "integer", "the number of guests"),
    _setter("set_date", "date", "string", "the reservation date"),
    _setter("set_time", "time", "string", "the reservation time, e.g. 19:30"),
    _setter("set_name", "name", "string", "the name for the reservation"),
    _setter("set_budget", "budget", "number", "the budget in dollars"),
    _setter("set_phone", "phone", "string", "a phone number"),
)


def message(piece: str, length: int) -> str:
    """``piece`` repeated until the message is ``length`` characters (cut at the last whole piece)."""
    return (piece * (length // len(piece) + 1))[:length]


def cpu_per_plan(text: str, repeats: int) -> float:
    """Median CPU seconds of one plan of ``text``."""
    samples = []
    for _ in range(repeats):
        started = CLOCK()
        plan_turn(TOOLS, system_instruction=INSTRUCTION, user_text=text, now=NOW)
        samples.append(CLOCK() - started)
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    parser.add_argument("--long", type=int, default=LONG, help=f"the long message's length ({LONG:,})")
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else 7
    long_length = args.long
    if long_length <= SHORT:
        parser.error(f"--long must be more than {SHORT:,}")
    print(f"offline model: CPU per plan at {SHORT:,} and {long_length:,} characters (median of {repeats})\n")
    print(f"  {'piece':<14} {f'{SHORT:,} chars':>12} {f'{long_length:,} chars':>12} {'exponent':>9}")
    worst = 0.0
    for name, piece in PIECES.items():
        short = cpu_per_plan(message(piece, SHORT), repeats)
        long = cpu_per_plan(message(piece, long_length), repeats)
        exponent = math.log(max(long, 1e-9) / max(short, 1e-9)) / math.log(long_length / SHORT)
        worst = max(worst, exponent)
        print(f"  {name:<14} {short * 1e3:>9.2f} ms {long * 1e3:>9.2f} ms {exponent:>9.2f}")
    print(f"\nworst growth exponent: {worst:.2f} (goal <= {EXPONENT_GOAL:g}; 1 is linear)")
    label = f"offline model growth exponent, {SHORT:,} to {long_length:,} characters"
    print(f"GOAL\t{label}\t{worst:.2f}\t<=\t{EXPONENT_GOAL:g}\t")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
