"""The ``--show-state`` panel and the playground's session view show early answers, changes, held values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from rich.console import Console

from slotgraph.cli.chat_panel import state_panel, turn_summary
from slotgraph.config import compile_config
from slotgraph.server.views import session_view

BELLA = Path(__file__).resolve().parents[2] / "examples" / "bella_notte" / "dag.yaml"
STATE: dict[str, Any] = {
    "filled": {"welcome": True, "party_size": 4, "preferred_date": "2026-07-17"},
    "pending": {"party_size": 6},
    "_changes": {"party_size": 4},
    "_candidates": {"selected_time": "19:00"},
    "_held": {"guest_name": "Chen"},
    "status": "in_progress",
}


def _dag() -> Any:
    return compile_config(yaml.safe_load(BELLA.read_text(encoding="utf-8")))


def _text(state: dict[str, Any]) -> str:
    console = Console(record=True, width=160)
    console.print(state_panel(turn_summary(_dag(), state)))
    return console.export_text()


def test_the_panel_lists_early_answers_changes_and_held_values() -> None:
    text = _text(STATE)
    assert "early answers" in text and "selected_time=19:00" in text
    assert "changing" in text and "party_size=4" in text
    assert "held" in text and "guest_name=Chen" in text


def test_the_panel_has_no_such_rows_without_them() -> None:
    text = _text({"filled": {"welcome": True}, "status": "in_progress"})
    assert "early answers" not in text and "changing" not in text and "held " not in text


def test_a_slot_being_changed_is_not_asked_as_a_task_input() -> None:
    summary = turn_summary(_dag(), STATE)
    assert summary.asking == "confirmation of party_size"
    assert summary.changing == {"party_size": 4} and summary.early == {"selected_time": "19:00"}


def test_the_playground_view_carries_them() -> None:
    view = session_view(_dag(), STATE)
    assert view["candidates"] == {"selected_time": "19:00"}
    assert view["changes"] == {"party_size": 4}
    assert view["held"] == {"guest_name": "Chen"}
    empty = session_view(_dag(), {"filled": {}})
    assert empty["candidates"] == {} and empty["changes"] == {} and empty["held"] == {}
