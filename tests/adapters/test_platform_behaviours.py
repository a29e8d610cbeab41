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


def test_a_grouped_readback_in_platform_state_is_confirmed_by_yes_not_read_again() -> None:
    """The platform's state while a grouped readback waits has no ``_promoted_from_deferred``: "yes" confirms
    the group instead of deferring it and reading it all back again with confirm/reject hidden."""
    from slotgraph.adapters.cxas import slot_filling_engine

    def slot(name: str, setter: str, **more: Any) -> dict[str, Any]:
        ask = f"{name}?"
        return {
            "name": name,
            "source": "user",
            "setter": setter,
            "ask": ask,
            "requires_readback": True,
            **more,
        }

    config = {
        "slots": [
            slot("when", "set_when"),
            slot("name", "set_info", setter_field="name"),
            slot("notes", "set_info", setter_field="notes"),
            {"name": "ref", "source": "task:Book"},
        ],
        "tasks": [
            {"name": "Book", "tool": "book", "inputs": ["when", "name", "notes"], "outputs": {"ref": "ref"},
             "success_check": "success", "terminal": True, "readback_inputs": True},
        ],
    }  # fmt: skip
    group = {"name": "Dana", "notes": "none"}
    heard = {"filled": {"when": "x"}, "pending": dict(group), "deferred": {}}  # the previous call's snapshot
    sm = {**heard, "pending": dict(group), "task_results": {}, "status": "in_progress", "_last_state": heard}
    out = slot_filling_engine({"raw_config": config, "sm": sm, "last_user_text": "yes"})
    action = out["action"]
    assert action["function_call"] == {"name": "confirm_pending", "args": {}}  # auto-confirm
    assert "confirm_pending" not in action["hide_tools"] and action["message"] == ""
    assert out["sm"]["pending"] == group and out["sm"]["_promoted_from_deferred"] == ["name", "notes"]
