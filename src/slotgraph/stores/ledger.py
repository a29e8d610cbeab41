"""The execution ledger: a durable record of side effects, so one is never performed twice.

Before a side effect (a task executor's booking, a contract's payment) is dispatched, its caller
**reserves** an idempotency key in a scope (the session id; a contract may use a wider one such as the
agent's name) with a fingerprint of what it is about to do (a hash of the arguments). The answer says what
to do:

* ``new`` — nobody reserved the key: dispatch, then :meth:`~ExecutionLedger.complete` it with the result (or
  :meth:`~ExecutionLedger.release` it when the call was never dispatched after all, e.g. a preflight check
  refused it);
* ``pending`` — reserved by an attempt that has not completed: it was interrupted (a crash, a lost lease, a
  cancelled turn) somewhere between the reservation and the completion, so the side effect may or may not
  have happened. The caller must not blindly dispatch again: it reconciles (asks the executor about the key)
  or reports the outcome as unconfirmed;
* ``done`` — completed before: ``entry.result`` is the recorded result; reuse it instead of dispatching;
* ``conflict`` — the key was reserved with another fingerprint (the same attempt with different inputs).

Every session store implements this protocol in the same database as the sessions (own table or keys), so
a reservation survives ``kill -9`` exactly as a saved turn does; :class:`MemoryLedger` is the reference
implementation (and what :class:`~slotgraph.stores.memory.InMemoryStore` uses). :func:`entry_from_row`
reads a stored row (the SQL stores') and :func:`never_reserved` words the one misuse, so every store
answers alike. Deleting a session also
forgets the entries of the scope named by its id. Results are JSON values, checked on
:meth:`~ExecutionLedger.complete` (:func:`ledger_result`).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeGuard, runtime_checkable

from slotgraph.stores.errors import LedgerError

__all__ = [
    "JSON",
    "ExecutionLedger",
    "LedgerEntry",
    "LedgerError",
    "LedgerStatus",
    "MemoryLedger",
    "Reservation",
    "ReservationStatus",
    "entry_from_json",
    "entry_from_row",
    "entry_to_json",
    "fingerprint",
    "keeps_ledger",
    "ledger_result",
    "never_reserved",
    "reservation_for",
]

JSON = Any
"""A JSON value: None, bool, int, float (finite), str, lists of JSON, dicts with string keys."""

LedgerStatus = Literal["pending", "done"]
ReservationStatus = Literal["new", "pending", "done", "conflict"]


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One reserved key: ``pending`` until completed, then ``done`` with its ``result``."""

    key: str
    fingerprint: str
    status: LedgerStatus
    result: JSON = None
    created_at: float = 0.0
    """When the key was reserved (seconds since the epoch)."""


@dataclass(frozen=True, slots=True)
class Reservation:
    """The answer to :meth:`ExecutionLedger.reserve`: what the caller may do, and the entry it found/made."""

    status: ReservationStatus
    entry: LedgerEntry | None


@runtime_checkable
class ExecutionLedger(Protocol):
    """Idempotency keys recorded durably before a side effect is dispatched (see the module docstring)."""

    async def reserve(self, scope: str, key: str, fingerprint: str) -> Reservation:
        """Reserve ``key`` in ``scope`` for an attempt with this ``fingerprint`` (atomic: one caller gets
        ``new``)."""
        ...

    async def complete(self, scope: str, key: str, result: JSON) -> None:
        """Record the result of the reserved attempt; the key is ``done`` from now on.

        Raises :class:`LedgerError` when the key was never reserved or ``result`` is not JSON."""
        ...

    async def release(self, scope: str, key: str) -> None:
        """Forget a ``pending`` reservation whose call was never dispatched (a ``done`` key stays)."""
        ...

    async def lookup(self, scope: str, key: str) -> LedgerEntry | None:
        """The entry of ``key`` in ``scope``, or None."""
        ...


def keeps_ledger(store: object) -> TypeGuard[ExecutionLedger]:
    """Whether ``store`` is also an :class:`ExecutionLedger` (every store of this package is)."""
    return isinstance(store, ExecutionLedger)


