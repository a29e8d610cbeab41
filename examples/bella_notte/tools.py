"""Tools of the Bella Notte reservation agent: setters, executors and the escalation tool.

Setters are pure validators (docs/tools.md#setters): they never see session state, never decide what happens
next and never phrase a message. They return ``{"stored": True, "value": ...}`` (single-slot) or
``{"stored": True, "values": {...}, "field_errors": {...}}`` (multi-slot) on success and
``{"error": True, "error_code": "..."}`` on failure; the DAG config turns error codes into words.

Executors (``find_available_times``, ``book_reservation``) are deterministic simulations of a restaurant
backend. Setting the environment variable ``BELLA_NOTTE_FAIL`` to a comma- or space-separated list of tool
names (e.g. ``BELLA_NOTTE_FAIL=book_reservation``) makes those tools fail, so the retry and escalation
paths can be exercised. The variable is read on every call, never at import time.

Docstrings follow docs/tools.md#what-the-model-sees: they say what the tool records and which format to
prepare, never when to call it or which values are allowed (tool visibility and the validation config own
that).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
from typing import Any

__all__ = [
    "book_reservation",
    "end_session",
    "find_available_times",
    "set_guest_info",
    "set_large_party_phone",
    "set_reservation_basics",
    "set_selected_time",
]

FAIL_ENV_VAR = "BELLA_NOTTE_FAIL"
MIN_PARTY_SIZE = 1
MAX_PARTY_SIZE = 12
LARGE_PARTY_SIZE = 5
FULLY_BOOKED_DAY = 25
SERVICE_TIMES = ("17:30", "18:00", "18:30", "19:00", "19:30", "20:00", "20:30", "21:00")
_PHONE_ALLOWED = re.compile(r"^\+?[0-9 ().\-]+$")
_TIME_FORMAT = re.compile(r"^\d{1,2}:\d{2}$")
_NONE_LIKE = frozenset({"", "none", "no", "nothing", "n/a", "na"})


# --- setters -------------------------------------------------------------------------------------------


def set_reservation_basics(
    party_size: int | None = None,
    preferred_date: str | None = None,
    *,
    today: datetime.date | None = None,
) -> dict[str, Any]:
    """Record the party size and/or the preferred date of the reservation.

    Pass only what the guest said; both fields are optional.
    party_size: the number of guests as a whole number ("a table for four" -> 4).
    preferred_date: the date in YYYY-MM-DD format; convert natural language ("this Friday",
    "July 4th") to YYYY-MM-DD.
    """
    # `today` is not an LLM argument: the runtime injects the session clock through it (so replays and
    # tests are deterministic); without it the host's date is used.
    values: dict[str, Any] = {}
    field_errors: dict[str, str] = {}
    if party_size is not None:
        size, code = _parse_party_size(party_size)
        if code is None:
            values["party_size"] = size
        else:
            field_errors["party_size"] = code
    if preferred_date is not None:
        day, code = _parse_future_date(preferred_date, today or datetime.date.today())
        if code is None:
            values["preferred_date"] = day
        else:
            field_errors["preferred_date"] = code
    return {"stored": True, "values": values, "field_errors": field_errors}


def set_large_party_phone(phone: str) -> dict[str, Any]:
    """Record a contact phone number for the reservation.

    Pass the number as the guest said it, digits with an optional leading '+' country code
    ("five five five, oh one hundred" -> "555-0100").
    """
    text = str(phone).strip()
    digits = re.sub(r"\D", "", text)
    if not _PHONE_ALLOWED.match(text) or not 7 <= len(digits) <= 15:
        return {"error": True, "error_code": "invalid_phone"}
    return {"stored": True, "value": ("+" if text.startswith("+") else "") + digits}


def set_selected_time(time: str) -> dict[str, Any]:
    """Record the time the guest chose, in 24-hour HH:MM format.

    Convert natural language ("half past seven in the evening", "7:30 PM") to HH:MM ("19:30").
    """
    text = str(time).strip()
    if not _TIME_FORMAT.match(text):
        return {"error": True, "error_code": "invalid_format"}
    try:
        parsed = datetime.datetime.strptime(text, "%H:%M").time()
    except ValueError:
        return {"error": True, "error_code": "invalid_format"}
    return {"stored": True, "value": parsed.strftime("%H:%M")}


def set_guest_info(guest_name: str | None = None, special_requests: str | None = None) -> dict[str, Any]:
    """Record the name for the reservation and/or the guest's special requests.

    Pass only what the guest said; both fields are optional.
    guest_name: the name as the guest gave it ("Sarah Chen", or just "Chen").
    special_requests: a short summary of requests, allergies or dietary needs; pass "None" when the
    guest has none.
    """
    values: dict[str, Any] = {}
    field_errors: dict[str, str] = {}
    if guest_name is not None:
        name = " ".join(str(guest_name).split())
        if name:
            values["guest_name"] = name
        else:
            field_errors["guest_name"] = "parse_error"
    if special_requests is not None:
        requests = " ".join(str(special_requests).split())
        values["special_requests"] = "None" if requests.lower() in _NONE_LIKE else requests
    return {"stored": True, "values": values, "field_errors": field_errors}


def _parse_party_size(raw: object) -> tuple[int | None, str | None]:
    if isinstance(raw, bool):
        return None, "parse_error"
    if isinstance(raw, int):
        size = raw
    elif isinstance(raw, float) and raw.is_integer():
        size = int(raw)
    elif isinstance(raw, str) and raw.strip().isdigit():
        size = int(raw.strip())
    else:
        return None, "parse_error"
    if not MIN_PARTY_SIZE <= size <= MAX_PARTY_SIZE:
        return None, "out_of_range"
    return size, None


def _parse_future_date(raw: object, today: datetime.date) -> tuple[str | None, str | None]:
    try:
        day = datetime.datetime.strptime(str(raw).strip(), "%Y-%m-%d").date()
    except ValueError:
        return None, "invalid_format"
    if day < today:
        return None, "past_date"
    return day.isoformat(), None


# --- executors -----------------------------------------------------------------------------------------


def find_available_times(party_size: int, preferred_date: str) -> dict[str, Any]:
    """Look up the free tables for a party on a date (simulated, deterministic).

    Returns ``{"success": True, "available_times": "17:30, 19:00, ..."}`` (comma-separated HH:MM) or
    ``{"success": False, "reason": ...}``. The 25th of any month is fully booked; parties of five or more
    get fewer times.
    """
    if _should_fail("find_available_times"):
        return {"success": False, "reason": f"simulated failure ({FAIL_ENV_VAR})"}
    try:
        day = datetime.date.fromisoformat(str(preferred_date))
        size = int(party_size)
    except ValueError:
        return {"success": False, "reason": "invalid input"}
    if day.day == FULLY_BOOKED_DAY:
        return {"success": False, "reason": "fully booked"}
    skipped = day.toordinal() % len(SERVICE_TIMES)
    times = [t for i, t in enumerate(SERVICE_TIMES) if i != skipped]
    if size >= LARGE_PARTY_SIZE:
        times = times[::2]
    return {"success": True, "available_times": ", ".join(times)}


def book_reservation(
    party_size: int,
    preferred_date: str,
    selected_time: str,
    guest_name: str,
    special_requests: str | None = None,
    large_party_phone: str | None = None,
) -> dict[str, Any]:
    """Book the table (simulated). Returns ``{"success": True, "confirmation_number": "BN-..."}``.

    The confirmation number is a stable hash of the inputs: the same booking always gets the same number.
    """
    if _should_fail("book_reservation"):
        return {"success": False, "reason": f"simulated failure ({FAIL_ENV_VAR})"}
    booking = {
        "party_size": party_size,
        "preferred_date": preferred_date,
        "selected_time": selected_time,
        "guest_name": guest_name,
        "special_requests": special_requests,
        "large_party_phone": large_party_phone,
    }
    digest = hashlib.sha256(json.dumps(booking, sort_keys=True, default=str).encode("utf-8")).hexdigest()
    return {"success": True, "confirmation_number": f"BN-{digest[:6].upper()}"}


def end_session(reason: str = "", session_escalated: bool = False, note: str = "") -> dict[str, Any]:
    """End the conversation; with ``session_escalated`` the guest is handed over to a human.

    ``note`` carries context for whoever picks the conversation up (e.g. the guest's name).
    """
    return {"ended": True, "reason": reason, "session_escalated": session_escalated, "note": note}


def _should_fail(tool_name: str) -> bool:
    requested = os.environ.get(FAIL_ENV_VAR, "")
    return tool_name in re.split(r"[,\s]+", requested.strip())
