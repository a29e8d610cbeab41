"""Event pre-fill (spec §12.1), ``fill_slots`` (§12.2) and the gate-slot verdict (§3.0a)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from tests.engine.bella import bella_dag, bella_raw
from tests.engine.spec_view import run_engine

from slotgraph.config import compile_config
from slotgraph.engine import EngineInputError, begin_turn, fill_slots, gate_open

DAG = bella_dag()


def test_fill_slots_writes_filled_and_reports_every_skip_reason() -> None:
    sm: dict[str, Any] = {"filled": {"party_size": 4}}
    before = copy.deepcopy(sm)
    new, report = fill_slots(
        sm,
        DAG,
        {
            "guest_name": "Chen",
            "party_size": 6,
            "ghost": 1,
            "large_party_phone": "555",
            "preferred_date": "x",
        },
    )
    assert sm == before  # pure
    assert report["filled"] == ["guest_name", "preferred_date"]
    assert report["skipped"] == ["party_size", "ghost", "large_party_phone"]
    assert report["skipped_reasons"] == {
        "party_size": "already_filled",
        "ghost": "unknown",
        "large_party_phone": "inactive",  # condition: party_size >= 5, and party_size is 4
    }
    assert new["filled"] == {"party_size": 4, "guest_name": "Chen", "preferred_date": "x"}


def test_fill_slots_judges_conditions_on_values_filled_earlier_in_the_same_call() -> None:
    _, report = fill_slots({}, DAG, {"party_size": 6, "large_party_phone": "555"})
    assert report["filled"] == ["party_size", "large_party_phone"]


def test_fill_slots_is_idempotent() -> None:
    once, _ = fill_slots({}, DAG, {"party_size": 4})
    twice, report = fill_slots(once, DAG, {"party_size": 4})
    assert twice == once and report == {"filled": [], "skipped": ["party_size"],
                                        "skipped_reasons": {"party_size": "already_filled"}}  # fmt: skip


def test_fill_slots_through_readback() -> None:
    new, _ = fill_slots({}, DAG, {"party_size": 4}, skip_readback=False)
    assert new["pending"] == {"party_size": 4} and new["filled"] == {}
    out = run_engine(DAG, new)
    assert out.action["message"].endswith("Just to confirm — 4 guests. Is that correct?")


def test_a_trusted_fill_replaces_a_pending_value() -> None:
    new, _ = fill_slots({"pending": {"party_size": 3}}, DAG, {"party_size": 4})
    assert new["filled"]["party_size"] == 4 and new["pending"] == {}


def test_fill_slots_is_logged() -> None:
    out = run_engine(DAG, {}, event_data={"party_size": 4}, debug=True)
    assert {"tag": "fill_slots", "slot": "party_size", "value": 4} in out.debug_log


@pytest.mark.parametrize(("values", "skip"), [([1], True), ({"party_size": 1}, "yes")])
def test_fill_slots_bad_input(values: Any, skip: Any) -> None:
    with pytest.raises(EngineInputError, match="fix:"):
        fill_slots({}, DAG, values, skip)


def test_event_prefill_skips_the_question_and_tells_the_model_the_right_next_question() -> None:
    out = run_engine(DAG, {}, event_data={"party_size": 4})
    assert out.sm["filled"] == {"welcome": True, "party_size": 4}
    assert out.sm["_event_prefilled_this_turn"] is True
    action = out.action
    assert action["event_prefilled"] is True
    assert action["message"] == (
        "Welcome to Bella Notte! I'd be happy to help you with a reservation."
        " What date would you like to join us?"
    )
    assert action["si_suffix"] == f"<system_directive>\n{action['message']}\n</system_directive>"
    assert "set_reservation_basics" not in action["hide_tools"]  # the date is still to be set with it


def test_event_prefill_is_idempotent_and_the_flag_lasts_one_turn() -> None:
    first = run_engine(DAG, {}, event_data={"party_size": 4})
    post_tool = run_engine(DAG, first.sm, event_data={"party_size": 4})
    assert post_tool.sm["filled"] == first.sm["filled"] and post_tool.action["event_prefilled"] is True
    next_turn = run_engine(DAG, post_tool.sm, last_user_text="hi", event_data={"party_size": 4})
    assert next_turn.action["event_prefilled"] is False and next_turn.action["si_suffix"] == ""
    assert "_event_prefilled_this_turn" not in begin_turn(DAG, first.sm)


def test_event_key_and_source_priority() -> None:
    raw = bella_raw()
    party = next(s for s in raw["slots"] if s["name"] == "party_size")
    party["event_key"] = "guests"
    dag = compile_config(raw)
    assert run_engine(dag, {}, event_data={"party_size": 4}).sm["filled"] == {"welcome": True}
    assert run_engine(dag, {}, event_data={"guests": 5}).sm["filled"]["party_size"] == 5
    # No event value (or None): the "user" source takes over and the question is asked.
    out = run_engine(dag, {}, event_data={"guests": None})
    assert out.action["message"].endswith("How many guests will be joining us?")


def test_a_user_value_takes_precedence_over_the_event() -> None:
    sm = {"pending": {"party_size": 6}}
    out = run_engine(DAG, sm, event_data={"party_size": 4})
    assert out.sm["pending"] == {"party_size": 6} and "party_size" not in out.sm["filled"]


def test_gate_open() -> None:
    raw = bella_raw() | {"gate_slot": "party_size"}
    dag = compile_config(raw)
    assert gate_open(DAG, {}) is True  # no gate
    assert gate_open(dag, {}) is False
    assert gate_open(dag, {"pending": {"party_size": 4}}) is True
    assert gate_open(dag, {"filled": {"party_size": 4}}) is True
    assert run_engine(dag, {}).action["gate_open"] is False
    assert run_engine(dag, {}, event_data={"party_size": 2}).action["gate_open"] is True
