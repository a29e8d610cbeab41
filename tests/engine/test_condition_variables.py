"""Slot and task conditions read the session variables the host passes (``run_engine(variables=...)``)."""

from __future__ import annotations

from typing import Any

from tests.engine.spec_view import run_engine

from slotgraph.config import compile_config
from slotgraph.config.compiled import ConditionEnv, condition_env

DAG: dict[str, Any] = {
    "slots": [
        {"name": "name", "source": "user", "setter": "set_name", "ask": "Your name?"},
        {"name": "card", "source": "user", "setter": "set_card", "ask": "Your card?", "condition": "not vip"},
        {
            "name": "note",
            "source": "user",
            "setter": "set_note",
            "ask": "A note?",
            "condition": "lambda filled: filled.get('tier') == 'gold'",
        },
    ],
    "tasks": [],
}


def _asked(variables: dict[str, Any] | None) -> str:
    result = run_engine(compile_config(DAG), {"filled": {"name": "Ada"}}, variables=variables)
    return str(result.action.get("message"))


def test_a_variable_deactivates_a_slot_and_lambdas_read_variables_too() -> None:
    assert _asked(None) == "Your card?"
    assert _asked({"vip": False}) == "Your card?"
    assert _asked({"vip": True}) != "Your card?"
    assert _asked({"vip": True, "tier": "gold"}) == "A note?"


def test_a_filled_slot_wins_over_a_variable_of_the_same_name() -> None:
    env = ConditionEnv({"vip": True}, {"vip": False, "tier": "gold"})
    assert env["vip"] is True and env.get("tier") == "gold" and env.get("none") is None
    assert dict(env) == {"vip": True, "tier": "gold"} and len(env) == 2 and "tier" in env
    filled = {"a": 1}
    assert condition_env(filled, None) is filled and condition_env(filled, {}) is filled
