"""The pure part of execution contracts: keys and fingerprints from final arguments, amounts in minor
units, receipt matching, replay marking."""

from __future__ import annotations

from typing import Any

import pytest

from slotgraph.config.tool_logic import IdempotencyConfig, ReceiptConfig
from slotgraph.logic.contracts import idempotency_identity, minor_units, receipt_problem, replayed_result

RECEIPT = ReceiptConfig(
    reader="payments", transaction_id_param="tx", amount_param="amount", currency_param="currency"
)
OK = {"id": "TX-1", "status": "succeeded", "amount_minor": 1000, "currency": "USD", "direction": "charge"}


def test_the_key_and_fingerprint_come_from_the_named_final_arguments_only() -> None:
    config = IdempotencyConfig(key=["tx"], fingerprint=["appointment", "currency"])
    key, digest = idempotency_identity(
        "record", config, {"tx": "TX-1", "appointment": "A", "currency": "USD"}
    )
    again = idempotency_identity(
        "record", config, {"currency": "USD", "appointment": "A", "tx": "TX-1", "x": 1}
    )
    assert (key, digest) == again
    assert key == 'record:["TX-1"]'
    other = idempotency_identity("record", config, {"tx": "TX-1", "appointment": "B", "currency": "USD"})
    assert isinstance(other, tuple) and other[0] == key and other[1] != digest
    assert "needs tx" in str(idempotency_identity("record", config, {"appointment": "A"}))


@pytest.mark.parametrize(
    ("amount", "currency", "minor"),
    [
        (10, "USD", 1000),
        ("10.00", "usd", 1000),
        (10.5, "EUR", 1050),
        ("700", "JPY", 700),
        ("1.234", "KWD", 1234),
    ],
)
def test_amounts_become_minor_units_by_currency(amount: Any, currency: str, minor: int) -> None:
    assert minor_units(amount, currency) == minor


@pytest.mark.parametrize("amount", ["10.001", "ten", True, None, float("nan"), [10], "1e400x"])
def test_what_is_not_an_amount_has_no_minor_units(amount: Any) -> None:
    assert minor_units(amount, "USD") is None


def test_exactly_one_matching_succeeded_record_proves_the_payment() -> None:
    args = {"tx": "TX-1", "amount": "10", "currency": "USD"}
    assert receipt_problem(RECEIPT, args, {"records": [OK]}) is None
    assert receipt_problem(RECEIPT, args, [OK]) is None
    assert "2 matching records" in str(receipt_problem(RECEIPT, args, [OK, dict(OK)]))


@pytest.mark.parametrize(
    ("read", "problem"),
    [
        ({"records": "nope"}, "could not be read"),
        (None, "could not be read"),
        ([{**OK, "status": "failed"}], "status is 'failed'"),
        ([{**OK, "status": "cancelled"}], "status is 'cancelled'"),
        ([{**OK, "amount_minor": "1000"}], "1000' minor units"),
        ([{**OK, "id": "TX-2"}], "no payment 'TX-1'"),
    ],
)
def test_missing_failed_mismatched_or_unreadable_records_refuse(read: Any, problem: str) -> None:
    found = receipt_problem(RECEIPT, {"tx": "TX-1", "amount": 10, "currency": "USD"}, read)
    assert found is not None and problem in found, found


def test_the_write_must_name_its_transaction_currency_and_amount() -> None:
    assert "no transaction id" in str(receipt_problem(RECEIPT, {"amount": 1, "currency": "USD"}, [OK]))
    assert "no currency" in str(receipt_problem(RECEIPT, {"tx": "TX-1", "amount": 1}, [OK]))
    assert "not an amount" in str(
        receipt_problem(RECEIPT, {"tx": "TX-1", "amount": "x", "currency": "USD"}, [OK])
    )


def test_a_replay_keeps_the_original_fields_and_says_nothing_ran_again() -> None:
    replay = replayed_result({"recorded": True, "record_id": "CP-1"})
    assert replay["record_id"] == "CP-1" and replay["_execution"]["replayed"] is True
    assert replayed_result("done") == {"result": "done", "_execution": replay["_execution"]}
