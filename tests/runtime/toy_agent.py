"""The spec's toy reservation agent (§2.1, §2.2) as a runtime agent, for the worked examples §13–§15."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from slotgraph.runtime import Agent, Model

FIXED_NOW = datetime.datetime(2026, 7, 11, 12, 0, tzinfo=datetime.UTC)


def clock() -> datetime.datetime:
    return FIXED_NOW


def toy_dag(
    *, readback: bool = False, availability_retries: int = 1, gate_slot: str | None = None
) -> dict[str, Any]:
    """The §2 config. §13/§14 run without readback (values go straight to ``filled``); §15 with it."""
    dag: dict[str, Any] = {
        "slots": [
            {"name": "num_guests", "source": "user", "setter": "set_num_guests", "ask": "How many guests?",
             "hint": "Number of guests", "requires_readback": readback,
             "readback_fmt": {"type": "plural", "one": "guest", "other": "guests"}},
            {"name": "date", "source": "user", "setter": "set_date", "ask": "What date works for you?",
             "hint": "Date of the visit", "requires_readback": readback},
            {"name": "open_slots", "source": "task:CheckAvailability"},
            {"name": "chosen_time", "source": "user", "setter": "set_chosen_time", "requires": ["open_slots"],
             "ask": "We have {open_slots}. Which time?", "hint": "Chosen time",
             "requires_readback": readback},
            {"name": "name", "source": "user", "setter": "set_name", "ask": "What name for the reservation?",
             "hint": "Name for the reservation", "requires_readback": readback},
            {"name": "confirmation", "source": "task:MakeReservation"},
        ],
        "tasks": [
            {"name": "CheckAvailability", "tool": "check_availability", "inputs": ["num_guests", "date"],
             "outputs": {"open_slots": "open_slots"}, "success_check": "success",
             "then_say": "We have {open_slots}. Which time works?",
             "on_failure": {"retry_say": "No availability for that date. Try another?",
                            "max_retries": availability_retries, "clear_slots": ["date"],
                            "on_exhaust": {"say": "Please call us at 555-0100.", "then": "escalate"}}},
            {"name": "MakeReservation", "tool": "make_reservation",
             "inputs": ["num_guests", "date", "chosen_time", "name"],
             "outputs": {"confirmation": "confirmation"}, "success_check": "success", "terminal": True,
             "then_say": "Confirmed! Number: {confirmation}.",
             "on_failure": {"retry_say": "Let me try once more.", "max_retries": 2,
                            "on_exhaust": {"say": "Please call us directly.", "then": "escalate"}}},
        ],
        "confirm_transition_prefix": ["Wonderful!"],
    }  # fmt: skip
    if gate_slot is not None:
        dag["gate_slot"] = gate_slot
    return dag


class Backend:
    """The toy restaurant backend; records executor calls and can be told which dates are fully booked."""

    def __init__(self, booked_dates: tuple[str, ...] = ()) -> None:
        self.booked_dates = set(booked_dates)
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def tools(self) -> list[Callable[..., Any]]:
        backend = self

        def set_num_guests(count: int) -> dict[str, Any]:
            """Record the number of guests.

            Args:
                count: How many people, as a whole number.
            """
            return {"stored": True, "value": count}

        def set_date(date: str) -> dict[str, Any]:
            """Record the preferred date in YYYY-MM-DD format."""
            return {"stored": True, "value": date}

        def set_chosen_time(time: str) -> dict[str, Any]:
            """Record the chosen time as HH:MM."""
            return {"stored": True, "value": time}

        def set_name(name: str) -> dict[str, Any]:
            """Record the name for the reservation."""
            return {"stored": True, "value": name}

        def check_availability(num_guests: int, date: str) -> dict[str, Any]:
            """Look up free tables."""
            backend.calls.append(("check_availability", {"num_guests": num_guests, "date": date}))
            if date in backend.booked_dates:
                return {"success": False, "reason": "fully booked"}
            slots = "8 PM" if date == "2026-07-19" else "6 PM, 7:30 PM, 9 PM"
            return {"success": True, "open_slots": slots}

        def make_reservation(num_guests: int, date: str, chosen_time: str, name: str) -> dict[str, Any]:
            """Book the table."""
            backend.calls.append(("make_reservation", {"num_guests": num_guests, "date": date}))
            return {"success": True, "confirmation": "RES-4821"}

        return [set_num_guests, set_date, set_chosen_time, set_name, check_availability, make_reservation]


def toy_agent(model: Model, backend: Backend, **dag_options: Any) -> Agent:
    return Agent.from_config(
        toy_dag(**dag_options),
        tools=backend.tools(),
        instruction="You are the host of a small restaurant.",
        model=model,
        name="toy",
    )
