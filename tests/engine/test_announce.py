"""Announce slots (spec §12.3) and task ``requires`` gates (§12.4)."""

from __future__ import annotations

from typing import Any

from tests.engine.spec_view import run_engine

from slotgraph.config import compile_config
from slotgraph.engine import after_tool, confirm_pending


def _raw(*announces: dict[str, Any], task_requires: list[str] | None = None) -> dict[str, Any]:
    return {
        "slots": [
            *announces,
            {"name": "party_size", "setter": "set_party_size", "ask": "How many guests will be dining?"},
            {"name": "done", "source": "task:Book"},
        ],
        "tasks": [
            {"name": "Book", "tool": "book", "inputs": ["party_size"], "requires": task_requires or [],
             "outputs": {"done": "done"}, "terminal": True, "then_say": "Booked."},
        ],
    }  # fmt: skip


WELCOME = {
    "name": "welcome",
    "source": "announce",
    "message": "Welcome to Bella Notte! I'd be happy to help with a reservation.",
    "preempt": False,
}


def test_guided_announce_and_the_first_question_in_one_reply() -> None:
    """§12.3 "Cascade Behavior": the spec's exact example text."""
    out = run_engine(compile_config(_raw(WELCOME)), {})
    assert out.action["message"] == (
        "Welcome to Bella Notte! I'd be happy to help with a reservation. How many guests will be dining?"
    )
    assert out.action["preempt"] is False and out.action["force_preempt"] is False  # guided: the model runs
    assert out.sm["filled"] == {"welcome": True}


def test_preempt_announce_is_forced_even_on_the_first_turn() -> None:
    raw = _raw({"name": "disclosure", "source": "announce", "message": "Calls are recorded."})
    out = run_engine(compile_config(raw), {})
    assert out.action["preempt"] is True and out.action["force_preempt"] is True
    assert out.action["message"] == "Calls are recorded. How many guests will be dining?"


def test_consecutive_announces_cascade_with_concatenated_messages() -> None:
    raw = _raw(
        WELCOME,
        {"name": "hours", "source": "announce", "message": "We are open until 11 PM.", "preempt": False},
    )
    out = run_engine(compile_config(raw), {}, debug=True)
    assert out.action["message"] == (
        "Welcome to Bella Notte! I'd be happy to help with a reservation. We are open until 11 PM."
        " How many guests will be dining?"
    )
    assert [e["slot"] for e in out.debug_log if e["tag"] == "announce"] == ["welcome", "hours"]
    assert out.sm["filled"]["welcome"] is True and out.sm["filled"]["hours"] is True


def test_an_announce_fires_once() -> None:
    dag = compile_config(_raw(WELCOME))
    sm = run_engine(dag, {}).sm
    again = run_engine(dag, sm, last_user_text="hi")
    assert again.action["message"] == "How many guests will be dining?"


def test_announce_requires_waits_for_its_slot() -> None:
    note = {"name": "note", "source": "announce", "message": "A table for {party_size}, lovely.",
            "requires": ["party_size"], "preempt": False}  # fmt: skip
    raw = _raw(note)
    raw["slots"].insert(2, {"name": "date", "setter": "set_date", "ask": "Which date?"})
    raw["tasks"][0]["inputs"] = ["party_size", "date"]
    dag = compile_config(raw)  # slots: note (requires party_size), party_size, date
    first = run_engine(dag, {})
    assert first.action["message"] == "How many guests will be dining?" and "note" not in first.sm["filled"]
    sm = after_tool(first.sm, dag, "set_party_size", {"n": 2}, {"stored": True, "value": 2})
    out = run_engine(dag, sm)
    assert out.sm["filled"]["note"] is True
    assert out.action["message"] == "A table for 2, lovely. Which date?"


def test_announce_condition() -> None:
    big = {"name": "big", "source": "announce", "message": "Large parties get a set menu.", "preempt": False,
           "requires": ["party_size"],
           "condition": "lambda filled: int(filled.get('party_size', 0)) >= 8"}  # fmt: skip
    raw = _raw(big, task_requires=["big"])
    raw["slots"].append(raw["slots"].pop(0))
    dag = compile_config(raw)
    small = after_tool({}, dag, "set_party_size", {"n": 2}, {"stored": True, "value": 2})
    out = run_engine(dag, small)
    assert "big" not in out.sm["filled"]  # inactive: skipped and does not gate the task
    assert out.action["function_call"] == {"name": "book", "args": {"party_size": 2}}
    large = after_tool({}, dag, "set_party_size", {"n": 9}, {"stored": True, "value": 9})
    out = run_engine(dag, large)
    assert out.sm["filled"]["big"] is True
    assert out.action["message"] == "Large parties get a set menu."
    assert out.action["function_call"] == {
        "name": "book",
        "args": {"party_size": 9},
    }  # requires, not an input


def test_task_requires_gates_on_an_announce_that_comes_after_the_inputs() -> None:
    """§12.4: a terms disclosure delivered before booking; the gate is not passed to the tool."""
    terms = {"name": "terms_disclosure", "source": "announce",
             "message": "Cancellations need 24 hours notice.", "requires": ["party_size"]}  # fmt: skip
    raw = _raw(task_requires=["terms_disclosure"])
    raw["slots"].insert(1, terms)
    dag = compile_config(raw)
    sm = after_tool({}, dag, "set_party_size", {"n": 3}, {"stored": True, "value": 3})
    out = run_engine(dag, sm)
    assert out.action["message"] == "Cancellations need 24 hours notice."
    assert out.action["function_call"] == {"name": "book", "args": {"party_size": 3}}
    assert out.action["force_preempt"] is True


def test_task_requires_on_a_user_slot_blocks_until_filled() -> None:
    raw = _raw(task_requires=["agree"])
    raw["slots"].insert(1, {"name": "agree", "setter": "set_agree", "ask": "Do you agree?",
                            "requires_readback": True})  # fmt: skip
    dag = compile_config(raw)
    sm = after_tool({}, dag, "set_party_size", {"n": 3}, {"stored": True, "value": 3})
    out = run_engine(dag, sm)
    assert out.action["function_call"] is None and out.action["message"] == "Do you agree?"
    sm = after_tool(out.sm, dag, "set_agree", {"a": True}, {"stored": True, "value": True})
    sm = run_engine(dag, sm).sm
    fire = run_engine(dag, confirm_pending(sm))
    assert fire.action["function_call"] == {"name": "book", "args": {"party_size": 3}}
