"""Extension keys: keys starting with ``x-`` are accepted and ignored in every config mapping.

A config may carry its own annotations (``x-owner: payments``, ``x-notes: ...``) at any level; the typed
nodes refuse unknown keys (``extra="forbid"``, so a typo is reported), and drop these before validating.
:func:`drop_extension_keys` is what each node's ``before`` validator calls: it runs for every mapping of
every config validated (27 times for a 9-slot config), so it is part of the compiled core.
"""

from __future__ import annotations

from typing import Any

__all__ = ["drop_extension_keys", "is_extension_key"]


def is_extension_key(key: object) -> bool:
    """Whether ``key`` is an extension key (a string starting with ``x-``)."""
    return isinstance(key, str) and key.startswith("x-")


def drop_extension_keys(data: Any) -> Any:
    """``data`` without its extension keys: a new dict if a dict has any, else the very same object (a
    validator never mutates its input)."""
    if isinstance(data, dict):
        mapping: dict[Any, Any] = data
        for key in mapping:
            if is_extension_key(key):
                return {k: v for k, v in mapping.items() if not is_extension_key(k)}
    return data
