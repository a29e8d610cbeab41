"""The session-store seam: load a session with its version, save only if the version did not move.

Durable stores (SQLite, Redis, PostgreSQL) arrive with the stores issue and implement :class:`SessionStore`;
:class:`InMemoryStore` is the reference implementation (and the default: one per session). A record is a plain
dict — ``{"sm": ..., "history": [...], "ended": bool, "turns": int}`` — and versions start at 0 (absent).
"""

from __future__ import annotations

import copy
from typing import Any, Protocol

from slotgraph.runtime.errors import StoreConflictError

__all__ = ["InMemoryStore", "SessionStore"]


class SessionStore(Protocol):
    """Where sessions live between turns."""

    async def load(self, session_id: str) -> tuple[dict[str, Any], int] | None:
        """The stored record and its version, or None for a new session."""
        ...

    async def save(self, session_id: str, record: dict[str, Any], expected_version: int) -> int:
        """Store ``record`` if the stored version is ``expected_version``; return the new version.

        Raises :class:`~slotgraph.runtime.errors.StoreConflictError` when another writer saved first.
        """
        ...


def _copy_record(record: dict[str, Any]) -> dict[str, Any]:
    out = {k: copy.deepcopy(v) for k, v in record.items() if k != "history"}
    out["history"] = list(record.get("history") or [])
    return out


class InMemoryStore:
    """Records in a dict owned by this object.

    ``sm`` is deep-copied in and out, so callers never share state; ``history`` holds frozen messages and is
    copied shallowly (a new list), which keeps a turn's cost independent of the conversation's length.
    """

    def __init__(self) -> None:
        self._records: dict[str, tuple[dict[str, Any], int]] = {}

    async def load(self, session_id: str) -> tuple[dict[str, Any], int] | None:
        found = self._records.get(session_id)
        if found is None:
            return None
        return _copy_record(found[0]), found[1]

    async def save(self, session_id: str, record: dict[str, Any], expected_version: int) -> int:
        current = self._records.get(session_id, (None, 0))[1]
        if current != expected_version:
            raise StoreConflictError(
                f"session {session_id!r}: stored version is {current}, this turn started from "
                f"{expected_version} — another turn of the same session was saved first; reload and retry"
            )
        self._records[session_id] = (_copy_record(record), current + 1)
        return current + 1
