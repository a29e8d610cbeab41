"""Tools of the copay example: a setter, the copay lookup (the DAG's task), and the payment system.

The payment system and the clinic's records are one SQLite file, ``$COPAY_DB`` (default: a file per process
in the temporary directory), so several processes can share it. ``charge_copay`` charges the card on file
(appointment ``A-300``'s card is declined); ``list_payments`` reads an appointment's payment records — the
status reader of ``record_copay``'s receipt contract; ``record_copay`` writes the clinic's copay record.
Neither write refuses a duplicate itself: keeping them exactly-once is the agent's execution contracts' job.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from decimal import Decimal
from pathlib import Path
from typing import Any

from slotgraph.runtime import ToolContext

__all__ = ["charge_copay", "list_payments", "lookup_copay", "record_copay", "set_appointment_id"]

COPAYS = {"A-100": "25.00", "A-200": "40.00", "A-300": "15.00"}
DECLINED = {"A-300"}

_SCHEMA = """
create table if not exists charges (
  id integer primary key autoincrement, session text, appointment_id text, amount_minor integer,
  currency text, status text, direction text);
create table if not exists copays (
  id integer primary key autoincrement, appointment_id text, transaction_id text, amount text,
  currency text, payment_status text);
"""


_fresh: set[Path] = set()


def database() -> Path:
    """The SQLite file holding charges and copay records: ``$COPAY_DB``, else this process's own file (a
    leftover of an earlier process with the same id is removed on first use)."""
    configured = os.environ.get("COPAY_DB")
    if configured:
        return Path(configured)
    default = Path(tempfile.gettempdir()) / f"slotgraph-copay-{os.getpid()}.sqlite"
    if default not in _fresh:
        _fresh.add(default)
        default.unlink(missing_ok=True)
    return default


def _connect() -> sqlite3.Connection:
    connection = sqlite3.connect(database(), timeout=30, isolation_level=None)
    connection.executescript(_SCHEMA)
    return connection


def set_appointment_id(appointment_id: str) -> dict[str, Any]:
    """Record which appointment the copay is for.

    Args:
        appointment_id: The appointment id from the patient's reminder, like A-100.
    """
    return {"stored": True, "value": appointment_id.strip().upper()}


def lookup_copay(appointment_id: str) -> dict[str, Any]:
    """Find the copay of an appointment (the DAG's LookupCopay task)."""
    amount = COPAYS.get(appointment_id.strip().upper())
    if amount is None:
        return {"success": False, "error": f"no appointment {appointment_id}"}
    return {"success": True, "amount": amount}


def charge_copay(
    appointment_id: str, amount_dollars: float, currency: str, context: ToolContext
) -> dict[str, Any]:
    """Charge the patient's card on file for the copay.

    Args:
        appointment_id: The appointment the copay is for.
        amount_dollars: The copay in dollars.
        currency: The ISO currency code.
    """
    status = "declined" if appointment_id in DECLINED else "succeeded"
    minor = int(Decimal(str(amount_dollars)) * 100)
    with _connect() as db:
        cursor = db.execute(
            "insert into charges (session, appointment_id, amount_minor, currency, status, direction) "
            "values (?, ?, ?, ?, ?, 'charge')",
            (context.session_id, appointment_id, minor, currency, status),
        )
    transaction = f"TX-{cursor.lastrowid}"
    if status != "succeeded":
        return {"success": False, "status": status, "message": "The card was declined."}
    return {"success": True, "status": status, "transaction_id": transaction}


def list_payments(appointment_id: str) -> dict[str, Any]:
    """The payment records of an appointment (the status reader of the copay receipt).

    Args:
        appointment_id: The appointment whose payments to read.
    """
    with _connect() as db:
        rows = db.execute(
            "select id, amount_minor, currency, status, direction from charges where appointment_id = ?",
            (appointment_id,),
        ).fetchall()
    return {
        "records": [
            {
                "id": f"TX-{i}",
                "amount_minor": minor,
                "currency": cur,
                "status": status,
                "direction": direction,
            }
            for i, minor, cur, status, direction in rows
        ]
    }


def record_copay(
    appointment_id: str, transaction_id: str, amount_dollars: float, currency: str, payment_status: str
) -> dict[str, Any]:
    """Record a paid copay with the clinic.

    Args:
        appointment_id: The appointment the copay is for.
        transaction_id: The id of the successful payment.
        amount_dollars: The amount paid, in dollars.
        currency: The ISO currency code of the payment.
        payment_status: The payment's status.
    """
    with _connect() as db:
        cursor = db.execute(
            "insert into copays (appointment_id, transaction_id, amount, currency, payment_status) "
            "values (?, ?, ?, ?, ?)",
            (appointment_id, transaction_id, str(amount_dollars), currency, payment_status),
        )
    return {"recorded": True, "record_id": f"CP-{cursor.lastrowid}"}


def copay_records(appointment_id: str | None = None) -> list[dict[str, Any]]:
    """The clinic's copay records (for tests and operators; not a tool)."""
    with _connect() as db:
        rows = db.execute(
            "select id, appointment_id, transaction_id, amount, currency from copays order by id"
        ).fetchall()
    records = [
        {"record_id": f"CP-{i}", "appointment_id": a, "transaction_id": t, "amount": amount, "currency": c}
        for i, a, t, amount, c in rows
    ]
    return [r for r in records if appointment_id is None or r["appointment_id"] == appointment_id]
