"""Replaying with a real model: the held-out split, the recorder and the divergence taxonomy."""

from __future__ import annotations

import pytest
from benchmarks.sgd import (
    Dialogue,
    GoldBackend,
    ServiceSchema,
    convert_service,
    load_dialogues,
    replay_dialogue,
)
from benchmarks.sgd.data import Act, UserTurn
from benchmarks.sgd.live import ModelCall, divergence, make_model
from benchmarks.sgd.metrics import first_divergences, format_report
from benchmarks.sgd.replay import SGD_TODAY
from benchmarks.sgd.split import HELDOUT_IDS, HELDOUT_MORE_IDS, is_held_out, rule_more, rule_train, select

from .conftest import DATA


def _turn(utterance: str, *acts: Act) -> UserTurn:
    return UserTurn(0, utterance, acts, "X", {})


def test_the_split_is_the_recorded_one_and_about_a_third(dialogues: dict[str, Dialogue]) -> None:
    held = select(sorted(dialogues.values(), key=lambda d: d.dialogue_id), "heldout")
    tuning = select(list(dialogues.values()), "tuning")
    assert [d.dialogue_id for d in held] == HELDOUT_IDS.read_text(encoding="utf-8").split()
    assert len(held) + len(tuning) == len(dialogues)
    assert 0.2 < len(held) / len(dialogues) < 0.4
    assert {d.service for d in held} == {d.service for d in dialogues.values()}
    assert all(is_held_out(d.dialogue_id) for d in held)
    assert rule_train(dialogues) == [d.dialogue_id for d in held]


def test_the_train_more_split_is_the_recorded_one() -> None:
    more = DATA.parent / "train_more"
    if not (more / "schema.json").is_file():
        pytest.skip(f"SGD train_more data not found at {more}")
    ids = [d.dialogue_id for d in load_dialogues(more)]
    held = rule_more(ids)
    assert held == HELDOUT_MORE_IDS.read_text(encoding="utf-8").split()
    assert len(held) == round(0.3 * len(ids))
    assert all(is_held_out(i) for i in held)
    assert not set(held) & set(HELDOUT_IDS.read_text(encoding="utf-8").split())
    tuning = [i for i in ids if not is_held_out(i)]
    assert len(tuning) + len(held) == len(ids)


def test_divergence_names_the_first_difference(schemas: dict[str, ServiceSchema]) -> None:
    agent = convert_service(schemas["Restaurants_1"], GoldBackend(()))
    shown = frozenset({"set_intent", "set_city", "set_time", "set_find_restaurants_city"})
    intent = Act("INFORM_INTENT", "intent", ("ReserveRestaurant",), ("ReserveRestaurant",))
    city = Act("INFORM", "city", ("SF",), ("San Francisco",))
    turn = _turn("Book a table in SF", intent, city)
    nothing = divergence(turn, agent, [ModelCall(shown, ())])
    assert nothing is not None and nothing.reason == "intent not recognised"
    right_intent = ("set_intent", {"intent": "ReserveRestaurant"})
    wrong_city = divergence(turn, agent, [ModelCall(shown, (right_intent, ("set_city", {"city": "SF"})))])
    assert wrong_city is not None and wrong_city.reason == "wrong value: city"
    both = (right_intent, ("set_city", {"city": "san francisco"}))
    assert divergence(turn, agent, [ModelCall(shown, both)]) is None
    extra = (*both, ("set_time", {"time": "10:00"}))
    found = divergence(turn, agent, [ModelCall(shown, extra)])
    assert found is not None and found.reason == "value for a slot the user did not give: time"
    yes = _turn("yes", Act("AFFIRM", "", (), ()))
    missed = divergence(yes, agent, [ModelCall(frozenset({"confirm_pending"}), ())])
    assert missed is not None and missed.reason == "missed yes"


def test_a_real_model_replays_and_the_report_names_the_failures(
    schemas: dict[str, ServiceSchema], dialogues: dict[str, Dialogue]
) -> None:
    chosen = [dialogues[i] for i in sorted(dialogues)[:6]]
    outcomes = [replay_dialogue(d, schemas[d.service], make_model("offline", SGD_TODAY)) for d in chosen]
    assert all(o.model_calls > 0 for o in outcomes)
    missed = [o for o in outcomes if o.needs_booking and not o.matched]
    assert sum(first_divergences(outcomes).values()) == len(missed)
    lines = format_report(outcomes, show=True)
    assert any(line.startswith("Restaurants_1: ") and "bookings exact" in line for line in lines)
    assert lines[-1].startswith("overall: ")


def test_the_summary_says_nothing_about_single_dialogues(
    schemas: dict[str, ServiceSchema], dialogues: dict[str, Dialogue]
) -> None:
    chosen = [dialogues[i] for i in sorted(dialogues)[:4]]
    outcomes = [replay_dialogue(d, schemas[d.service], make_model("offline", SGD_TODAY)) for d in chosen]
    full = format_report(outcomes, show=True)
    lines = format_report(outcomes, summary=True)
    assert lines[-1] == full[-1] and lines[-1].startswith("overall: ")
    assert all(not line.startswith(("mismatch", "first divergence", "desync")) for line in lines)
    assert not any(d.dialogue_id in line for d in chosen for line in lines)
    assert any(line.startswith("model latency per call") for line in lines)
