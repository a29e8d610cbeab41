"""Which slots and tasks are active: each condition is judged on ``filled`` as it is when the question is
asked, so a slot filled or cleared earlier in the same invocation counts at once; the public helpers read the
session variables they are given, as the engine does."""

from __future__ import annotations

import copy
from typing import Any

from tests.engine.spec_view import run_engine

from slotgraph.config import compile_config
from slotgraph.engine import compute_dag_state, compute_hidden_tools, find_next_question, gate_open

BIG = "lambda filled: int(filled.get('party_size', 0)) >= 5"
VEGAN = "diet == 'vegan'"
CONFIG: dict[str, Any] = {
    "slots": [
        {"name": "welcome", "source": "announce", "message": "Welcome!", "preempt": False},
        {"name": "party_size", "setter": "set_party_size", "ask": "How many?"},
        {"name": "phone", "setter": "set_phone", "ask": "Phone?", "condition": BIG},
        {"name": "diet", "setter": "set_diet", "ask": "Diet?"},
        {"name": "menu", "setter": "set_menu", "ask": "Vegan menu?", "condition": VEGAN},
        {"name": "note", "setter": "set_note", "ask": "Note?", "condition": "lambda f: len(f) > 2"},
    ],
    "tasks": [{"name": "Book", "tool": "book", "inputs": ["party_size", "phone", "diet", "menu"]}],
}


def test_conditions_decide_the_next_question() -> None:
    dag = compile_config(CONFIG)
    result = run_engine(dag, {})
    assert result.action["message"] == "Welcome! How many?"
    state = {**result.sm, "filled": {"welcome": True, "party_size": 6}}
    result = run_engine(dag, state, last_user_text="six")
    assert result.action["message"] == "Phone?"


def test_a_condition_sees_a_slot_filled_earlier_in_the_invocation() -> None:
    # ``size`` is asked only after the welcome: its condition is false until the announce cascade fills
    # ``welcome`` mid-invocation, and is judged on the filled welcome then.
    config = copy.deepcopy(CONFIG)
    config["slots"][1]["condition"] = "welcome == True"
    result = run_engine(compile_config(config), {})
    assert result.action["message"] == "Welcome! How many?"
    assert "set_party_size" not in result.action["hide_tools"]


def test_deactivation_sees_each_removal_at_once() -> None:
    # ``b`` is judged (inactive: ``a`` is there) when pending values are routed, before deactivation. Removing
    # ``a`` (inactive) then makes ``b`` active again within the same pass: ``b`` must keep its value.
    config = {
        "slots": [
            {"name": "gate", "setter": "set_gate", "ask": "Gate?"},
            {"name": "a", "setter": "set_a", "ask": "A?", "condition": "gate == 'open'"},
            {
                "name": "b",
                "setter": "set_b",
                "ask": "B?",
                "requires_readback": True,
                "condition": "lambda f: f.get('a') == None",
            },
        ]
    }
    dag = compile_config(config)
    result = run_engine(dag, {"filled": {"gate": "shut", "a": 1}, "pending": {"b": 2}})
    assert (result.sm["filled"], result.sm["pending"]) == ({"gate": "shut"}, {"b": 2})


def test_a_loop_that_clears_slots_sees_their_conditions_again() -> None:
    # The phone slot is active while party_size >= 5. A terminal task that loops (on_complete) clears
    # party_size: in the same invocation the phone setter must be judged on the cleared state (hidden: the
    # condition is false without party_size) — not on the verdict taken before the clear.
    config = copy.deepcopy(CONFIG)
    config["tasks"] = [
        {"name": "Book", "tool": "book", "inputs": ["party_size"], "terminal": True,
         "on_complete": {"clear_slots": ["party_size", "phone"]}},
    ]  # fmt: skip
    dag = compile_config(config)
    state = {
        "filled": {"welcome": True, "party_size": 6},
        "task_results": {"Book": {"ok": True}},
        "_task_just_completed": "Book",
    }
    result = run_engine(dag, state)
    assert result.action["reason"] == "task_loop"
    assert "party_size" not in result.sm["filled"]
    assert "set_phone" in result.action["hide_tools"]
    assert "set_party_size" not in result.action["hide_tools"]


def test_the_public_helpers_read_the_session_variables() -> None:
    config = {
        "slots": [
            {"name": "card", "setter": "set_card", "ask": "Card?", "condition": "not vip"},
            {"name": "name", "setter": "set_name", "ask": "Name?"},
        ],
        "gate_slot": "card",
    }
    dag = compile_config(config)
    vip = {"vip": True}
    assert compute_dag_state(dag, {}).slot == "card"
    assert compute_dag_state(dag, {}, variables=vip).slot == "name"
    assert find_next_question(dag, {}, variables=vip).name == "name"
    assert "set_card" not in compute_hidden_tools(dag, {}, {}, {}, fresh_pending=False)
    assert "set_card" in compute_hidden_tools(dag, {}, {}, {}, fresh_pending=False, variables=vip)
    assert not gate_open(dag, {"filled": {}})
    assert gate_open(dag, {"filled": {}}, variables=vip)  # an inactive gate slot does not hold the gate
