"""Conditions are evaluated once per invocation (``engine.activity``), and memoising them changes nothing."""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.engine.spec_view import run_engine

from slotgraph.config import compile_config
from slotgraph.config.compiled import CompiledCondition
from slotgraph.engine.activity import Activity

from .test_state_fuzz import _STATE, _VALUES, BELLA

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


@pytest.fixture
def evaluations(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Counts condition evaluations by source text."""
    counts: Counter[str] = Counter()
    original = CompiledCondition.is_active

    def counting(self: CompiledCondition, filled: Mapping[str, Any]) -> bool:
        counts[self.source] += 1
        return original(self, filled)

    monkeypatch.setattr(CompiledCondition, "is_active", counting)
    yield counts


def test_each_condition_is_evaluated_once_per_invocation(evaluations: Counter[str]) -> None:
    dag = compile_config(CONFIG)
    # The welcome announce changes ``filled`` mid-invocation; no condition reads ``welcome`` except the
    # one that reads everything (``len(f)``), which is evaluated again after the change.
    result = run_engine(dag, {})
    assert result.action["message"] == "Welcome! How many?"
    assert evaluations[BIG] == 1
    assert evaluations[VEGAN] == 1
    evaluations.clear()
    state = {**result.sm, "filled": {"welcome": True, "party_size": 6}}
    result = run_engine(dag, state, last_user_text="six")
    assert result.action["message"] == "Phone?"
    assert dict(evaluations) == {BIG: 1, VEGAN: 1, "lambda f: len(f) > 2": 1}


def test_a_verdict_is_evaluated_again_when_a_slot_it_reads_changes(evaluations: Counter[str]) -> None:
    # ``size`` is asked only after the welcome: its condition is false until the announce cascade fills
    # ``welcome`` mid-invocation, and must be evaluated again then; the diet condition is not.
    config = copy.deepcopy(CONFIG)
    config["slots"][1]["condition"] = "welcome == True"
    result = run_engine(compile_config(config), {})
    assert result.action["message"] == "Welcome! How many?"
    assert "set_party_size" not in result.action["hide_tools"]
    assert evaluations["welcome == True"] == 2
    assert evaluations[VEGAN] == 1


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


class _Unmemoised(Activity):
    """Every question answered by evaluating the condition again: the reference behaviour."""

    __slots__ = ()

    def slot_active(self, name: str) -> bool:
        slot = self._dag.slot_by_name.get(name)
        return slot is None or slot.is_active(self.filled)

    def task_active(self, task: Any) -> bool:
        return task.is_active(self.filled)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sm=_STATE,
    text=st.sampled_from(["", "yes", "Yes, also my wife is vegan", "hm"]),
    event=st.none() | st.dictionaries(st.sampled_from(["party_size", "x"]), _VALUES, max_size=1),
)
def test_memoised_verdicts_give_the_same_result(
    sm: dict[str, Any], text: str, event: dict[str, Any] | None
) -> None:
    memoised = run_engine(BELLA, copy.deepcopy(sm), last_user_text=text, event_data=event, debug=True)
    with pytest.MonkeyPatch.context() as patch:
        for module in ("invocation", "dag", "visibility", "gate"):
            patch.setattr(f"slotgraph.engine.{module}.Activity", _Unmemoised)
        reference = run_engine(BELLA, copy.deepcopy(sm), last_user_text=text, event_data=event, debug=True)
    assert (memoised.sm, memoised.action, memoised.debug_log) == (
        reference.sm,
        reference.action,
        reference.debug_log,
    )


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
