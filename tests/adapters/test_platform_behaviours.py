"""What the original platform's engine emits where the spec is silent (docs/migration.md): the plain
``Pending confirmation`` readback scope, the quiet readback while nothing changed, ``<deferred_collection>``
against the last snapshot, and the readback tools' result shapes."""

from __future__ import annotations

from typing import Any

from slotgraph.adapters.cxas import slot_filling_engine

CONFIG: dict[str, Any] = {
    "slots": [
        {"name": "size", "setter": "set_size", "ask": "How many?", "requires_readback": True,
         "readback_fmt": {"type": "plural", "one": "guest", "other": "guests"}},
        {"name": "day", "setter": "set_day", "ask": "Which day?", "requires_readback": True,
         "readback_fmt": "date"},
        {"name": "name", "setter": "set_name", "ask": "Your name?", "requires_readback": True},
        {"name": "ref", "source": "task:Book"},
    ],
    "tasks": [
        {"name": "Book", "tool": "book", "inputs": ["size", "day", "name"], "readback_inputs": False,
         "outputs": {"ref": "ref"}, "success_check": "ok", "terminal": True},
    ],
}  # fmt: skip

_EMPTY = {"filled": {}, "pending": {}, "deferred": {}}


GROUPED: dict[str, Any] = {**CONFIG, "tasks": [{**CONFIG["tasks"][0], "readback_inputs": True}]}


def _run(sm: dict[str, Any], text: str = "", config: dict[str, Any] = CONFIG) -> dict[str, Any]:
    out: dict[str, Any] = slot_filling_engine({"raw_config": config, "sm": sm, "last_user_text": text})
    return out


def test_a_fresh_readback_carries_the_plain_pending_confirmation_scope() -> None:
    out = _run({"pending": {"size": 4, "day": "2030-04-09"}, "_last_state": _EMPTY})
    assert out["action"]["si_suffix"] == (
        "<readback_scope>\nPending confirmation: 4 guests, on April 9th.\n</readback_scope>"
    )
    assert out["action"]["message"].startswith("Just to confirm")


def test_the_readback_is_quiet_while_nothing_changed() -> None:
    first = _run({"pending": {"size": 4}, "_last_state": _EMPTY})
    assert first["action"]["message"]
    quiet = _run(first["sm"], "what's on the menu?")
    assert quiet["action"]["message"] == ""  # the platform's empty message, never null
    assert quiet["action"]["preempt"] is False
    assert "Pending confirmation: 4 guests." in quiet["action"]["si_suffix"]
    assert (
        "set_size" in quiet["action"]["hide_tools"] or "confirm_pending" not in quiet["action"]["hide_tools"]
    )
    # a correction changes the state: the readback is said again
    corrected = dict(quiet["sm"], pending={"size": 5})
    again = _run(corrected, "")
    assert "5 guests" in again["action"]["message"]


def test_a_post_tool_invocation_is_never_quiet() -> None:
    first = _run({"pending": {"size": 4}, "_last_state": _EMPTY})
    assert _run(first["sm"], "")["action"]["message"]


def test_deferred_collection_is_emitted_against_the_last_snapshot() -> None:
    # 'name' entered deferred since the previous invocation (routed by someone else): still announced
    sm = {"filled": {"size": 4}, "deferred": {"name": "Chen"}, "_last_state": _EMPTY}
    out = _run(sm, config=GROUPED)
    assert out["action"]["si_suffix"].startswith("<deferred_collection>\nThe value(s) just collected (name)")
    # once the snapshot holds it, nothing more is said
    assert "<deferred_collection>" not in _run(out["sm"], config=GROUPED)["action"]["si_suffix"]
