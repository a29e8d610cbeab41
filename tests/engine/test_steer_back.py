"""Steer-back, spec §7.6: the counter, the soft / hard / escalate tiers and the yield, turn by turn."""

from __future__ import annotations

from typing import Any

import pytest
from tests.engine.spec_view import run_engine
from tests.engine.toy import toy_raw

from slotgraph.config import compile_config
from slotgraph.engine import after_tool, confirm_pending

EXHAUST = {
    "say": "I'm having trouble completing your reservation. Please call us at 555-0100.",
    "then": {"tool": "end_session", "args": {"reason": "retry_exhausted", "session_escalated": True}},
}


def _dag(**steer: Any) -> Any:
    raw = toy_raw(readback={"num_guests"})
    raw["steer_back"] = {**steer, "on_exhaust": EXHAUST}
    return compile_config(raw)


def _tier(action: dict[str, Any], sm: dict[str, Any]) -> str:
    if sm["status"] == "escalated":
        return "escalate"
    if action["reason"] == "steer_back_hard":
        return "hard"
    if action["steer_back_directive"]:
        return "soft"
    return "-"


def _drift(dag: Any, turns: int) -> tuple[list[str], list[int], dict[str, Any], list[dict[str, Any]]]:
    """``turns`` off-topic user turns (no tool call, no state change); the tier and counter of each.

    Like the runtime, the engine is invoked once more after the model's step when the action asks for it
    (``recheck_after_model``: an armed hard or escalate tier)."""
    sm = run_engine(dag, {}).sm
    tiers: list[str] = []
    counts: list[int] = []
    log: list[dict[str, Any]] = []
    for _ in range(turns):
        out = run_engine(dag, sm, last_user_text="Do you like jazz?", debug=True)
        if out.action["recheck_after_model"]:
            log.extend(out.debug_log)
            out = run_engine(dag, out.sm, debug=True)
        sm = out.sm
        tiers.append(_tier(out.action, sm))
        counts.append(sm["_steer_back_turns"])
        log.extend(out.debug_log)
        if sm["status"] == "escalated":
            break
    return tiers, counts, sm, log


def test_default_tiers_turn_by_turn() -> None:
    """Defaults 2/4/6: soft at 2 and 3, hard at 4, a yield (not counted), hard at 5, yield, escalate at 6."""
    tiers, counts, sm, _ = _drift(_dag(), 10)
    assert tiers == ["-", "soft", "soft", "hard", "-", "hard", "-", "escalate"]
    assert counts == [1, 2, 3, 4, 4, 5, 5, 6]
    assert sm["status"] == "escalated"


def test_custom_tiers_1_2_3() -> None:
    tiers, counts, _, _ = _drift(_dag(soft_after=1, hard_after=2, escalate_after=3), 10)
    assert tiers == ["soft", "hard", "-", "escalate"]
    assert counts == [1, 2, 2, 3]


def test_the_soft_tier_adds_a_directive_and_lets_the_model_run() -> None:
    dag = _dag()
    sm = run_engine(dag, {}, last_user_text="hello").sm
    out = run_engine(dag, sm, last_user_text="what's the weather?")
    assert out.action["steer_back_directive"] == "The conversation has drifted — steer back. How many guests?"
    assert out.action["preempt"] is False and out.action["message"] == "How many guests?"


def test_the_hard_tier_preempts_with_the_next_question_then_yields() -> None:
    dag = _dag()
    sm: dict[str, Any] = {"_steer_back_turns": 3}
    armed = run_engine(dag, sm, last_user_text="blah")
    assert armed.action["preempt"] is False and armed.action["recheck_after_model"] is True
    out = run_engine(dag, armed.sm)  # after the model's step, which recorded nothing
    assert out.action["message"] == "How many guests?"
    assert out.action["preempt"] is True and out.action["force_preempt"] is True
    assert out.sm["_hard_steer_yielded"] is True
    yielded = run_engine(dag, out.sm, last_user_text="still blah", debug=True)
    assert yielded.action["preempt"] is False and yielded.action["steer_back_directive"] is None
    assert "_hard_steer_yielded" not in yielded.sm and yielded.sm["_steer_back_turns"] == 4
    assert {"tag": "steer_back_yield", "turns": 4} in yielded.debug_log


def test_the_hard_tier_re_asks_the_readback_when_values_are_pending() -> None:
    dag = _dag()
    pending = {"num_guests": 4}
    sm = {"pending": pending, "_last_state": {"pending": pending}, "_steer_back_turns": 3}
    out = run_engine(dag, run_engine(dag, sm, last_user_text="hmm").sm)
    assert out.action["message"] == "Just to confirm — 4 guests. Is that correct?"
    assert out.action["force_preempt"] is True


def test_escalation_says_on_exhaust_and_calls_then() -> None:
    dag = _dag()
    out = run_engine(dag, run_engine(dag, {"_steer_back_turns": 5}, last_user_text="zzz").sm)
    assert out.sm["status"] == "escalated"
    assert out.action["message"] == EXHAUST["say"] and out.action["preempt"] is True
    assert out.action["function_call"] == {
        "name": "end_session",
        "args": {"reason": "retry_exhausted", "session_escalated": True},
    }


def test_any_state_change_resets_the_counter() -> None:
    dag = _dag()
    sm = run_engine(dag, {"_steer_back_turns": 2}, last_user_text="hmm").sm
    assert sm["_steer_back_turns"] == 3
    sm = after_tool(sm, dag, "set_num_guests", {"n": 4}, {"stored": True, "value": 4})
    out = run_engine(dag, sm)
    assert out.sm["_steer_back_turns"] == 0
    assert run_engine(dag, out.sm, last_user_text="yes?").sm["_steer_back_turns"] == 1


