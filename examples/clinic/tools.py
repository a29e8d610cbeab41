"""Tools of the clinic example: setters, two deterministic executors and a patient lookup.

The setters only record what they are given; the executors and the lookup stand for backends.

``lookup_patient`` knows one returning patient (phone ``+15550100``: Ada Lovelace, patient ``P-1``) and
raises for ``+15550199`` (the records system is down), so the scenarios can show a prompt program failing
open. ``check_availability`` offers "9:00 AM, 11:30 AM, 2:00 PM" (blood tests only in the morning).
"""

from __future__ import annotations

from typing import Any, Literal

__all__ = [
    "book_appointment",
    "check_availability",
    "lookup_patient",
    "set_date",
    "set_insurance",
    "set_patient_name",
    "set_reason",
    "set_time",
]

Reason = Literal["checkup", "blood_test", "vaccination"]


def set_reason(reason: Reason) -> dict[str, Any]:
    """Record what the visit is for.

    Args:
        reason: The kind of visit ("flu shot" -> vaccination, "blood work" -> blood_test).
    """
    return {"stored": True, "value": reason}


def set_date(date: str) -> dict[str, Any]:
    """Record the day of the visit.

    Args:
        date: The date in YYYY-MM-DD format; convert "next Tuesday" to a date.
    """
    return {"stored": True, "value": date}


def set_time(time: str) -> dict[str, Any]:
    """Record the time the patient chose.

    Args:
        time: The time in 24-hour HH:MM format ("9 AM" -> "09:00").
    """
    return {"stored": True, "value": time}


def set_patient_name(patient_name: str) -> dict[str, Any]:
    """Record the patient's name.

    Args:
        patient_name: The patient's full name as they gave it.
    """
    return {"stored": True, "value": patient_name}


def set_insurance(insurance: str) -> dict[str, Any]:
    """Record the patient's health insurance.

    Args:
        insurance: The insurer's name as the patient gave it.
    """
    return {"stored": True, "value": insurance}


def check_availability(reason: str, date: str) -> dict[str, Any]:
    """Free appointment times on a day (simulated, deterministic)."""
    times = "8:00 AM, 9:30 AM" if reason == "blood_test" else "9:00 AM, 11:30 AM, 2:00 PM"
    return {"success": True, "open_times": times}


def book_appointment(
    reason: str, date: str, time: str, patient_name: str, insurance: str | None = None
) -> dict[str, Any]:
    """Book the appointment (simulated). Returns its id. Returning patients' insurance is on file."""
    return {"success": True, "appointment_id": "APT-1042"}


def lookup_patient(phone: str) -> dict[str, Any]:
    """Find a patient by phone number.

    Args:
        phone: The caller's phone number in E.164 format.
    """
    if phone == "+15550199":
        raise ConnectionError("the records system is not answering")
    if phone == "+15550100":
        return {"found": True, "patient": {"id": "P-1", "name": "Ada Lovelace", "visits": 4}}
    return {"found": False}
