"""The peers' tools in the conversation design: the details stay in the conversation.

The tools are Slotgraph's example backend (``find_available_times``, ``book_reservation``, ``end_session``)
behind the checks Slotgraph's setters make (party size 1-12, a date not in the past, a time in HH:MM among
the free ones), so a peer refuses what Slotgraph's agent refuses. The model keeps the collected details in
the conversation and calls a tool only to check availability, to book and to hand over: the fewest model
calls a prompt-driven agent can make.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from .backend import backend
from .shared import end_session


def make_tools(today: datetime.date) -> list[Callable[..., Any]]:
    """The booking's tools, checking dates against ``today``."""

    def find_available_times(party_size: int, preferred_date: str) -> dict[str, Any]:
        """Look up the free times for a party on a date.

        party_size: the number of guests, 1 to 12.
        preferred_date: the date in YYYY-MM-DD format.
        """
        checked = backend.set_reservation_basics(party_size, preferred_date, today=today)
        if checked["field_errors"]:
            return {"success": False, "errors": checked["field_errors"]}
        return backend.find_available_times(party_size, preferred_date)

    def book_reservation(
        party_size: int,
        preferred_date: str,
        selected_time: str,
        guest_name: str,
        special_requests: str = "None",
        large_party_phone: str | None = None,
    ) -> dict[str, Any]:
        """Book the table once the guest has confirmed every detail.

        party_size: the number of guests, 1 to 12.
        preferred_date: the date in YYYY-MM-DD format.
        selected_time: one of the times find_available_times offered, in HH:MM format.
        guest_name: the name for the reservation.
        special_requests: requests, allergies or dietary needs; "None" when there are none.
        large_party_phone: a contact phone number, for 5 or more guests.
        """
        checked = backend.set_reservation_basics(party_size, preferred_date, today=today)
        errors = dict(checked["field_errors"])
        time = backend.set_selected_time(selected_time)
        free = backend.find_available_times(party_size, preferred_date)
        if time.get("error") or time["value"] not in free.get("available_times", ""):
            errors["selected_time"] = "not_available"
        if int(party_size) >= backend.LARGE_PARTY_SIZE and large_party_phone is None:
            errors["large_party_phone"] = "missing"
        elif large_party_phone is not None:
            phone = backend.set_large_party_phone(large_party_phone)
            large_party_phone = phone.get("value")
            if phone.get("error"):
                errors["large_party_phone"] = phone["error_code"]
        if errors:
            return {"success": False, "errors": errors}
        return backend.book_reservation(
            party_size, preferred_date, time["value"], guest_name, special_requests, large_party_phone
        )

    return [find_available_times, book_reservation, end_session]
