"""Tools of the agent: one setter (the model calls it) and one executor (the engine calls it).

The contract (docs/tools.md): a setter validates what the person said and returns ``{"stored": True,
"values": {...}, "field_errors": {...}}`` (a multi-slot setter) or ``{"error": True, "error_code": "..."}``;
the words for each error code live in dag.yaml. An executor gets the task's inputs and returns a dict whose
``success`` (the task's ``success_check``) says whether it worked, plus the task's outputs.
"""

from __future__ import annotations

import datetime
import hashlib
from typing import Any

__all__ = ["book_appointment", "set_appointment"]  # exactly the functions the model or the engine may call


def set_appointment(
    guest_name: str | None = None, day: str | None = None, *, today: datetime.date
) -> dict[str, Any]:
    """Record the name for the appointment and/or the day the person wants to come in.

    Pass only what the person said; both fields are optional.

    Args:
        guest_name: The name as the person gave it ("Ada Lovelace").
        day: The day in YYYY-MM-DD format; convert "next Monday" or "July 17th" to a date.
    """
    # `today` is not an argument of the model: the runtime injects the session clock through it.
    values: dict[str, Any] = {}
    field_errors: dict[str, str] = {}
    if guest_name is not None:
        name = " ".join(guest_name.split())
        if name:
            values["guest_name"] = name
        else:
            field_errors["guest_name"] = "parse_error"
    if day is not None:
        try:
            parsed = datetime.date.fromisoformat(day.strip())
        except ValueError:
            field_errors["day"] = "parse_error"
        else:
            if parsed < today:
                field_errors["day"] = "in_the_past"
            else:
                values["day"] = parsed.isoformat()
    return {"stored": True, "values": values, "field_errors": field_errors}


def book_appointment(guest_name: str, day: str) -> dict[str, Any]:
    """Book the appointment (a stand-in for your backend: replace the body with the real call)."""
    number = hashlib.sha256(f"{guest_name}|{day}".encode()).hexdigest()[:6].upper()
    return {"success": True, "confirmation": f"AP-{number}"}
