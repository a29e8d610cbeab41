"""Early answers (``accept_early`` → ``_candidates``), changing a confirmed value (``changeable`` →
``_changes``, downstream recomputation, ``_held``) and partial readback (docs/engine.md)."""

from __future__ import annotations

from typing import Any

import pytest

from slotgraph.config import CompiledDag, compile_config
from slotgraph.engine import after_tool, confirm_pending, reject_pending, run_engine
from slotgraph.engine.actions import Reason

TIMES = "18:00, 19:00"


def raw(**top: Any) -> dict[str, Any]:
    return {
        "slots": [
            {"name": "size", "setter": "set_size", "ask": "How many?", "requires_readback": True},
            {"name": "day", "setter": "set_day", "ask": "Which day?", "requires_readback": True},
            {"name": "times", "source": "task:Find"},
            {
                "name": "phone",
                "setter": "set_phone",
                "ask": "Phone?",
                "condition": "lambda filled: int(filled.get('size', 0)) >= 5",
            },
            {
                "name": "time",
                "setter": "set_time",
                "ask": "We have {times}. Which time?",
                "requires": ["times"],
                "requires_readback": True,
                "accept_early": True,
                "validate_against": {"filled_slot": "times"},
            },
            {"name": "name", "setter": "set_name", "ask": "Name?"},
        ],
        "tasks": [
            {
                "name": "Find",
                "tool": "find",
                "inputs": ["size", "day"],
                "outputs": {"times": "times"},
                "success_check": "ok",
                "then_say": "We have {times}. Which time works?",
            },
            {
                "name": "Book",
                "tool": "book",
                "inputs": ["size", "day", "time", "name"],
                "terminal": True,
                "then_say": "Booked.",
            },
        ],
        **top,
    }


@pytest.fixture
def dag() -> CompiledDag:
    return compile_config(raw(changeable=True))


def setter(dag: CompiledDag, sm: dict[str, Any], tool: str, value: Any) -> dict[str, Any]:
    return after_tool(sm, dag, tool, {"value": value}, {"stored": True, "value": value})


def booked_until_name(dag: CompiledDag) -> dict[str, Any]:
    """Size 4, day and time 19:00 confirmed; Find ran; the name is asked next."""
    filled = {"size": 4, "day": "mon", "times": TIMES, "time": "19:00"}
    sm: dict[str, Any] = {
        "filled": filled,
        "task_results": {"Find": {"ok": True, "times": TIMES}},
    }
    result = run_engine(dag, sm, last_user_text="hi")
    assert result.action.message == "Name?"
    return result.sm


# --- early answers -----------------------------------------------------------------------------------------


def test_an_accept_early_setter_is_visible_before_its_requires_are_met(dag: CompiledDag) -> None:
    result = run_engine(dag, {}, last_user_text="hi")
    assert result.action.message == "How many?"
    assert "set_time" not in result.action.hidden_tools
    plain = compile_config(raw())
    plain_raw = raw()
    plain_raw["slots"][4].pop("accept_early")
    hidden = run_engine(compile_config(plain_raw), {}, last_user_text="hi").action.hidden_tools
    assert "set_time" in hidden
    assert "set_time" not in run_engine(plain, {}, last_user_text="hi").action.hidden_tools


def test_an_early_answer_is_kept_as_a_candidate_not_refused(dag: CompiledDag) -> None:
    sm = setter(dag, {}, "set_time", "19:00")
    assert sm["_candidates"] == {"time": "19:00"}
    assert sm["_slot_errors"] == [] and "time" not in sm["pending"]
    plain_raw = raw()
    plain_raw["slots"][4].pop("accept_early")
    refused = setter(compile_config(plain_raw), {}, "set_time", "19:00")
    assert refused["_slot_errors"] == [{"slot": "time", "code": "prereq_not_met"}]
    assert "_candidates" not in refused


def _through_find(dag: CompiledDag, sm: dict[str, Any], times: str = TIMES) -> Any:
    sm = setter(dag, sm, "set_size", 4)
    sm = setter(dag, sm, "set_day", "mon")
    sm = confirm_pending(run_engine(dag, sm).sm, dag)
    fire = run_engine(dag, sm)
    assert fire.action.function_call is not None and fire.action.function_call.name == "find"
    sm = after_tool(fire.sm, dag, "find", fire.action.function_call.args, {"ok": True, "times": times})
    return run_engine(dag, sm, debug=True)


