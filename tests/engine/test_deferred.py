"""Deferred (grouped) readback, spec §7a: eligibility (§7a.2), group completion (§7a.3), the hints (§7a.4),
re-deferral (§19.2 ``re_deferred``) and the interaction rules (§7a.6)."""

from __future__ import annotations

from typing import Any

from tests.engine.bella import TIMES, after_times, bella_dag, bella_raw
from tests.engine.spec_view import run_engine

from slotgraph.config import compile_config
from slotgraph.engine import (
    after_tool,
    confirm_pending,
    deferred_eligible,
    find_next_question,
    reject_pending,
)

DAG = bella_dag()


def _eligible(name: str, task_results: dict[str, Any] | None = None) -> bool:
    return deferred_eligible(DAG, DAG.slot(name), task_results or {})


def test_eligibility_on_bella_notte_as_the_spec_lists_it() -> None:
    """§7a.2 "Example": party_size/preferred_date fail condition 3, selected_time fails condition 4,
    guest_name and special_requests pass all four."""
    assert not _eligible("party_size")
    assert not _eligible("preferred_date")
    assert not _eligible("selected_time")
    assert _eligible("guest_name")
    assert _eligible("special_requests")


def test_condition_1_only_readback_slots() -> None:
    assert not _eligible("large_party_phone")  # input of BookReservation, but no requires_readback


def test_condition_3_only_incomplete_tasks_block() -> None:
    """Once FindAvailableTimes has succeeded it no longer needs party_size confirmed immediately."""
    done = {"FindAvailableTimes": {"success": True, "available_times": TIMES}}
    assert _eligible("party_size", done)


def test_condition_2_needs_a_grouped_task() -> None:
    raw = bella_raw()
    for task in raw["tasks"]:
        task.pop("readback_inputs", None)
    dag = compile_config(raw)
    assert not deferred_eligible(dag, dag.slot("guest_name"), {})


def test_condition_4_direct_task_sourced_requires() -> None:
    raw = bella_raw()
    next(s for s in raw["slots"] if s["name"] == "guest_name")["requires"] = ["available_times"]
    dag = compile_config(raw)
    assert not deferred_eligible(dag, dag.slot("guest_name"), {})


def _set(sm: dict[str, Any], **values: Any) -> dict[str, Any]:
    return after_tool(sm, DAG, "set_guest_info", values, {"stored": True, "values": values})


def test_a_deferred_value_leaves_pending_and_the_model_is_told_not_to_read_it_back() -> None:
    out = run_engine(DAG, _set(after_times(), guest_name="Chen"))
    assert out.sm["pending"] == {} and out.sm["deferred"] == {"guest_name": "Chen"}
    action = out.action
    assert action["phase"] == "collection"
    assert action["message"] == "Do you have any special requests or dietary needs we should know about?"
    assert action["si_suffix"] == (
        "<deferred_collection>\n"
        "The value(s) just collected (guest_name) are noted and will be confirmed later together with "
        "related information. Do NOT read them back or ask for confirmation now. Instead, proceed to ask: "
        "Do you have any special requests or dietary needs we should know about?\n"
        "</deferred_collection>"
    )
    # §7a.6 tool visibility: deferred values do not make a readback phase.
    assert {"confirm_pending", "reject_pending"} <= set(action["hide_tools"])
    assert "set_guest_info" not in action["hide_tools"]


def test_the_hint_is_only_given_when_values_were_just_deferred() -> None:
    first = run_engine(DAG, _set(after_times(), guest_name="Chen"))
    again = run_engine(DAG, first.sm, last_user_text="hmm, let me think")
    assert again.sm["deferred"] == {"guest_name": "Chen"} and again.action["si_suffix"] == ""


def test_the_question_finder_skips_deferred_slots() -> None:
    sm = run_engine(DAG, _set(after_times(), guest_name="Chen")).sm
    slot = find_next_question(DAG, sm["filled"], sm["pending"], sm["deferred"])
    assert slot is not None and slot.name == "special_requests"


