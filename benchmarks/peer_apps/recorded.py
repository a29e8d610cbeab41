"""The peers' tools in the record design: each detail is recorded in the framework's state as it is given.

What the tools do, whatever the framework: ``record_details`` checks what the guest said with Slotgraph's
own setters (party size 1-12, a date not in the past, a time in HH:MM among the free ones, a phone number)
and keeps the valid values in the conversation's state — the framework's own per-conversation state, handed
in by each ``*_record_app.py`` module; ``find_available_times`` and ``book_reservation`` read that state,
so the model passes nothing twice. ``end_session`` is :mod:`.shared`'s.
"""

from __future__ import annotations

import datetime
from typing import Any, Protocol

from .backend import backend

REQUIRED = ("party_size", "preferred_date", "selected_time", "guest_name", "special_requests")

RECORD_DOC = """Record details of the reservation as soon as the guest gives them; it checks each one.

Pass only what the guest just said; every field is optional.
party_size: the number of guests, 1 to 12.
preferred_date: the date in YYYY-MM-DD format.
selected_time: one of the times find_available_times offered, in HH:MM format.
guest_name: the name for the reservation.
special_requests: requests, allergies or dietary needs; "None" when there are none.
large_party_phone: a contact phone number, for 5 or more guests.
"""
FIND_DOC = "Look up the free times for the recorded party size and date."
BOOK_DOC = "Book the table with the recorded details, once the guest has confirmed them all."


class Details(Protocol):
    """A framework's per-conversation state, as these functions use it."""

    def get(self, key: str, default: Any = None) -> Any: ...

    def __setitem__(self, key: str, value: Any) -> None: ...


def record(details: Details, today: datetime.date, **given: Any) -> dict[str, Any]:
    """Check what the guest said (the arguments given, None for not said) and keep the valid values in
    ``details``: what was recorded, what was not and why."""
    said = {name: value for name, value in given.items() if value is not None}
    values: dict[str, Any] = {}
    basics = backend.set_reservation_basics(said.get("party_size"), said.get("preferred_date"), today=today)
    values.update(basics["values"])
    errors: dict[str, str] = dict(basics["field_errors"])
    guest = backend.set_guest_info(said.get("guest_name"), said.get("special_requests"))
    values.update(guest["values"])
    errors.update(guest["field_errors"])
    if said.get("large_party_phone") is not None:
        phone = backend.set_large_party_phone(said["large_party_phone"])
        if phone.get("error"):
            errors["large_party_phone"] = phone["error_code"]
        else:
            values["large_party_phone"] = phone["value"]
    if said.get("selected_time") is not None:
        time = backend.set_selected_time(said["selected_time"])
        free = find_times({**_recorded(details), **values})
        if time.get("error"):
            errors["selected_time"] = time["error_code"]
        elif time["value"] not in free.get("available_times", ""):
            errors["selected_time"] = "not_available"
        else:
            values["selected_time"] = time["value"]
    for name, value in values.items():
        details[name] = value
    return {"recorded": values, "errors": errors}


def find_times(details: Details | dict[str, Any]) -> dict[str, Any]:
    """The free times for the recorded party size and date."""
    if details.get("party_size") is None or details.get("preferred_date") is None:
        return {"success": False, "error": "record the party size and the date first"}
    return dict(backend.find_available_times(details.get("party_size"), details.get("preferred_date")))


def book(details: Details) -> dict[str, Any]:
    """Book what was recorded, or say what is missing."""
    recorded = _recorded(details)
    missing = [name for name in REQUIRED if name not in recorded]
    if int(recorded.get("party_size", 0)) >= backend.LARGE_PARTY_SIZE and "large_party_phone" not in recorded:
        missing.append("large_party_phone")
    if missing:
        return {"success": False, "missing": missing}
    return dict(backend.book_reservation(**recorded))


def _recorded(details: Details) -> dict[str, Any]:
    return {
        name: details.get(name) for name in (*REQUIRED, "large_party_phone") if details.get(name) is not None
    }