def test_a_candidate_that_holds_is_read_back_once_the_slot_is_askable(dag: CompiledDag) -> None:
    result = _through_find(dag, setter(dag, {}, "set_time", "19:00"))
    assert result.sm["pending"] == {"time": "19:00"}
    assert "_candidates" not in result.sm
    assert result.action.reason is Reason.READBACK
    # the task's question ("Which time works?") is not asked: the early answer answers it
    assert result.action.message == "Just to confirm — 19:00. Is that correct?"
    assert "candidate_used" in [entry["tag"] for entry in result.debug_log]


def test_a_candidate_that_does_not_hold_is_dropped_and_the_slot_asked(dag: CompiledDag) -> None:
    result = _through_find(dag, setter(dag, {}, "set_time", "21:30"))
    assert "_candidates" not in result.sm and "time" not in result.sm["pending"]
    assert result.action.message == "We have 18:00, 19:00. Which time?"
    assert any(e["tag"] == "candidate_dropped" and e["why"] == "does_not_hold" for e in result.debug_log)


def test_a_direct_answer_supersedes_the_candidate(dag: CompiledDag) -> None:
    sm = setter(dag, {}, "set_time", "19:00")
    sm = {**sm, "filled": {"size": 4, "day": "mon", "times": TIMES}}
    sm = setter(dag, sm, "set_time", "18:00")
    assert "_candidates" not in sm and sm["pending"] == {"time": "18:00"}


# --- changing a confirmed value -------------------------------------------------------------------------


def test_a_changeable_filled_slot_keeps_its_setter_visible(dag: CompiledDag) -> None:
    sm = booked_until_name(dag)
    hidden = run_engine(dag, sm, last_user_text="x").action.hidden_tools
    assert "set_size" not in hidden
    plain = compile_config(raw())
    assert "set_size" in run_engine(plain, sm, last_user_text="x").action.hidden_tools


def test_the_same_value_again_changes_nothing(dag: CompiledDag) -> None:
    sm = setter(dag, booked_until_name(dag), "set_size", 4)
    assert sm["pending"] == {} and "_changes" not in sm


def test_a_change_is_read_back_and_blocks_the_tasks_that_read_the_slot(dag: CompiledDag) -> None:
    sm = setter(dag, booked_until_name(dag), "set_size", 6)
    assert sm["_changes"] == {"size": 4} and sm["pending"] == {"size": 6} and sm["filled"]["size"] == 4
    result = run_engine(dag, sm)
    assert result.action.message == "Just to confirm — 6. Is that correct?"
    # with the name filled too, Book is ready — but not while the size is being changed
    sm = setter(dag, result.sm, "set_name", "Chen")
    result = run_engine(dag, sm)
    assert result.action.function_call is None
    assert result.action.reason is Reason.READBACK


def test_a_rejected_change_keeps_the_confirmed_value(dag: CompiledDag) -> None:
    sm = run_engine(dag, setter(dag, booked_until_name(dag), "set_size", 6)).sm
    result = run_engine(dag, reject_pending(sm))
    assert result.sm["filled"]["size"] == 4 and result.sm["filled"]["times"] == TIMES
    assert "_changes" not in result.sm and result.sm["task_results"]["Find"]["ok"]
    assert result.action.message == "Name?"


def _confirm_change(dag: CompiledDag, size: int) -> Any:
    sm = run_engine(dag, setter(dag, booked_until_name(dag), "set_size", size)).sm
    return run_engine(dag, confirm_pending(sm, dag), debug=True)


def test_a_confirmed_change_recomputes_downstream(dag: CompiledDag) -> None:
    result = _confirm_change(dag, 6)
    sm = result.sm
    tags = [entry["tag"] for entry in result.debug_log]
    assert tags.index("value_changed") < tags.index("task_invalidated") < tags.index("value_held")
    assert "Find" not in sm["task_results"] and "times" not in sm["filled"]
    assert sm["_held"] == {"time": "19:00"} and "time" not in sm["filled"]
    call = result.action.function_call
    assert call is not None and call.name == "find" and call.args == {"size": 6, "day": "mon"}


def test_a_held_value_that_still_holds_is_restored_without_a_readback(dag: CompiledDag) -> None:
    result = _confirm_change(dag, 6)
    assert result.action.function_call is not None
    sm = after_tool(result.sm, dag, "find", result.action.function_call.args, {"ok": True, "times": "19:00"})
    after = run_engine(dag, sm)
    assert after.sm["filled"]["time"] == "19:00" and "_held" not in after.sm
    assert after.action.message == "Phone?"  # the size flipped the phone's condition: it is asked now


