"""Spec §7a.7 "Worked Example: Deferred Readback", replayed turn by turn on ``examples/bella_notte/dag.yaml``
through the spec-compatible entry ``slotgraph.adapters.cxas`` (the host's part played by hand)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from slotgraph.adapters.cxas import after_tool, confirm_pending, slot_filling_engine

BELLA = Path(__file__).resolve().parents[2] / "examples" / "bella_notte" / "dag.yaml"
TIMES = "17:30, 19:00, 20:30"


class Host:
    def __init__(self) -> None:
        self.raw: dict[str, Any] = yaml.safe_load(BELLA.read_text(encoding="utf-8"))
        self.sm: dict[str, Any] = {}

    def invoke(self, text: str = "") -> dict[str, Any]:
        out = slot_filling_engine({"raw_config": self.raw, "sm": self.sm, "last_user_text": text, "seed": 1})
        self.sm = out["sm"]
        action: dict[str, Any] = out["action"]
        return action

    def tool(self, name: str, args: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
        self.sm = after_tool(self.sm, self.raw, name, args, result)
        return self.invoke()

    def setter(self, name: str, **values: Any) -> dict[str, Any]:
        return self.tool(name, values, {"stored": True, "values": values})

    def confirm(self) -> dict[str, Any]:
        self.sm = confirm_pending(self.sm)
        return self.invoke()


def test_worked_example_7a7() -> None:
    host = Host()
    # Turn 1-4: collect party_size, date, time (normal flow with readback).
    host.invoke("")
    host.invoke("Hi, a table please")
    assert (
        host.setter("set_reservation_basics", party_size=4, preferred_date="2026-06-17")["phase"]
        == "readback"
    )
    assert host.invoke("Yes")["function_call"] == {"name": "confirm_pending", "args": {}}
    fire = host.confirm()
    assert fire["function_call"]["name"] == "find_available_times"
    host.tool(
        "find_available_times", fire["function_call"]["args"], {"success": True, "available_times": TIMES}
    )
    assert host.invoke("8:30 please")["hide_tools"].count("set_selected_time") == 0
    host.tool("set_selected_time", {"time": "20:30"}, {"stored": True, "value": "20:30"})
    assert host.invoke("Yes")["function_call"]["name"] == "confirm_pending"
    asked = host.confirm()
    assert asked["message"].endswith("What name should I put the reservation under?")
    assert host.sm["filled"] == {
        "welcome": True,
        "party_size": 4,
        "preferred_date": "2026-06-17",
        "available_times": TIMES,
        "selected_time": "20:30",
    }

    # Turn 5: User provides name. set_guest_info(guest_name="Chen") -> deferred, not complete.
    host.invoke("Chen")
    turn5 = host.setter("set_guest_info", guest_name="Chen")
    assert host.sm["pending"] == {} and host.sm["deferred"] == {"guest_name": "Chen"}
    assert turn5["phase"] == "collection" and turn5["preempt"] is False
    assert turn5["si_suffix"].startswith("<deferred_collection>\nThe value(s) just collected (guest_name)")
    assert turn5["si_suffix"].endswith(
        "Instead, proceed to ask: Do you have any special requests or dietary needs we should know about?\n"
        "</deferred_collection>"
    )

    # Turn 6: User says "No". set_guest_info(special_requests="None") -> group COMPLETE -> both pending.
    host.invoke("No")
    turn6 = host.setter("set_guest_info", special_requests="None")
    assert host.sm["pending"] == {"guest_name": "Chen", "special_requests": "None"}
    assert host.sm["deferred"] == {}
    assert {"confirm_pending", "reject_pending"} <= set(turn6["hide_tools"])  # fresh_pending = True
    assert turn6["si_suffix"] == (
        "<readback_scope>\n"
        "You MUST confirm ALL of the following values together in a single readback -- do NOT omit any:\n"
        "  - name: under the name Chen\n"
        "  - special requests: no special requests\n"
        "</readback_scope>"
    )

    # Turn 7: User says "Yes" -> auto-confirm -> BookReservation fires -> preempted confirmation.
    turn7 = host.invoke("Yes")
    assert turn7["function_call"] == {"name": "confirm_pending", "args": {}} and turn7["force_preempt"]
    book = host.confirm()
    assert book["preempt"] and book["function_call"]["name"] == "book_reservation"
    assert book["function_call"]["args"] == {
        "party_size": 4,
        "preferred_date": "2026-06-17",
        "selected_time": "20:30",
        "guest_name": "Chen",
        "special_requests": "None",
    }
    done = host.tool(
        "book_reservation", book["function_call"]["args"], {"success": True, "confirmation_number": "BN-1042"}
    )
    assert done["preempt"] is True
    assert done["message"] == "Your reservation is confirmed! Your confirmation number is BN-1042."
    assert host.sm["status"] == "complete"
