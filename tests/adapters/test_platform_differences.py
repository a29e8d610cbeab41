"""Keys both the platform and Slotgraph accept but read differently: Slotgraph keeps its reading, and each
difference is listed in docs/migration.md. One test per row, pinning Slotgraph's side."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from slotgraph.adapters.cxas import after_tool, slot_filling_engine
from slotgraph.config import compile_formatter
from slotgraph.engine.text import DEFAULT_EXHAUST_MESSAGE, DEFAULT_TRANSITION_PREFIX

MIGRATION = Path(__file__).resolve().parents[2] / "docs" / "migration.md"
_EMPTY = {"filled": {}, "pending": {}, "deferred": {}}


def _config(**task: Any) -> dict[str, Any]:
    return {
        "slots": [
            {"name": "size", "setter": "set_size", "ask": "How many?", "requires_readback": True},
            {"name": "times", "source": "task:Find"},
            {
                "name": "time",
                "setter": "set_time",
                "ask": "Which time?",
                "requires": ["times"],
                "validate_against": {"response_field": "value", "filled_slot": "times", "error_code": "na"},
                "validation": {"errors": {"na": "Not offered."}},
            },
        ],
        "tasks": [
            {"name": "Find", "tool": "find", "inputs": ["size"], "outputs": {"times": "times"}, **task}
        ],
    }


def _run(config: dict[str, Any], sm: dict[str, Any], text: str = "") -> dict[str, Any]:
    out: dict[str, Any] = slot_filling_engine({"raw_config": config, "sm": sm, "last_user_text": text})
    return out


def test_the_migration_guide_lists_every_difference() -> None:
    text = MIGRATION.read_text(encoding="utf-8")
    for topic in (
        "auto-confirmed",
        "missing an `outputs` key",
        "`on_exhaust` without `then`",
        "`on_failure.clear_slots`",
        "`validate_against`",
        "unparseable value",
        "`readback_fmt: plural` on a non-number",
        "default texts",
        "placeholders",
        "question slot that is not preempted",
        "event pre-fill",
    ):
        assert topic in text, topic


def test_an_auto_confirmed_yes_still_counts_for_steer_back() -> None:
    sm = {"pending": {"size": 4}, "_last_state": {**_EMPTY, "pending": {"size": 4}}, "_steer_back_turns": 1}
    out = _run(_config(), sm, "yes")
    assert out["action"]["function_call"]["name"] == "confirm_pending"
    assert out["sm"]["_steer_back_turns"] == 2


def test_a_result_missing_an_output_key_is_a_failure() -> None:
    sm = after_tool({"filled": {"size": 4}}, _config(success_check="ok"), "find", {}, {"ok": True})
    assert "times" not in sm["filled"]
    out = _run(_config(success_check="ok"), sm)
    assert out["action"]["reason"] == "task_exhaust"  # a failure (no on_failure: one try)
    assert out["sm"]["status"] == "escalated"


def test_on_exhaust_without_then_escalates() -> None:
    config = _config(success_check="ok", on_failure={"max_retries": 1, "on_exhaust": {"say": "Sorry."}})
    sm = {"filled": {"size": 4}, "task_results": {"Find": {"ok": False}}, "_task_just_completed": "Find"}
    out = _run(config, sm)
    assert out["sm"]["status"] == "escalated" and out["action"]["function_call"] is None


def test_clear_slots_are_kept_on_the_exhausting_failure() -> None:
    config = _config(success_check="ok", on_failure={"max_retries": 1, "clear_slots": ["size"]})
    sm = {"filled": {"size": 4}, "task_results": {"Find": {"ok": False}}, "_task_just_completed": "Find"}
    out = _run(config, sm)
    assert out["sm"]["filled"]["size"] == 4
    assert out["action"]["message"] == DEFAULT_EXHAUST_MESSAGE  # Slotgraph's own default text


def test_validate_against_is_case_insensitive() -> None:
    sm = {"filled": {"size": 4, "times": "7:00 PM, 8:00 PM"}}
    routed = after_tool(sm, _config(), "set_time", {"time": "7:00 pm"}, {"stored": True, "value": "7:00 pm"})
    assert routed["pending"] == {"time": "7:00 pm"} and routed["_slot_errors"] == []


def test_date_time_and_plural_formatters_print_what_they_cannot_read() -> None:
    assert compile_formatter("time")("tomorrow evening") == "tomorrow evening"
    assert compile_formatter("date")("next week") == "next week"
    assert compile_formatter({"type": "plural", "one": "guest", "other": "guests"})("a few") == "a few"


def test_the_transition_prefix_defaults_to_slotgraphs_text() -> None:
    sm = {"filled": {"size": 4, "times": "7:00 PM"}, "task_results": {"Find": {"times": "7:00 PM"}}}
    sm["_readback_transition"] = True
    out = _run(_config(), sm)
    assert out["action"]["message"].startswith(DEFAULT_TRANSITION_PREFIX)
