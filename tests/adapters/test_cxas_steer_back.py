"""The spec entry's steer-back: a host that never rechecks after the model still escalates (the spec's
behaviour); a host that opts in with ``rechecks_after_model`` gets the armed tiers, which never swallow an
answer."""

from __future__ import annotations

from typing import Any

import pytest

from slotgraph.adapters.cxas import after_tool, slot_filling_engine
from slotgraph.engine import EngineInputError

CONFIG: dict[str, Any] = {
    "slots": [
        {"name": "party_size", "setter": "set_party_size", "ask": "How many guests?"},
        {"name": "guest_name", "setter": "set_guest_name", "ask": "Under what name?"},
    ],
    "tasks": [],
    "steer_back": {
        "soft_after": 1,
        "hard_after": 2,
        "escalate_after": 3,
        "on_exhaust": {"say": "Let me get someone to help.", "then": "escalate"},
    },
}


def _turn(sm: dict[str, Any], text: str, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = slot_filling_engine(
        {"raw_config": CONFIG, "sm": sm, "last_user_text": text, "seed": 0, **extra}
    )
    return out


def _drift(turns: int, **extra: Any) -> list[dict[str, Any]]:
    """``turns`` user turns that give nothing (the model answers in text, calls no tool)."""
    sm: dict[str, Any] = {}
    actions = []
    for n in range(turns):
        out = _turn(sm, f"off topic {n}", **extra)
        actions.append(out["action"])
        sm = out["sm"]
    return actions


def test_a_spec_host_gets_every_tier_on_the_users_invocation() -> None:
    actions = _drift(5)
    # soft directive, hard (re-ask), the yield after it, escalation, then the session is over
    reasons = [a["reason"] for a in actions]
    assert reasons == ["next_question", "steer_back_hard", "next_question", "steer_back_escalate", "terminal"]
    assert "drifted" in (actions[0]["steer_back_directive"] or "")
    hard, escalate = actions[1], actions[3]
    assert hard["force_preempt"] and hard["message"] == "How many guests?"
    assert escalate["force_preempt"] and escalate["message"] == "Let me get someone to help."
    assert escalate["function_call"] == {"name": "escalate", "args": {}}
    assert not any(a["recheck_after_model"] for a in actions)


def test_a_host_that_rechecks_gets_the_armed_tiers() -> None:
    actions = _drift(5, rechecks_after_model=True)
    reasons = [a["reason"] for a in actions]
    assert "steer_back_hard" not in reasons and "steer_back_escalate" not in reasons
    armed = [a for a in actions if a["reason"] == "steer_back_armed"]
    assert armed and all(a["recheck_after_model"] and not a["force_preempt"] for a in armed)


def test_an_answer_on_an_armed_turn_is_kept_when_the_host_rechecks() -> None:
    sm: dict[str, Any] = {}
    for n in range(2):
        sm = _turn(sm, f"off topic {n}", rechecks_after_model=True)["sm"]
    armed = _turn(sm, "2", rechecks_after_model=True)
    assert armed["action"]["reason"] == "steer_back_armed"
    sm = after_tool(armed["sm"], CONFIG, "set_party_size", {"party_size": 2}, {"ok": True})
    settled = _turn(sm, "", rechecks_after_model=True)
    assert settled["sm"]["filled"]["party_size"] == 2
    assert settled["action"]["message"] == "Under what name?"
    assert settled["action"]["reason"] not in {"steer_back_hard", "steer_back_escalate"}


def test_rechecks_after_model_must_be_a_bool() -> None:
    with pytest.raises(EngineInputError, match="rechecks_after_model") as caught:
        _turn({}, "hi", rechecks_after_model="yes")
    assert caught.value.code == "invalid_rechecks_after_model"
    assert "recheck_after_model" in caught.value.fix