def test_group_completion_promotes_every_deferred_value_as_fresh_pending() -> None:
    sm = run_engine(DAG, _set(after_times(), guest_name="Chen")).sm
    out = run_engine(DAG, _set(sm, special_requests="None"))
    assert out.sm["deferred"] == {}
    assert out.sm["pending"] == {"guest_name": "Chen", "special_requests": "None"}
    action = out.action
    assert action["phase"] == "readback"
    assert action["message"] == "Just to confirm — under the name Chen, no special requests. Is that correct?"
    # Fresh pending (§4.3, §7a.6): confirm/reject and the pending slots' setter hidden for this invocation.
    assert {"confirm_pending", "reject_pending", "set_guest_info"} <= set(action["hide_tools"])
    assert action["si_suffix"] == (
        "<readback_scope>\n"
        "You MUST confirm ALL of the following values together in a single readback -- do NOT omit any:\n"
        "  - name: under the name Chen\n"
        "  - special requests: no special requests\n"
        "</readback_scope>"
    )
    nxt = run_engine(DAG, out.sm, last_user_text="what was that?")
    assert "confirm_pending" not in nxt.action["hide_tools"]  # no longer fresh
    assert "<readback_scope>" in nxt.action["si_suffix"]  # still the grouped readback


def test_readback_scope_uses_slot_names_without_labels_exactly_as_the_spec_prints_it() -> None:
    raw = bella_raw()
    for slot in raw["slots"]:
        slot.pop("label", None)
    dag = compile_config(raw)
    sm = after_times()
    for values in ({"guest_name": "Chen"}, {"special_requests": "None"}):
        sm = after_tool(sm, dag, "set_guest_info", values, {"stored": True, "values": values})
        sm = run_engine(dag, sm).sm
    out = run_engine(dag, sm, last_user_text="?")
    assert out.action["si_suffix"].splitlines()[2:4] == [
        "  - guest_name: under the name Chen",
        "  - special_requests: no special requests",
    ]


def test_a_group_is_not_complete_while_a_grouped_input_is_missing() -> None:
    sm = after_times()
    del sm["filled"]["selected_time"]
    sm["_last_state"]["filled"].pop("selected_time")
    out = run_engine(DAG, _set(_set(sm, guest_name="Chen"), special_requests="None"))
    assert out.sm["pending"] == {} and set(out.sm["deferred"]) == {"guest_name", "special_requests"}
    assert out.action["message"] == f"We have {TIMES}. Which time works best for you?"


def test_an_inactive_input_does_not_hold_the_group_but_an_active_one_does() -> None:
    """large_party_phone (active for 5 or more) is a user input of BookReservation with no readback."""
    sm = after_times()
    for key in ("filled",):
        sm[key]["party_size"] = 6
    sm["_last_state"]["filled"]["party_size"] = 6
    sm = _set(_set(sm, guest_name="Chen"), special_requests="None")
    out = run_engine(DAG, sm)
    assert out.sm["pending"] == {} and len(out.sm["deferred"]) == 2
    assert out.action["message"].startswith("For parties of five or more")
    phone = after_tool(
        out.sm, DAG, "set_large_party_phone", {"phone": "555"}, {"stored": True, "value": "555"}
    )
    done = run_engine(DAG, phone)
    assert done.sm["filled"]["large_party_phone"] == "555"
    assert done.sm["pending"] == {"guest_name": "Chen", "special_requests": "None"}


def test_confirming_the_group_fires_the_task() -> None:
    sm = run_engine(DAG, _set(after_times(), guest_name="Chen")).sm
    sm = run_engine(DAG, _set(sm, special_requests="None")).sm
    yes = run_engine(DAG, sm, last_user_text="Yes")
    assert yes.action["function_call"] == {"name": "confirm_pending", "args": {}}
    fire = run_engine(DAG, confirm_pending(yes.sm))
    assert fire.action["function_call"]["name"] == "book_reservation"
    assert fire.action["function_call"]["args"]["guest_name"] == "Chen"
    assert "_promoted_from_deferred" not in fire.sm


