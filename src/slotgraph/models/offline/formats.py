"""Writing extracted values the way a parameter's schema asks for them.

Dates default to ISO ``YYYY-MM-DD`` (what ``format: date`` means); a description asking for
``MM/DD/YYYY`` or ``DD/MM/YYYY`` gets that. Times default to 24-hour ``HH:MM``; a description asking for
am/pm or a 12-hour clock gets "7:30 PM". Phones are E.164 unless the description asks for digits only.
"""

from __future__ import annotations

import datetime as dt

from slotgraph.models.offline.schema import Param
from slotgraph.models.offline.times import ClockTime

__all__ = ["format_date", "format_time", "wants_digits_only"]


def format_date(value: dt.date, param: Param) -> str:
    """``value`` in the parameter's date format (ISO by default)."""
    if "mm/dd/yyyy" in param.text:
        return value.strftime("%m/%d/%Y")
    if "dd/mm/yyyy" in param.text:
        return value.strftime("%d/%m/%Y")
    return value.isoformat()


def format_time(value: ClockTime, param: Param) -> str:
    """``value`` as 24-hour HH:MM, or "7:30 PM" when the description asks for a 12-hour clock."""
    if "am/pm" in param.text or "12-hour" in param.text or "12 hour" in param.text:
        suffix = "PM" if value.hour >= 12 else "AM"
        return f"{(value.hour % 12) or 12}:{value.minute:02d} {suffix}"
    return value.hhmm()


def wants_digits_only(param: Param) -> bool:
    """True when the description asks for the number as digits only (no ``+``)."""
    return "digits" in param.words and "e.164" not in param.text and "e164" not in param.text
