"""The takeout desk's tools: setters that check what the guest said, and the order placement."""

from __future__ import annotations

import datetime
import re
from typing import Any

_TIME_FORMAT = re.compile(r"^\d{1,2}:\d{2}$")


def set_order_items(order: str) -> dict[str, Any]:
    """Record what the guest orders: the dishes as they said them ("two margherita pizzas")."""
    text = " ".join(str(order).split())
    if not text:
        return {"error": True, "error_code": "parse_error"}
    return {"stored": True, "value": text}


def set_pickup_time(time: str) -> dict[str, Any]:
    """Record the pickup time in 24-hour HH:MM format ("half past seven in the evening" -> "19:30")."""
    text = str(time).strip()
    try:
        if not _TIME_FORMAT.match(text):
            raise ValueError(text)
        parsed = datetime.datetime.strptime(text, "%H:%M")
    except ValueError:
        return {"error": True, "error_code": "invalid_format"}
    return {"stored": True, "value": parsed.strftime("%H:%M")}


def set_customer_name(name: str) -> dict[str, Any]:
    """Record the name the order is under ("Sarah Chen", or just "Chen")."""
    text = " ".join(str(name).split())
    if not text:
        return {"error": True, "error_code": "parse_error"}
    return {"stored": True, "value": text}


def place_order(order_items: str, pickup_time: str, customer_name: str) -> dict[str, Any]:
    """Send the order to the kitchen; returns its order number."""
    number = f"T-{sum(map(ord, order_items + pickup_time + customer_name)) % 9000 + 1000}"
    return {"success": True, "order_number": number}