def test_an_inline_correction_of_a_grouped_value_stays_in_the_grouped_readback() -> None:
    sm = run_engine(DAG, _set(after_times(), guest_name="Chen"))
    sm2 = run_engine(DAG, _set(sm.sm, special_requests="None")).sm
    sm3 = run_engine(DAG, sm2, last_user_text="No, the name is Chan").sm
    out = run_engine(DAG, _set(sm3, guest_name="Chan"))
    assert out.sm["pending"] == {"guest_name": "Chan", "special_requests": "None"}
    assert out.sm["deferred"] == {}
    assert "under the name Chan" in out.action["message"]


def test_a_rejected_group_is_collected_again() -> None:
    sm = run_engine(DAG, _set(after_times(), guest_name="Chen")).sm
    sm = run_engine(DAG, _set(sm, special_requests="None")).sm
    out = run_engine(DAG, reject_pending(sm))
    assert out.sm["pending"] == {} and out.sm["deferred"] == {}
    assert out.action["message"] == "What name should I put the reservation under?"
    again = run_engine(DAG, _set(out.sm, guest_name="Chan"))
    assert again.sm["deferred"] == {"guest_name": "Chan"}  # deferred again, not read back alone


def test_deactivation_clears_deferred_values() -> None:
    """§7a.6 "Conditional slots": auto-deactivation handles filled, pending and deferred."""
    raw = bella_raw()
    special = next(s for s in raw["slots"] if s["name"] == "special_requests")
    special["condition"] = "lambda filled: int(filled.get('party_size', 0)) < 10"
    dag = compile_config(raw)
    sm = after_times()
    sm["deferred"] = {"special_requests": "None"}
    sm["_last_state"]["deferred"] = {"special_requests": "None"}
    sm["filled"]["party_size"] = 12
    out = run_engine(dag, sm, debug=True)
    assert out.sm["deferred"] == {}
    assert {"tag": "slot_deactivated", "slot": "special_requests", "source": "deferred"} in out.debug_log


def test_re_deferral_when_a_different_task_is_about_to_fire() -> None:
    """Promoted values wait in pending while another task becomes ready: they go back to deferred, the task
    fires, and the group completes again afterwards (§3.1 step 1, §19.2 ``re_deferred``)."""
    raw = {
        "slots": [
            {"name": "size", "setter": "set_size", "ask": "How many?"},
            {"name": "note", "setter": "set_note", "ask": "Any note?", "requires_readback": True},
            {"name": "quote", "source": "task:Quote"},
        ],
        "tasks": [
            {"name": "Quote", "tool": "quote", "inputs": ["size"], "outputs": {"quote": "quote"}},
            {"name": "Book", "tool": "book", "inputs": ["size", "note"], "readback_inputs": True,
             "terminal": True},
        ],
    }  # fmt: skip
    dag = compile_config(raw)
    sm = after_tool({}, dag, "set_note", {"note": "window"}, {"stored": True, "value": "window"})
    sm = run_engine(dag, sm).sm
    assert sm["deferred"] == {"note": "window"}
    sm = after_tool(sm, dag, "set_size", {"size": 2}, {"stored": True, "value": 2})
    # size needs no readback: it is filled at once, which completes Book's group (note -> pending) and makes
    # Quote ready in the same invocation. Quote fires first; note goes back to deferred.
    out = run_engine(dag, sm, debug=True)
    assert out.action["function_call"] == {"name": "quote", "args": {"size": 2}}
    assert out.sm["pending"] == {} and out.sm["deferred"] == {"note": "window"}
    assert {"tag": "re_deferred", "slot": "note", "task": "Quote"} in out.debug_log
    quoted = after_tool(out.sm, dag, "quote", {"size": 2}, {"quote": 10})
    final = run_engine(dag, quoted)
    assert final.sm["pending"] == {"note": "window"} and final.action["phase"] == "readback"
    assert "<readback_scope>" in final.action["si_suffix"]
