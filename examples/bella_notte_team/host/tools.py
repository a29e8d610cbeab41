"""The front desk's tools: the gift-card topic's setters and the card's issue (the host has no slots)."""

from __future__ import annotations

import hashlib
from typing import Any


def set_gift_amount(amount: int) -> dict[str, Any]:
    """Record the gift card's amount in whole dollars ("fifty dollars" -> 50); from 10 to 500."""
    try:
        value = int(amount)
    except (TypeError, ValueError):
        return {"error": True, "error_code": "parse_error"}
    if not 10 <= value <= 500:
        return {"error": True, "error_code": "out_of_range"}
    return {"stored": True, "value": value}


def set_gift_recipient(name: str) -> dict[str, Any]:
    """Record the name of the person the gift card is for ("Maria Rossi")."""
    text = " ".join(str(name).split())
    if not text:
        return {"error": True, "error_code": "parse_error"}
    return {"stored": True, "value": text}


def issue_gift_card(amount: int, recipient: str) -> dict[str, Any]:
    """Issue the gift card; returns its code."""
    digest = hashlib.sha256(f"{amount}:{recipient}".encode()).hexdigest()[:6].upper()
    return {"success": True, "card_code": f"GC-{digest}"}
