"""Discrepancies found reviewing the engine against the spec, each pinned by the sentence it checks."""

from __future__ import annotations

from typing import Any

import pytest
from tests.engine.spec_view import run_engine
from tests.engine.toy import toy_dag, toy_raw

from slotgraph.config import compile_config
from slotgraph.engine import (
    EngineStateError,
    after_tool,
    begin_turn,
    compute_dag_state,
    confirm_pending,
    reject_pending,
)

DAG = toy_dag()


@pytest.mark.parametrize(
    "sm",
    [
        {"_retries": {"CheckAvailability": 1.0, "slot:num_guests": 2.0}},
        {"_steer_back_turns": 2.0},
        {"_invocation_count": 3.0},
    ],
)
def test_counts_persisted_as_floats_by_ces_are_accepted_and_normalised(sm: dict[str, Any]) -> None:
    """§2.4: "All state lives in a session-scoped dict called `sm` ... CES persists declared variables across
    turns." CES keeps session variables as a protobuf ``Struct``, whose numbers are doubles: a counter the
    original platform wrote as ``1`` comes back as ``1.0``. Such a state must load (counts stay integers)."""
    snapshot = {k: dict(v) if isinstance(v, dict) else v for k, v in sm.items()}
    out = run_engine(DAG, sm, last_user_text="hello").sm
    assert sm == snapshot
    for count in out["_retries"].values():
        assert type(count) is int
    assert type(out["_steer_back_turns"]) is int
    assert type(out["_invocation_count"]) is int
    for routed in (begin_turn(DAG, sm), after_tool(sm, DAG, "set_date", {"date": "d"}, {"stored": True})):
        assert all(type(c) is int for c in routed["_retries"].values())


def test_float_counts_keep_counting_toward_exhaustion() -> None:
    """§5.3: "When `_retries[task_name] >= max_retries`, the framework: 1. Shows the `on_exhaust.say` message"
    — a failure count persisted as ``1.0`` is still one failure (MakeReservation: max_retries 2)."""
    filled = {"num_guests": 4, "date": "d", "open_slots": "6 PM", "chosen_time": "6 PM", "name": "C"}
    sm = {
        "filled": filled,
        "task_results": {"CheckAvailability": {"success": True, "open_slots": "6 PM"}},
        "_retries": {"MakeReservation": 1.0},
    }
    sm = after_tool(sm, DAG, "make_reservation", {}, {"success": False})
    out = run_engine(DAG, sm)
    assert out.sm["status"] == "escalated"
    assert out.action["message"] == "Please call us directly."
    assert out.sm["_retries"] == {"MakeReservation": 2}


@pytest.mark.parametrize(
    "sm",
    [{"_retries": {"X": 1.5}}, {"_steer_back_turns": 0.5}, {"_invocation_count": float("nan")}],
)
def test_non_integral_counts_are_still_refused(sm: dict[str, Any]) -> None:
    """A fractional count is not a count: refused with a clear error naming the key."""
    with pytest.raises(EngineStateError) as err:
        run_engine(DAG, sm)
    assert err.value.where.startswith("sm[")


def test_an_announce_slot_gates_a_task_but_is_never_passed_as_an_argument() -> None:
    """§12.3: "Announce slots have no setter, no readback, and their value is never consumed as a task
    argument." An announce listed in a task's ``inputs`` still gates the fire (§9.2), is not in ``args``."""
    raw = toy_raw()
    raw["slots"].insert(0, {"name": "terms", "source": "announce", "message": "Our terms apply."})
    raw["tasks"][1]["inputs"].append("terms")
    dag = compile_config(raw)
    filled = {"num_guests": 4, "date": "d", "open_slots": "6 PM", "chosen_time": "6 PM", "name": "C"}
    results = {"CheckAvailability": {"success": True, "open_slots": "6 PM"}}
    assert compute_dag_state(dag, filled, task_results=results).kind == "announce"
    action = compute_dag_state(dag, {**filled, "terms": True}, task_results=results)
    assert action.kind == "fire"
    assert dict(action.args) == {
        "num_guests": 4, "date": "d", "chosen_time": "6 PM", "name": "C"
    }  # fmt: skip
    sm = {"filled": filled, "task_results": results}
    out = run_engine(dag, sm)
    assert out.action["function_call"] == {"name": "make_reservation", "args": dict(action.args)}
    assert out.action["message"] == "Our terms apply."