def test_a_held_value_that_no_longer_holds_is_asked_again(dag: CompiledDag) -> None:
    result = _confirm_change(dag, 3)
    assert result.action.function_call is not None
    sm = after_tool(result.sm, dag, "find", result.action.function_call.args, {"ok": True, "times": "18:00"})
    after = run_engine(dag, sm)
    assert "time" not in after.sm["filled"] and "_held" not in after.sm
    assert after.action.message == "We have 18:00. Which time?"


def test_a_change_that_flips_a_condition_deactivates_the_slot(dag: CompiledDag) -> None:
    sm = booked_until_name(dag)
    sm["filled"] = {**sm["filled"], "size": 6, "phone": "555"}
    sm = run_engine(dag, setter(dag, sm, "set_size", 2)).sm
    result = run_engine(dag, confirm_pending(sm, dag), debug=True)
    assert "phone" not in result.sm["filled"]
    assert any(entry["tag"] == "slot_deactivated" for entry in result.debug_log)


# --- partial readback -----------------------------------------------------------------------------------


def _read_back(dag: CompiledDag) -> dict[str, Any]:
    sm = setter(dag, setter(dag, {}, "set_size", 4), "set_day", "mon")
    return run_engine(dag, sm).sm  # the readback of size and day: _last_state holds what was heard


def test_a_value_corrected_since_the_readback_is_not_committed_by_the_confirmation(dag: CompiledDag) -> None:
    sm = confirm_pending(setter(dag, _read_back(dag), "set_size", 6), dag)
    assert sm["filled"] == {"day": "mon"} and sm["pending"] == {"size": 6}
    result = run_engine(dag, sm)
    assert result.action.message == "Just to confirm — 6. Is that correct?"


def test_confirm_and_reject_can_name_the_slots(dag: CompiledDag) -> None:
    sm = confirm_pending(_read_back(dag), dag, slots=["day"])
    assert sm["filled"] == {"day": "mon"} and sm["pending"] == {"size": 4}
    result = run_engine(dag, reject_pending(_read_back(dag), slots=["size"]))
    assert result.sm["pending"] == {"day": "mon"}


def test_without_a_heard_readback_everything_pending_is_committed(dag: CompiledDag) -> None:
    sm = confirm_pending({"pending": {"size": 4, "day": "mon"}})
    assert sm["filled"] == {"size": 4, "day": "mon"} and sm["pending"] == {}


def _grouped(together: bool) -> tuple[CompiledDag, dict[str, Any]]:
    config = raw()
    config["slots"][5]["requires_readback"] = True
    config["slots"].append({"name": "note", "setter": "set_note", "ask": "Note?", "requires_readback": True})
    book = config["tasks"][1]
    book["inputs"] = [*book["inputs"], "note"]
    book["readback_inputs"] = True
    book["readback_together"] = together
    dag = compile_config(config)
    sm: dict[str, Any] = {"filled": {"size": 4, "day": "mon", "times": TIMES, "time": "19:00"}}
    sm["task_results"] = {"Find": {"ok": True, "times": TIMES}}
    sm = setter(dag, sm, "set_name", "Chen")
    sm = run_engine(dag, sm).sm
    assert sm["deferred"] == {"name": "Chen"}
    sm = run_engine(dag, setter(dag, sm, "set_note", "none")).sm
    assert sm["pending"] == {"name": "Chen", "note": "none"}  # the grouped readback
    return dag, sm


def test_a_grouped_readback_accepts_a_partial_confirmation() -> None:
    dag, sm = _grouped(together=False)
    sm = confirm_pending(setter(dag, sm, "set_name", "Lee"), dag)
    assert sm["filled"]["note"] == "none" and sm["pending"] == {"name": "Lee"}


def test_readback_together_keeps_the_group_all_or_nothing() -> None:
    dag, sm = _grouped(together=True)
    sm = confirm_pending(setter(dag, sm, "set_name", "Lee"), dag)
    assert "note" not in sm["filled"] and sm["pending"] == {"name": "Lee", "note": "none"}
    result = run_engine(dag, sm)
    assert result.action.message == "Just to confirm — Lee, none. Is that correct?"
