"""What every prompt-driven peer of the booking shares: its tools and its instruction.

The tools are Slotgraph's example backend (``find_available_times``, ``book_reservation``, ``end_session``)
behind the checks Slotgraph's setters make (party size 1-12, a date not in the past, a time in HH:MM among
the free ones), so a peer refuses what Slotgraph's agent refuses. The model keeps the collected details in
the conversation and calls a tool only to check availability, to book and to hand over: the fewest model
calls a prompt-driven agent can make. The process (order of questions, readbacks, retries, escalation) is
prose in the instruction, as a careful prompt engineer would write it.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from .backend import EXAMPLE, backend

PROCESS = """\
<reservation_process>
Take a table reservation, one question at a time, in this order:
1. Greet: "Welcome to Bella Notte! I'd be happy to help you with a reservation."
2. The party size: 1 to 12 guests; for larger groups give events@bellanotte.example.
3. Only for 5 or more guests: a contact phone number.
4. The date, not in the past. Read the party size and the date back ("4 guests, on July 17th") and wait
   for a yes; if the guest corrects one, read the new value back.
5. Once both are confirmed, call find_available_times and offer its times. If the day is fully booked,
   say so and ask for another date; after 2 failures, apologise, give the number 555-0100 and call
   end_session(reason="retry_exhausted", session_escalated=true).
6. The time: only one of the offered times. Read it back ("at 7:30 PM") and wait for a yes.
7. The name, then special requests or dietary needs ("None" if there are none). Read both back together
   and wait for a yes.
8. Call book_reservation with every detail, then give the confirmation number. If it fails, try once
   more; then apologise, give 555-0100 and call end_session as above.
If a tool reports an error, ask again with a short explanation; after 3 errors on one detail, give
555-0100 and call end_session. If the guest changes a confirmed detail, read the new value back and check
the availability again. If the guest drifts off topic, answer briefly and return to the open question.
</reservation_process>"""


def instructions(today: datetime.date) -> str:
    """The persona (Slotgraph's agent's ``instruction.md``), today's date and the process."""
    persona = (EXAMPLE / "instruction.md").read_text(encoding="utf-8").strip()
    return (
        f"{persona}\n\nToday is {today:%A, %B} {today.day}, {today.year} ({today.isoformat()}).\n\n{PROCESS}"
    )


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

    def end_session(reason: str, session_escalated: bool = False, note: str = "") -> dict[str, Any]:
        """End the conversation; with session_escalated the guest is handed over to a human.

        reason: why the conversation ends (e.g. "retry_exhausted").
        note: context for whoever picks the conversation up.
        """
        return backend.end_session(reason, session_escalated, note)

    return [find_available_times, book_reservation, end_session]
