"""compute_dag_state (§3.1): priority cascade, inactive slots (§4.4), purity (§9.3), completeness (§9.2)."""

from __future__ import annotations

import copy
from typing import Any

from slotgraph.config import compile_config
from slotgraph.engine import AllDone, Announce, Ask, AwaitReadback, Fire, compute_dag_state

from .toy import toy_dag

BIG = "lambda filled: int(filled.get('n', 0)) >= 5"


def small(**task_extra: Any) -> Any:
    return compile_config(
        {
            "slots": [
                {"name": "n", "setter": "set_n", "ask": "How many?"},
                {"name": "phone", "setter": "set_phone", "ask": "Phone?", "condition": BIG},
                {"name": "gate", "setter": "set_gate", "ask": "Gate?"},
                {"name": "out", "source": "task:T"},
            ],
            "tasks": [
                {"name": "T", "tool": "t", "inputs": ["n", "phone"], "outputs": {"out": "out"}, **task_extra}
            ],
        }
    )


def test_first_unfilled_user_slot_in_declaration_order() -> None:
    dag = toy_dag()
    assert compute_dag_state(dag, {}) == Ask("num_guests")
    assert compute_dag_state(dag, {"num_guests": 4}) == Ask("date")


def test_requires_block_a_question_until_met() -> None:
    dag = toy_dag()
    # date unfilled -> asked before name; with both inputs filled the task fires instead of asking chosen_time
    filled = {"num_guests": 4, "date": "2026-07-18", "name": "Chen"}
    action = compute_dag_state(dag, filled, task_results={"CheckAvailability": {"success": False}})
    assert action == Fire("CheckAvailability", "check_availability", {"num_guests": 4, "date": "2026-07-18"})
    # chosen_time requires open_slots: skipped, all other user slots filled -> nothing to ask
    done = {"CheckAvailability": {"success": True, "open_slots": "x"}}
    assert compute_dag_state(dag, filled, task_results=done) == AllDone()
    assert compute_dag_state(dag, {**filled, "open_slots": "x"}, task_results=done) == Ask("chosen_time")


def test_fire_outranks_readback_and_readback_outranks_questions() -> None:
    dag = toy_dag()
    filled = {"num_guests": 4, "date": "d"}
    assert isinstance(compute_dag_state(dag, filled, {"name": "Chen"}), Fire)
    assert compute_dag_state(dag, {"num_guests": 4}, {"name": "C", "date": "d"}) == AwaitReadback(
        ("date", "name")
    )


def test_pending_and_deferred_slots_are_not_asked() -> None:
    dag = toy_dag()
    assert compute_dag_state(dag, {}, deferred={"num_guests": 4}) == Ask("date")


def test_a_succeeded_task_does_not_fire_again_but_a_failed_one_does() -> None:
    dag = toy_dag()
    filled = {"num_guests": 4, "date": "d"}
    ok = {"CheckAvailability": {"success": True, "open_slots": "x"}}
    assert compute_dag_state(dag, {**filled, "open_slots": "x"}, task_results=ok) == Ask("chosen_time")
    missing_output = {"CheckAvailability": {"success": True}}
    assert isinstance(compute_dag_state(dag, filled, task_results=missing_output), Fire)


def test_inactive_slots_are_skipped_and_never_block() -> None:
    dag = small()
    assert compute_dag_state(dag, {"n": 2}) == Fire("T", "t", {"n": 2})
    assert compute_dag_state(dag, {"n": 7}) == Ask("phone")
    assert compute_dag_state(dag, {"n": 7, "phone": "555"}) == Fire("T", "t", {"n": 7, "phone": "555"})
    # a stale value of an inactive slot is never passed on
    assert compute_dag_state(dag, {"n": 2, "phone": "555"}) == Fire("T", "t", {"n": 2})


def test_task_requires_gate_without_being_arguments() -> None:
    dag = small(requires=["gate"])
    assert compute_dag_state(dag, {"n": 2}) == Ask("gate")
    assert compute_dag_state(dag, {"n": 2, "gate": "ok"}) == Fire("T", "t", {"n": 2})


def test_inactive_task_never_fires() -> None:
    dag = small(condition="lambda filled: filled.get('gate') == 'go'")
    assert compute_dag_state(dag, {"n": 2}) == Ask("gate")
    assert compute_dag_state(dag, {"n": 2, "gate": "stop"}) == AllDone()
    assert isinstance(compute_dag_state(dag, {"n": 2, "gate": "go"}), Fire)


def test_announce_branch_in_declaration_order() -> None:
    dag = compile_config(
        {
            "slots": [
                {"name": "hello", "source": "announce", "message": "Hi!"},
                {"name": "n", "setter": "set_n", "ask": "How many?"},
            ]
        }
    )
    assert compute_dag_state(dag, {}) == Announce("hello")
    assert compute_dag_state(dag, {"hello": True}) == Ask("n")
    assert compute_dag_state(dag, {"hello": True, "n": 1}) == AllDone()


def test_pure_same_inputs_same_action_and_inputs_untouched() -> None:
    dag = toy_dag()
    args = (
        {"num_guests": 4, "date": "d"},
        {"name": "x"},
        {"y": 1},
        {"CheckAvailability": {"success": False}},
    )
    before = copy.deepcopy(args)
    first = compute_dag_state(dag, *args)
    assert compute_dag_state(dag, *args) == first
    assert args == before
