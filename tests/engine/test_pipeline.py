"""One engine invocation, stage by stage (§3 pipeline, §5, §5b, §7.3–7.4, §9.5)."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import pytest
from tests.engine.spec_view import run_engine

from slotgraph.config import compile_config
from slotgraph.engine import EngineInputError, after_tool

from .host import Host
from .toy import NO_READBACK, toy_dag, toy_raw

RB_ALL = toy_dag()
PLAIN = toy_dag(readback=NO_READBACK)


def run(dag: Any, sm: dict[str, Any], text: str = "", **kw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    before = copy.deepcopy(sm)
    result = run_engine(dag, sm, last_user_text=text, **kw)
    assert sm == before, "input state mutated"
    return result.sm, result.action


def settled(dag: Any, sm: dict[str, Any]) -> dict[str, Any]:
    """The state after one post-tool invocation (so ``_last_state`` reflects it)."""
    return run(dag, sm)[0]


# -- terminal (§9.5) ------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["complete", "escalated"])
def test_terminal_status_short_circuits_without_touching_state(status: str) -> None:
    sm = {"status": status, "pending": {"num_guests": 4}, "_slot_errors": [{"slot": "date", "code": "x"}]}
    out, action = run(RB_ALL, sm, "yes")
    assert out == sm
    assert action["message"] == "" and action["function_call"] is None and action["preempt"] is False
    assert set(action["hide_tools"]) >= {"confirm_pending", "set_date", "check_availability"}


# -- state change, steer-back counter -------------------------------------------------------------------


def test_new_valid_value_clears_slot_retries_and_resets_steer_back() -> None:
    sm = settled(RB_ALL, {"_retries": {"slot:date": 2, "slot:name": 1}})
    sm = run(RB_ALL, sm, "blah")[0]
    sm = run(RB_ALL, sm, "more blah")[0]
    assert sm["_steer_back_turns"] == 2
    sm["pending"] = {"date": "2026-07-18"}
    out, _ = run(RB_ALL, sm)
    assert out["_retries"] == {"slot:name": 1}
    assert out["_steer_back_turns"] == 0


def test_post_tool_invocations_do_not_count_as_user_turns() -> None:
    sm = settled(RB_ALL, {})
    assert run(RB_ALL, sm)[0]["_steer_back_turns"] == 0
    assert run(RB_ALL, sm, "hi")[0]["_steer_back_turns"] == 1


# -- auto-promote, auto-deactivate ----------------------------------------------------------------------


def test_non_readback_values_are_promoted() -> None:
    out, action = run(PLAIN, {"pending": {"num_guests": 4}})
    assert out["filled"] == {"num_guests": 4} and out["pending"] == {}
    assert action["message"] == "What date works for you?"


def test_deactivation_clears_all_three_dicts() -> None:
    dag = compile_config(
        {
            "slots": [
                {"name": "n", "setter": "set_n"},
                {"name": "a", "setter": "set_a", "condition": "lambda filled: int(filled.get('n', 0)) >= 5"},
                {"name": "b", "setter": "set_b", "condition": "lambda filled: int(filled.get('n', 0)) >= 5"},
                {"name": "c", "setter": "set_c", "condition": "lambda filled: int(filled.get('n', 0)) >= 5"},
            ]
        }
    )
    sm = {"filled": {"n": 3, "a": 1}, "pending": {"b": 2}, "deferred": {"c": 3}}
    out, _ = run(dag, sm)
    assert out["filled"] == {"n": 3} and out["pending"] == {} and out["deferred"] == {}


# -- auto-confirm and inline confirm (§7.3, §7.3a) ------------------------------------------------------


def awaiting() -> dict[str, Any]:
    sm = settled(RB_ALL, {"pending": {"num_guests": 4}})
    assert sm["_last_state"]["pending"] == {"num_guests": 4}
    return sm


def test_auto_confirm_on_a_pure_affirmative() -> None:
    out, action = run(RB_ALL, awaiting(), "Yes, that's correct!")
    assert action["function_call"] == {"name": "confirm_pending", "args": {}}
    assert action["preempt"] is True and action["force_preempt"] is True and action["message"] == ""
    assert out["_auto_confirm_pending"] is True
    assert out["pending"] == {"num_guests": 4}  # confirm_pending itself does the move


@pytest.mark.parametrize("text", ["", "Yes, but make it 6", "no", "what?"])
def test_no_auto_confirm_without_a_pure_affirmative(text: str) -> None:
    _, action = run(RB_ALL, awaiting(), text)
    assert action["function_call"] is None


def test_no_auto_confirm_on_fresh_pending() -> None:
    _, action = run(RB_ALL, settled(RB_ALL, {}) | {"pending": {"num_guests": 4}}, "yes")
    assert action["function_call"] is None
    assert "confirm_pending" in action["hide_tools"]


def test_auto_confirmed_state_change_does_not_reset_steer_back() -> None:
    host = Host(RB_ALL)
    host.start_turn("")
    host.start_turn("4")
    host.call("set_num_guests", {"n": 4})
    host.invoke()
    action = host.start_turn("yes")
    assert host.sm["_steer_back_turns"] == 1
    host.call("confirm_pending")
    host.invoke()
    assert host.sm["_steer_back_turns"] == 1 and "_auto_confirm_pending" not in host.sm
    assert action["reason"] == "auto_confirm"


def test_inline_confirm_commits_silently_and_holds_the_fire() -> None:
    sm = settled(RB_ALL, {"filled": {"num_guests": 4}, "pending": {"date": "2026-07-18"}})
    out, action = run(RB_ALL, sm, "Yes, and also my wife has a shellfish allergy")
    assert out["filled"] == {"num_guests": 4, "date": "2026-07-18"} and out["pending"] == {}
    assert action["inline_confirmed"] is True
    assert action["function_call"] is None and action["preempt"] is False
    assert action["phase"] == "collection" and "_inline_confirm" not in out
    assert "confirm_pending" in action["hide_tools"]
    # the held task fires on the next invocation
    _, action = run(RB_ALL, out)
    assert action["function_call"]["name"] == "check_availability"


# -- slot errors (§5b) ----------------------------------------------------------------------------------


def errors_dag(max_retries: int | None = 3) -> Any:
    raw = toy_raw(readback=NO_READBACK)
    validation: dict[str, Any] = {
        "errors": {
            "out_of_range": "We seat 1 to 8, {name}. How many?",
            "past": "Past date for {num_guests}.",
        },
        "on_exhaust": {
            "say": "Please call us, {name}.",
            "then": {"tool": "transfer_to_agent", "args": {"guest": "{name}", "why": ["{num_guests}", 3]}},
        },
    }
    if max_retries is not None:
        validation["max_retries"] = max_retries
    raw["slots"][0]["validation"] = validation
    raw["slots"][1]["validation"] = {"errors": {"past_date": "That date is past. Which date, {name}?"}}
    return compile_config(raw)


def test_slot_error_messages_rendered_joined_and_counted() -> None:
    dag = errors_dag()
    sm = {
        "filled": {"name": "Chen"},
        "_slot_errors": [
            {"slot": "num_guests", "code": "out_of_range"},
            {"slot": "date", "code": "past_date"},
        ],
    }
    out, action = run(dag, sm)
    assert action["message"] == "We seat 1 to 8, Chen. How many? That date is past. Which date, Chen?"
    assert action["preempt"] is True and action["function_call"] is None
    assert out["_retries"] == {"slot:num_guests": 1, "slot:date": 1} and out["_slot_errors"] == []


def test_unconfigured_error_code_gets_the_default_message() -> None:
    _, action = run(errors_dag(), {"_slot_errors": [{"slot": "date", "code": "weird"}]})
    assert action["message"] == "Sorry, I couldn't use that date. What date works for you?"


def test_slot_error_exhaustion_escalates_with_rendered_call() -> None:
    dag = errors_dag(max_retries=2)
    sm = {"filled": {"name": "Chen"}, "_retries": {"slot:num_guests": 1}}
    out, action = run(dag, sm | {"_slot_errors": [{"slot": "num_guests", "code": "out_of_range"}]})
    assert out["status"] == "escalated" and out["_retries"]["slot:num_guests"] == 2
    assert action["message"] == "Please call us, Chen."
    assert action["function_call"] == {
        "name": "transfer_to_agent",
        "args": {"guest": "Chen", "why": ["{num_guests}", 3]},
    }
    assert action["preempt"] is True


def test_slot_without_max_retries_never_exhausts() -> None:
    dag = errors_dag(max_retries=None)
    sm: dict[str, Any] = {}
    for _ in range(10):
        sm, _ = run(dag, sm | {"_slot_errors": [{"slot": "num_guests", "code": "past"}]})
    assert sm["status"] == "in_progress" and sm["_retries"]["slot:num_guests"] == 10


# -- post-executor (§3.2, §5) ---------------------------------------------------------------------------

READY = {"filled": {"num_guests": 4, "date": "d", "chosen_time": "t", "name": "n", "open_slots": "x"}}


def after(dag: Any, sm: dict[str, Any], task: str, result: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Settle ``sm``, run ``task``'s executor with ``result`` through routing, invoke the engine."""
    state = settled(dag, sm)
    state = after_tool(state, dag, dag.task_by_name[task].tool, {}, result)
    return run(dag, state)


