"""Tools of the trip quote agent: setters, two independent quote look-ups and the booking.

The look-ups are deterministic simulations. Setting the environment variable ``TRIP_QUOTE_FAIL`` to a comma-
or space-separated list of tool names (e.g. ``TRIP_QUOTE_FAIL=quote_hotel``) makes those tools fail, so the
retry and escalation paths of one parallel task can be exercised while the other succeeds. The variable is
read on every call.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

__all__ = ["book_trip", "quote_flight", "quote_hotel", "set_traveller", "set_trip"]

FAIL_ENV_VAR = "TRIP_QUOTE_FAIL"
MAX_NIGHTS = 30


def set_trip(destination: str | None = None, nights: int | None = None) -> dict[str, Any]:
    """Record the destination and/or the number of nights of the trip.

    Pass only what the traveller said; both fields are optional.
    destination: the city, as the traveller named it ("Lisbon").
    nights: the number of nights at the hotel as a whole number ("a week" -> 7).
    """
    values: dict[str, Any] = {}
    errors: dict[str, str] = {}
    if destination is not None:
        city = " ".join(str(destination).split()).title()
        if city:
            values["destination"] = city
        else:
            errors["destination"] = "parse_error"
    if nights is not None:
        if isinstance(nights, bool) or not isinstance(nights, int) or not 1 <= nights <= MAX_NIGHTS:
            errors["nights"] = "out_of_range"
        else:
            values["nights"] = nights
    return {"stored": True, "values": values, "field_errors": errors}


def set_traveller(name: str) -> dict[str, Any]:
    """Record the traveller's full name, as they gave it."""
    text = " ".join(str(name).split())
    if not text:
        return {"error": True, "error_code": "parse_error"}
    return {"stored": True, "value": text}


def _fails(tool: str) -> bool:
    return tool in os.environ.get(FAIL_ENV_VAR, "").replace(",", " ").split()


def _amount(*parts: object, low: int, high: int) -> int:
    digest = hashlib.sha256("|".join(str(p).lower() for p in parts).encode()).digest()
    return low + int.from_bytes(digest[:4], "big") % (high - low + 1)


def quote_flight(destination: str) -> dict[str, Any]:
    """Quote a return flight to the destination (simulated, deterministic)."""
    if _fails("quote_flight"):
        return {"ok": False, "reason": f"simulated failure ({FAIL_ENV_VAR})"}
    return {"ok": True, "price": f"€{_amount('flight', destination, low=90, high=400)}"}


def quote_hotel(destination: str, nights: int) -> dict[str, Any]:
    """Quote a hotel stay at the destination for the number of nights (simulated, deterministic)."""
    if _fails("quote_hotel"):
        return {"ok": False, "reason": f"simulated failure ({FAIL_ENV_VAR})"}
    per_night = _amount("hotel", destination, low=60, high=180)
    return {"ok": True, "total": f"€{per_night * int(nights)}"}


def book_trip(destination: str, nights: int, traveller_name: str) -> dict[str, Any]:
    """Book the quoted trip; returns its reference."""
    if _fails("book_trip"):
        return {"ok": False, "reason": f"simulated failure ({FAIL_ENV_VAR})"}
    digest = hashlib.sha256(f"{destination}|{nights}|{traveller_name}".encode()).hexdigest()[:6].upper()
    return {"ok": True, "reference": f"TQ-{digest}"}
