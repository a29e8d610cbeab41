"""Tools of the agent: a setter (the model calls it) and an executor (the engine calls it).

The contract is in Slotgraph's docs/tools.md.
"""

from __future__ import annotations

import hashlib
from typing import Any

__all__ = ["file_callback", "set_phone"]


def set_phone(phone: str) -> dict[str, Any]:
    """Record the phone number to call back.

    Args:
        phone: The number as the person said it, digits with an optional leading '+'.
    """
    digits = "".join(ch for ch in phone if ch.isdigit())
    if not 7 <= len(digits) <= 15:
        return {"error": True, "error_code": "invalid_phone"}
    return {"stored": True, "value": ("+" if phone.strip().startswith("+") else "") + digits}


def file_callback(phone: str) -> dict[str, Any]:
    """File the callback request (a stand-in for your backend: replace the body with the real call)."""
    return {"success": True, "ticket": "CB-" + hashlib.sha256(phone.encode()).hexdigest()[:6].upper()}