def test_same_input_retry_then_exhaustion() -> None:
    done = {"task_results": {"CheckAvailability": {"success": True, "open_slots": "x"}}}
    sm, action = after(PLAIN, READY | done, "MakeReservation", {"success": False})
    # max_retries: 2 = two attempts in total; the same-input retry fires at once, led by retry_say
    assert action["message"] == "Let me try once more." and action["preempt"] is True
    assert action["function_call"]["name"] == "make_reservation" and action["reason"] == "task_retry"
    assert sm["_retries"]["MakeReservation"] == 1 and sm["status"] == "in_progress"
    sm, action = after(PLAIN, sm, "MakeReservation", {"success": False})
    assert sm["status"] == "escalated" and action["message"] == "Please call us directly."
    assert action["function_call"] == {"name": "escalate", "args": {}}
    assert sm["filled"] == READY["filled"]  # nothing cleared on exhaustion


def test_task_without_on_failure_exhausts_on_first_failure_with_default_message() -> None:
    raw = toy_raw(readback=NO_READBACK)
    del raw["tasks"][0]["on_failure"]
    dag = compile_config(raw)
    sm, action = after(
        dag, {"filled": {"num_guests": 4, "date": "d"}}, "CheckAvailability", {"success": False}
    )
    assert sm["status"] == "escalated" and action["function_call"] is None
    assert action["message"].startswith("I'm sorry")


