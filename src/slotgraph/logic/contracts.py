"""Execution contracts for writes, the pure part: idempotency keys and fingerprints, receipt checks, replays.

A gated tool's ``idempotency`` contract turns the call's *final* arguments (after ``bind``/``merge_bind``)
into a key and a fingerprint (:func:`idempotency_identity`); the runtime reserves the key in the execution
ledger of the session store before the tool runs. A repeated key with the same fingerprint gets the original
result back, marked by :func:`replayed_result`; one with another fingerprint is refused.

A ``receipt`` contract reads the conversation's payment records through a status reader tool and requires
exactly one record matching the write — same transaction id, the required status and direction, the same
currency, the same amount in minor units (:func:`receipt_problem`). The values compared are the write's
final arguments against what the reader returned; nothing the model wrote into a variable or a message can
stand in for the read.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from slotgraph.config.tool_logic import IdempotencyConfig, ReceiptConfig

__all__ = [
    "REPLAY_INSTRUCTION",
    "idempotency_identity",
    "minor_units",
    "receipt_problem",
    "receipt_records",
    "replayed_result",
]

REPLAY_INSTRUCTION: Final = (
    "This request repeated an earlier one with the same key. Nothing was executed again: this is the "
    "original result. Do not call it again; continue from this result."
)

_EXPONENTS: Final = {
    **dict.fromkeys(("BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX"), 0),
    **dict.fromkeys(("UYI", "VND", "VUV", "XAF", "XOF", "XPF"), 0),
    **dict.fromkeys(("BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"), 3),
}
"""ISO 4217 minor-unit exponents that are not 2."""


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def idempotency_identity(
    tool: str, config: IdempotencyConfig, args: Mapping[str, Any]
) -> tuple[str, str] | str:
    """``(key, fingerprint)`` of a call's final arguments, or what is missing (a key part that is unset)."""
    missing = [name for name in config.key if args.get(name) is None]
    if missing:
        return (
            f"{tool} needs {', '.join(missing)} to identify this write (its idempotency key); call it again "
            "with every value"
        )
    key = f"{tool}:{_canonical([args[name] for name in config.key])}"
    fields = {name: args.get(name) for name in config.fingerprint}
    digest = hashlib.sha256(_canonical(fields).encode("utf-8", "surrogatepass")).hexdigest()
    return key, digest


def replayed_result(result: Any) -> dict[str, Any]:
    """The original result of a repeated write, marked ``_execution.replayed: true`` with an explanation."""
    base = dict(result) if isinstance(result, Mapping) else {"result": result}
    base["_execution"] = {"replayed": True, "instructions": REPLAY_INSTRUCTION}
    return base


def minor_units(amount: Any, currency: str) -> int | None:
    """``amount`` (major units: 10, 10.5, "10.00") in the currency's minor units; None when it is not an
    amount or has more decimals than the currency."""
    if isinstance(amount, bool) or not isinstance(amount, int | float | str | Decimal):
        return None
    try:
        value = Decimal(str(amount).strip())
    except InvalidOperation:
        return None
    if not value.is_finite():
        return None
    scaled = value.scaleb(_EXPONENTS.get(currency.upper(), 2))
    if scaled != scaled.to_integral_value():
        return None
    return int(scaled)


def receipt_records(read: Any) -> list[Mapping[str, Any]] | None:
    """The records of a reader's result (a list, or an object with ``records``); None when unreadable."""
    records = read.get("records") if isinstance(read, Mapping) else read
    if not isinstance(records, list) or not all(isinstance(r, Mapping) for r in records):
        return None
    return list(records)


def receipt_problem(config: ReceiptConfig, args: Mapping[str, Any], read: Any) -> str | None:
    """Why the reader's records do not prove the write's payment (None when exactly one record matches)."""
    transaction = args.get(config.transaction_id_param)
    currency = args.get(config.currency_param)
    amount = args.get(config.amount_param)
    if not isinstance(transaction, str) or not transaction:
        return f"no transaction id ({config.transaction_id_param}) was given"
    if not isinstance(currency, str) or not currency:
        return f"no currency ({config.currency_param}) was given"
    wanted = minor_units(amount, currency)
    if wanted is None:
        return f"{config.amount_param} {amount!r} is not an amount in {currency.upper()}"
    records = receipt_records(read)
    if records is None:
        return "the payment records could not be read"
    same_id = [r for r in records if r.get("id") == transaction]
    if not same_id:
        return f"the payment records have no payment {transaction!r}"
    matching = _matching(config, same_id, wanted, currency)
    if len(matching) == 1:
        return None
    if len(matching) > 1:
        return f"payment {transaction!r} has {len(matching)} matching records; it cannot be verified"
    return f"payment {transaction!r} does not match: {_why(config, same_id, wanted, currency)}"


def _matching(
    config: ReceiptConfig, records: Sequence[Mapping[str, Any]], wanted: int, currency: str
) -> list[Mapping[str, Any]]:
    out = []
    for record in records:
        direction = record.get("direction")
        if record.get("status") != config.status_value:
            continue
        if config.direction is not None and direction is not None and direction != config.direction:
            continue
        if str(record.get("currency", "")).upper() != currency.upper():
            continue
        minor = record.get("amount_minor")
        if isinstance(minor, bool) or not isinstance(minor, int) or minor != wanted:
            continue
        out.append(record)
    return out


def _why(config: ReceiptConfig, records: Sequence[Mapping[str, Any]], wanted: int, currency: str) -> str:
    record = records[0]
    if record.get("status") != config.status_value:
        return f"its status is {record.get('status')!r}, not {config.status_value!r}"
    if config.direction is not None and record.get("direction") not in (None, config.direction):
        return f"it is a {record.get('direction')!r}, not a {config.direction!r}"
    if str(record.get("currency", "")).upper() != currency.upper():
        return f"it was in {record.get('currency')!r}, not {currency.upper()!r}"
    return f"it was for {record.get('amount_minor')!r} minor units, not {wanted}"