@pytest.mark.parametrize("last_state", [{"pending": {"num_guests": 4}}, {}])
def test_a_stale_inline_confirm_flag_never_commits_pending_on_a_post_tool_invocation(
    last_state: dict[str, Any],
) -> None:
    """§7.3: "Post-tool re-invocations (where the last content is a function response, not a user message)
    never trigger auto-confirm"; §7.3a: "`_try_auto_confirm` detects `_starts_affirmative` and sets
    `sm["_inline_confirm"] = True`", consumed later in the same run. A flag left in the state (a host that
    died mid-run, a hand-edited state) is not a confirmation: the values stay pending and are read back."""
    dag = toy_dag()
    sm = {"pending": {"num_guests": 4}, "_last_state": last_state, "_inline_confirm": True}
    out = run_engine(dag, sm, last_user_text="")
    assert out.sm["pending"] == {"num_guests": 4}
    assert "num_guests" not in out.sm["filled"]
    assert out.action["inline_confirmed"] is False
    assert out.action["reason"] == "readback"
    assert "_inline_confirm" not in out.sm


def test_inline_confirm_still_applies_when_the_user_starts_affirmative() -> None:
    """§7.3a: "Yea, also my wife has a shellfish allergy" — pending moves to filled silently."""
    dag = toy_dag()
    sm = {"pending": {"num_guests": 4}, "_last_state": {"pending": {"num_guests": 4}}}
    out = run_engine(dag, sm, last_user_text="Yea, also my wife has a shellfish allergy")
    assert out.sm["filled"]["num_guests"] == 4 and not out.sm["pending"]
    assert out.action["inline_confirmed"] is True


def test_no_transition_prefix_when_a_rejection_is_applied_in_the_same_invocation() -> None:
    """§7.4: "`reject_pending` does **not** set this flag — after rejections, the LLM generates its own
    response naturally"; §8.3: no preemption "After reject_pending". When one model turn confirms a readback,
    sets a new value and rejects it, the invocation that applies the rejection must not preempt with
    "{prefix} {next_question}" (docs/engine.md choice 5: "No transition prefix after a rejection")."""
    dag = toy_dag()
    sm: dict[str, Any] = {"pending": {"num_guests": 4}, "_last_state": {"pending": {"num_guests": 4}}}
    sm = confirm_pending(sm)
    sm = after_tool(sm, dag, "set_date", {"date": "2026-07-15"}, {"stored": True, "value": "2026-07-15"})
    sm = reject_pending(sm)
    out = run_engine(dag, sm)
    assert out.sm["pending"] == {} and out.sm["filled"] == {"num_guests": 4}
    assert out.action["reason"] == "next_question"
    assert out.action["message"] == "What date works for you?"
    assert out.action["preempt"] is False


def test_the_transition_prefix_still_follows_a_plain_confirmation() -> None:
    """§7.4: "if `_readback_transition` was true and the action is `next_question`, the callback preempts
    with `"{prefix} {next_question}"`"."""
    dag = toy_dag()
    sm = confirm_pending({"pending": {"num_guests": 4}, "_last_state": {"pending": {"num_guests": 4}}})
    out = run_engine(dag, sm)
    assert out.action["message"] == "Great! What date works for you?"
    assert out.action["preempt"] is True


def test_a_null_steer_back_counter_gets_the_spec_default() -> None:
    """§2.4: ``"_steer_back_turns": 0,  # user turns since last forward progress``. A state carrying ``None``
    (a CES variable declared without that default) comes back with the default like every other key, not
    with ``None`` for the host to trip over."""
    dag = toy_dag()
    assert run_engine(dag, {"_steer_back_turns": None}).sm["_steer_back_turns"] == 0
    routed = after_tool({"_steer_back_turns": None}, dag, "set_date", {}, {"stored": True, "value": "d"})
    assert routed["_steer_back_turns"] == 0
    assert run_engine(dag, {"_steer_back_turns": None}, last_user_text="hm").sm["_steer_back_turns"] == 1
