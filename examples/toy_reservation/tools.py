"""Tools of the spec's toy reservation agent: one setter per slot and two deterministic executors.

Setters return ``{"stored": True, "value": ...}`` (docs/tools.md#setters). The executors simulate a
restaurant: ``check_availability`` offers "6 PM, 7:30 PM, 9 PM" (Sundays, only the late table: "8 PM");
``make_reservation`` returns ``RES-4821``. The failure knob is the environment, read on every call (never at
import time):

* ``TOY_FULLY_BOOKED``: comma-separated dates (YYYY-MM-DD) on which ``check_availability`` fails with
  ``{"success": False, "reason": "fully booked"}``;
* ``TOY_FAIL``: comma-separated tool names that fail (``make_reservation`` → a booking failure);
* ``TOY_FAIL_ONCE``: comma-separated tool names that fail on their next call only (the tool takes itself off
  the list as it fails), so a retry with the same inputs succeeds.

Scenarios set them through their ``env:`` key.
"""

from __future__ import annotations

import datetime
import os
from typing import Any

__all__ = [
    "check_availability",
    "escalate",
    "make_reservation",
    "set_chosen_time",
    "set_date",
    "set_name",
    "set_num_guests",
]

FULLY_BOOKED_ENV = "TOY_FULLY_BOOKED"
FAIL_ENV = "TOY_FAIL"
FAIL_ONCE_ENV = "TOY_FAIL_ONCE"
SUNDAY = 6


def _listed(variable: str) -> set[str]:
    return {item.strip() for item in os.environ.get(variable, "").split(",") if item.strip()}


def _fails(tool: str) -> bool:
    """Whether ``tool`` fails now (``TOY_FAIL``, or ``TOY_FAIL_ONCE``, which this call then consumes)."""
    once = _listed(FAIL_ONCE_ENV)
    if tool in once:
        os.environ[FAIL_ONCE_ENV] = ",".join(sorted(once - {tool}))
        return True
    return tool in _listed(FAIL_ENV)


def set_num_guests(num_guests: int) -> dict[str, Any]:
    """Record the number of guests.

    Args:
        num_guests: How many people, as a whole number ("four of us" -> 4).
    """
    return {"stored": True, "value": num_guests}


def set_date(date: str) -> dict[str, Any]:
    """Record the date of the visit.

    Args:
        date: The date in YYYY-MM-DD format; convert "next Friday" to a date.
    """
    return {"stored": True, "value": date}


def set_chosen_time(chosen_time: str) -> dict[str, Any]:
    """Record the time the guest chose.

    Args:
        chosen_time: The time in 24-hour HH:MM format ("7:30 PM" -> "19:30").
    """
    return {"stored": True, "value": chosen_time}


def set_name(name: str) -> dict[str, Any]:
    """Record the name for the reservation.

    Args:
        name: The name as the guest gave it.
    """
    return {"stored": True, "value": name}


def check_availability(num_guests: int, date: str) -> dict[str, Any]:
    """Look up free tables for a party on a date (simulated, deterministic)."""
    if _fails("check_availability") or date in _listed(FULLY_BOOKED_ENV):
        return {"success": False, "reason": "fully booked"}
    try:
        sunday = datetime.date.fromisoformat(date).weekday() == SUNDAY
    except ValueError:
        return {"success": False, "reason": "invalid date"}
    return {"success": True, "open_slots": "8 PM" if sunday else "6 PM, 7:30 PM, 9 PM"}


def make_reservation(num_guests: int, date: str, chosen_time: str, name: str) -> dict[str, Any]:
    """Book the table (simulated). Returns the confirmation number."""
    if _fails("make_reservation"):
        return {"success": False, "reason": "booking system unavailable"}
    return {"success": True, "confirmation": "RES-4821"}


def escalate(reason: str = "") -> dict[str, Any]:
    """Hand the conversation over to a member of staff.

    The runtime has this tool built in; it is defined here so ``slotgraph validate`` finds the spec's
    ``on_exhaust.then: escalate`` target in the tools module.

    Args:
        reason: Why the conversation is handed over.
    """
    return {"transferred": True, "reason": reason}