def test_success_then_say_statement_leads_the_next_question() -> None:
    raw = toy_raw(readback=NO_READBACK)
    raw["tasks"][0]["then_say"] = "Good news: {open_slots} are free."
    dag = compile_config(raw)
    sm = {"filled": {"num_guests": 4, "date": "d", "open_slots": "6 PM"}}
    _, action = after(dag, sm, "CheckAvailability", {"success": True, "open_slots": "6 PM"})
    assert action["message"] == "Good news: 6 PM are free. We have 6 PM. Which time?"
    assert action["preempt"] is True


def test_terminal_success_completes() -> None:
    sm, action = after(PLAIN, READY, "MakeReservation", {"success": True, "confirmation": "R1"})
    assert sm["status"] == "complete" and action["message"] == "Confirmed! Number: R1."
    assert action["phase"] == "terminal"


# -- readback transition (§7.4) -------------------------------------------------------------------------


def test_transition_uses_injected_choice_and_default_prefix() -> None:
    seen: list[Sequence[str]] = []

    def choose(options: Sequence[str]) -> str:
        seen.append(list(options))
        return options[-1]

    dag = toy_dag(prefixes=["Wonderful!", "Perfect!"])
    sm = settled(dag, {"pending": {"num_guests": 4}}) | {"pending": {}, "filled": {"num_guests": 4}}
    _, action = run(dag, sm | {"_readback_transition": True}, choose=choose)
    assert action["message"] == "Perfect! What date works for you?" and action["preempt"] is True
    assert seen == [["Wonderful!", "Perfect!"]]
    _, action = run(RB_ALL, sm | {"_readback_transition": True})
    assert action["message"] == "Great! What date works for you?"


def test_no_transition_prefix_without_the_flag_or_when_a_task_fires() -> None:
    _, action = run(RB_ALL, {"filled": {"num_guests": 4}})
    assert action["message"] == "What date works for you?" and action["preempt"] is False
    _, action = run(RB_ALL, {"filled": {"num_guests": 4, "date": "d"}, "_readback_transition": True})
    assert action["message"] == "" and action["function_call"]["name"] == "check_availability"


def test_rejection_is_applied_at_the_next_invocation_without_transition() -> None:
    host = Host(RB_ALL)
    host.start_turn("")
    host.start_turn("4")
    host.call("set_num_guests", {"n": 4})
    host.invoke()
    host.start_turn("no that's wrong")
    host.call("reject_pending")
    action = host.invoke()
    assert host.sm["pending"] == {} and "_rejection_requested" not in host.sm
    assert action["message"] == "How many guests?" and action["preempt"] is False


# -- entry, outputs -------------------------------------------------------------------------------------


