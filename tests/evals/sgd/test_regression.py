"""CI regression: a fixed subset of SGD dialogues replayed through the runtime must keep matching the gold."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.sgd import Dialogue, ServiceSchema, format_report, replay_dialogue, replay_dialogues

PINNED = json.loads((Path(__file__).parent / "regression_set.json").read_text(encoding="utf-8"))


def test_pinned_dialogues_still_match(
    schemas: dict[str, ServiceSchema], dialogues: dict[str, Dialogue]
) -> None:
    outcomes = {i: replay_dialogue(dialogues[i], schemas[dialogues[i].service]) for i in PINNED["replayed"]}
    regressed = [i for i in PINNED["must_match"] if not outcomes[i].matched]
    assert regressed == [], {i: (outcomes[i].runtime_calls, outcomes[i].gold_calls) for i in regressed}


def test_matched_dialogues_made_every_gold_call_and_nothing_else(
    schemas: dict[str, ServiceSchema], dialogues: dict[str, Dialogue]
) -> None:
    d = dialogues["1_00067"]  # several bookings in one dialogue: one follow-up session per further booking
    outcome = replay_dialogue(d, schemas[d.service])
    assert len(outcome.gold_calls) >= 2
    assert outcome.runtime_calls == outcome.gold_calls
    assert outcome.sessions == len(outcome.gold_calls)


def test_value_changed_at_the_readback_is_reconfirmed(
    schemas: dict[str, ServiceSchema], dialogues: dict[str, Dialogue]
) -> None:
    d = dialogues["1_00038"]  # "No, actually 3 people at 7:45 pm" answers the readback
    outcome = replay_dialogue(d, schemas[d.service])
    assert outcome.matched
    assert dict(outcome.runtime_calls[0][1])["party_size"] == "3"
    assert outcome.readbacks >= 2
    assert outcome.desyncs == ()


def test_report_ends_with_the_overall_line(
    schemas: dict[str, ServiceSchema], dialogues: dict[str, Dialogue]
) -> None:
    chosen = [dialogues[i] for i in PINNED["replayed"]]
    outcomes = replay_dialogues(chosen, schemas)
    lines = format_report(outcomes)
    matched = sum(o.matched for o in outcomes)
    assert lines[-1] == f"overall: {100.0 * matched / len(chosen):.1f}% of {len(chosen)} dialogues"
    assert any(line.startswith("Restaurants_1: ") for line in lines)