def test_post_tool_invocations_never_count() -> None:
    dag = _dag()
    sm = run_engine(dag, {"_steer_back_turns": 1}).sm
    assert sm["_steer_back_turns"] == 1
    out = run_engine(dag, sm, last_user_text="   ")
    assert out.sm["_steer_back_turns"] == 1 and out.action["steer_back_directive"] is None


def test_auto_confirm_keeps_its_increment() -> None:
    """The state change caused by auto-confirm's own confirm_pending does not reset the counter."""
    dag = _dag()
    pending = {"num_guests": 4}
    sm = {"pending": pending, "_last_state": {"pending": pending}, "_steer_back_turns": 0}
    yes = run_engine(dag, sm, last_user_text="yes")
    assert yes.sm["_steer_back_turns"] == 1 and yes.action["function_call"]["name"] == "confirm_pending"
    after = run_engine(dag, confirm_pending(yes.sm))
    assert after.sm["_steer_back_turns"] == 1
    # ...while a confirm_pending the model called is progress like any other change.
    model_confirmed = run_engine(dag, confirm_pending({**sm, "_steer_back_turns": 3}))
    assert model_confirmed.sm["_steer_back_turns"] == 0


@pytest.mark.parametrize(
    ("turns", "tag"), [(2, "steer_back_soft"), (4, "steer_back_hard"), (6, "steer_back_escalate")]
)
def test_each_tier_is_logged_with_its_turns(turns: int, tag: str) -> None:
    out = run_engine(_dag(), {"_steer_back_turns": turns - 1}, last_user_text="?", debug=True)
    if out.action["recheck_after_model"]:
        out = run_engine(_dag(), out.sm, debug=True)
    entry = next(e for e in out.debug_log if e["tag"] == tag)
    assert entry["turns"] == turns
    if tag == "steer_back_soft":
        assert entry["directive"].startswith("The conversation has drifted")
    if tag == "steer_back_hard":
        assert entry["msg"] == "How many guests?"


def test_the_spec_default_config_without_a_steer_back_block() -> None:
    dag = compile_config(toy_raw())
    tiers, _, sm, _ = _drift(dag, 10)
    assert tiers == ["-", "soft", "soft", "hard", "-", "hard", "-", "escalate"]
    assert sm["status"] == "escalated"


@pytest.mark.parametrize("turns", [3, 5])
def test_an_answer_in_the_hard_or_escalate_tier_makes_progress(turns: int) -> None:
    """After "hi" and off-topic questions, "2" answers the question: the model records it, and the armed
    tier is dropped instead of asking the same question again (or escalating)."""
    dag = _dag()
    sm = run_engine(dag, {"_steer_back_turns": turns}).sm
    armed = run_engine(dag, sm, last_user_text="2", debug=True)
    assert armed.action["preempt"] is False  # the model sees the user's message
    assert armed.action["recheck_after_model"] is True
    assert armed.action["steer_back_directive"].endswith("How many guests?")
    answered = after_tool(armed.sm, dag, "set_num_guests", {"count": 2}, {"stored": True, "value": 2})
    out = run_engine(dag, answered, debug=True)
    assert out.sm["status"] == "in_progress" and out.sm["_steer_back_turns"] == 0
    assert out.action["reason"] != "steer_back_hard" and "_hard_steer_yielded" not in out.sm
    assert "_steer_back_armed" not in out.sm
    assert out.sm["pending"] == {"num_guests": 2}  # on to its readback, not the same question again
    assert any(e["tag"] == "steer_back_disarmed" for e in out.debug_log)


def test_a_dag_without_slots_never_steers_back_or_escalates() -> None:
    """A front desk that only routes collects nothing: none of its turns is a stall (it would otherwise be
    told to "steer back" to nothing, and be escalated after six questions it answered)."""
    dag = compile_config({"slots": [], "tasks": [], "steer_back": {"on_exhaust": EXHAUST}})
    tiers, counts, sm, _ = _drift(dag, 8)
    assert tiers == ["-"] * 8 and counts == [0] * 8 and sm["status"] != "escalated"


def test_the_soft_tier_without_anything_to_ask_adds_no_directive() -> None:
    """Nothing to ask or read back (the only open slot's condition is false): no bare "steer back"."""
    raw = {
        "slots": [
            {"name": "topic", "source": "user", "setter": "set_topic", "ask": "What about?"},
            {"name": "detail", "source": "user", "setter": "set_detail", "ask": "Which detail?",
             "condition": "topic == 'other'"},
        ],
        "tasks": [{"name": "Send", "tool": "send", "inputs": ["topic", "detail"]}],
    }  # fmt: skip
    dag = compile_config(raw)
    sm = run_engine(dag, {}).sm
    routed = after_tool(sm, dag, "set_topic", {"topic": "billing"}, {"stored": True, "value": "billing"})
    sm = run_engine(dag, routed).sm
    assert sm["filled"]["topic"] == "billing"
    out = run_engine(dag, sm, last_user_text="Do you like jazz?", debug=True)
    out = run_engine(dag, out.sm, last_user_text="And opera?", debug=True)
    assert out.sm["_steer_back_turns"] == 2
    assert not out.action["steer_back_directive"]
    assert [e["directive"] for e in out.debug_log if e["tag"] == "steer_back_soft"] == [""]