def test_action_keys_and_state_bookkeeping() -> None:
    result = run_engine(RB_ALL, {}, debug=True)
    assert set(result.action) >= {
        "hide_tools", "preempt", "force_preempt", "message", "function_call", "si_suffix", "inline_confirmed",
        "response",
    }  # fmt: skip
    sm = result.sm
    assert sm["_last_state"] == {"filled": {}, "pending": {}, "deferred": {}}
    assert sm["_setter_slots"]["set_date"] == "date"
    assert sm["_executor_tasks"]["check_availability"]["task_name"] == "CheckAvailability"
    assert sm["_slot_requires"] == {"chosen_time": ["open_slots"]}
    assert any(entry["tag"] == "invoke" for entry in result.debug_log)
    assert run_engine(RB_ALL, {}).debug_log == ()


def test_bad_inputs_raise_clear_errors() -> None:
    with pytest.raises(EngineInputError, match="compile_config"):
        run_engine(toy_raw(), {})  # type: ignore[arg-type]
    with pytest.raises(EngineInputError, match="last_user_text"):
        run_engine(RB_ALL, {}, last_user_text=None)  # type: ignore[arg-type]


def test_event_prefill_fills_and_skips_the_question() -> None:
    raw = toy_raw()
    raw["slots"][0]["source"] = ["event", "user"]
    dag = compile_config(raw)
    out, action = run(dag, {}, event_data={"num_guests": 3})
    assert out["filled"] == {"num_guests": 3} and out["_event_prefilled_this_turn"] is True
    assert action["message"] == "What date works for you?" and action["event_prefilled"] is True


def test_announce_cascade_delivers_consecutive_announces_with_the_question() -> None:
    dag = compile_config(
        {
            "slots": [
                {"name": "hi", "source": "announce", "message": "Welcome!", "preempt": False},
                {"name": "terms", "source": "announce", "message": "Calls are recorded."},
                {"name": "n", "setter": "set_n", "ask": "How many?"},
            ]
        }
    )
    out, action = run(dag, {})
    assert action["message"] == "Welcome! Calls are recorded. How many?"
    assert action["preempt"] is True and action["force_preempt"] is True
    assert out["filled"] == {"hi": True, "terms": True}


def test_render_leaves_unknown_placeholders_and_reads_literal_braces() -> None:
    from slotgraph.engine.text import render

    assert render("Hi {name}, {unknown} {{x}} {0}", {"name": "Chen"}) == "Hi Chen, {unknown} {x} {0}"
    assert render("{name.__class__}", {"name": "Chen"}) == "{name.__class__}"


def test_cascade_fires_the_next_task_in_the_same_invocation_97() -> None:
    """§9.7: a success whose outputs make another task ready fires it at once, its then_say leading."""
    dag = compile_config(
        {
            "slots": [
                {"name": "a", "setter": "set_a"},
                {"name": "b", "source": "task:First"},
                {"name": "c", "source": "task:Second"},
            ],
            "tasks": [
                {
                    "name": "First",
                    "tool": "first",
                    "inputs": ["a"],
                    "outputs": {"b": "b"},
                    "then_say": "Got {b}.",
                },
                {
                    "name": "Second",
                    "tool": "second",
                    "inputs": ["b"],
                    "outputs": {"c": "c"},
                    "terminal": True,
                },
            ],
        }
    )
    sm, action = after(dag, {"filled": {"a": 1}}, "First", {"b": 2})
    assert action["message"] == "Got 2." and action["preempt"] is True
    assert action["function_call"] == {"name": "second", "args": {"b": 2}}
    sm, action = run(dag, after_tool(sm, dag, "second", {"b": 2}, {"c": 3}))
    assert sm["status"] == "complete" and sm["filled"]["c"] == 3 and action["message"] == ""


def test_prerequisite_on_an_inactive_slot_does_not_block() -> None:
    dag = compile_config(
        {
            "slots": [
                {"name": "n", "setter": "set_n"},
                {
                    "name": "phone",
                    "setter": "set_phone",
                    "condition": "lambda filled: int(filled.get('n', 0)) >= 5",
                },
                {"name": "note", "setter": "set_note", "requires": ["phone"]},
            ]
        }
    )
    out = after_tool({"filled": {"n": 2}}, dag, "set_note", {"note": "hi"}, {"stored": True, "value": "hi"})
    assert out["pending"] == {"note": "hi"}
    out = after_tool({"filled": {"n": 7}}, dag, "set_note", {"note": "hi"}, {"stored": True, "value": "hi"})
    assert out["_slot_errors"] == [{"slot": "note", "code": "prereq_not_met"}]
