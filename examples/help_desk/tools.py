"""Tools of the help_desk example: the account setter, the authentication capability (a one-time code), the
balance, and a note for the bank's records. Standard library only; the code is always 1234."""

from __future__ import annotations

from typing import Any

__all__ = ["check_code", "find_account", "read_balance", "send_code", "send_note", "set_account"]

BALANCES = {"N-100": "1,250.00 EUR", "N-200": "80.15 EUR"}
HOLDERS = {"N-100": "Ada Lovelace", "N-200": "Alan Turing"}
NOTES: list[str] = []


def set_account(account: str) -> dict[str, Any]:
    """Record the caller's account number.

    Args:
        account: The account number, like N-100.
    """
    if account not in BALANCES:
        return {"error": True, "message": f"there is no account {account}"}
    return {"stored": True, "value": account}


def find_account(account: str) -> dict[str, Any]:
    """Find the account's holder (the DAG's task).

    Args:
        account: The account number.
    """
    holder = HOLDERS.get(account)
    return {"found": holder is not None, "holder": holder}


def send_code(account: str) -> dict[str, Any]:
    """Send a one-time code to the phone on file of the account.

    Args:
        account: The account number.
    """
    if account not in BALANCES:
        return {"error": True, "message": f"there is no account {account}"}
    return {"status": "code_sent", "message": "A code was sent to the phone on file."}


def check_code(code: str) -> dict[str, Any]:
    """Check the one-time code the caller read out.

    Args:
        code: The code, four digits.
    """
    if code != "1234":
        return {"status": "unverified", "message": "The code is wrong."}
    return {"status": "verified", "message": "The caller is verified."}


def read_balance(account: str) -> dict[str, Any]:
    """Read the balance of the account.

    Args:
        account: The account number.
    """
    return {"balance": BALANCES.get(account, "unknown")}


def send_note(text: str) -> dict[str, Any]:
    """Write a note for the bank's records (a complaint, a request).

    Args:
        text: The note.
    """
    NOTES.append(text)
    return {"noted": True}