def fingerprint(value: JSON) -> str:
    """A stable fingerprint of a JSON value (a SHA-256 of its canonical JSON), e.g. of a call's arguments."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def ledger_result(scope: str, key: str, result: JSON) -> str:
    """``result`` as the JSON text a durable ledger stores; :class:`LedgerError` when JSON cannot carry it."""
    try:
        return json.dumps(result, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as problem:
        raise LedgerError(
            f"ledger {scope!r}/{key!r}: the result cannot be recorded ({problem}); a recorded result must be "
            "JSON (str, int, finite float, bool, None, lists, dicts with string keys)"
        ) from None


def entry_to_json(entry: LedgerEntry) -> str:
    """An entry as one JSON text (how the Redis ledger keeps it)."""
    return json.dumps(
        {
            "key": entry.key,
            "fingerprint": entry.fingerprint,
            "status": entry.status,
            "result": entry.result,
            "created_at": entry.created_at,
        },
        ensure_ascii=False,
        allow_nan=False,
        separators=(",", ":"),
    )


def entry_from_json(text: str | bytes, *, where: str) -> LedgerEntry:
    """The entry :func:`entry_to_json` wrote; :class:`LedgerError` naming ``where`` if it is damaged."""
    try:
        data = json.loads(text)
        status = data["status"]
        if status not in ("pending", "done"):
            raise ValueError(f"unknown status {status!r}")
        return LedgerEntry(
            str(data["key"]), str(data["fingerprint"]), status, data.get("result"), float(data["created_at"])
        )
    except (ValueError, KeyError, TypeError) as problem:
        raise LedgerError(
            f"{where}: a ledger entry is damaged ({problem}); delete it to let the key be reserved again"
        ) from None


def entry_from_row(where: str, scope: str, key: str, row: tuple[Any, ...]) -> LedgerEntry:
    """The entry of a SQL ledger row ``(fingerprint, status, result JSON text or NULL, created_at)``;
    :class:`LedgerError` naming ``where`` when the row is damaged."""
    fingerprint, status, result, created_at = row
    if status not in ("pending", "done"):
        raise LedgerError(
            f"{where}: the ledger entry {scope!r}/{key!r} has an unknown status {status!r}; delete its row "
            "from slotgraph_ledger to let the key be reserved again"
        )
    try:
        value = json.loads(result) if result is not None else None
    except ValueError as problem:
        raise LedgerError(
            f"{where}: the ledger entry {scope!r}/{key!r} holds a result that is not JSON ({problem})"
        ) from None
    return LedgerEntry(key, str(fingerprint), status, value, float(created_at))


def never_reserved(scope: str, key: str) -> LedgerError:
    """The error of ``complete()`` for a key that was never reserved."""
    return LedgerError(f"ledger {scope!r}/{key!r}: complete() of a key that was never reserved")


def reservation_for(found: LedgerEntry, fingerprint: str) -> Reservation:
    """What an existing entry means to a new reservation with ``fingerprint``."""
    if found.fingerprint != fingerprint:
        return Reservation("conflict", found)
    return Reservation("done" if found.status == "done" else "pending", found)


class MemoryLedger:
    """Entries in a dict owned by this object: the reference implementation (not durable)."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], LedgerEntry] = {}

    async def reserve(self, scope: str, key: str, fingerprint: str) -> Reservation:
        found = self._entries.get((scope, key))
        if found is not None:
            return reservation_for(found, fingerprint)
        entry = LedgerEntry(key, fingerprint, "pending", None, time.time())
        self._entries[(scope, key)] = entry
        return Reservation("new", entry)

    async def complete(self, scope: str, key: str, result: JSON) -> None:
        text = ledger_result(scope, key, result)
        found = self._entries.get((scope, key))
        if found is None:
            raise never_reserved(scope, key)
        stored = json.loads(text)  # a copy: later changes to the caller's object never reach the ledger
        self._entries[(scope, key)] = LedgerEntry(key, found.fingerprint, "done", stored, found.created_at)

    async def release(self, scope: str, key: str) -> None:
        found = self._entries.get((scope, key))
        if found is not None and found.status == "pending":
            del self._entries[(scope, key)]

    async def lookup(self, scope: str, key: str) -> LedgerEntry | None:
        return self._entries.get((scope, key))

    def forget_scope(self, scope: str) -> None:
        """Drop every entry of ``scope`` (the session was deleted)."""
        for found in [k for k in self._entries if k[0] == scope]:
            del self._entries[found]
