"""Execution contracts in the turn loop: idempotency keys in the store's ledger (replays, conflicts,
concurrent duplicates, unconfirmed outcomes, preflight releases) and receipts read from a status reader."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from slotgraph.runtime import Agent, AgentLoadError, ScriptedModel, ScriptedStep, call
from slotgraph.runtime.events import RefusalEvent, ToolResultEvent
from slotgraph.stores.ledger import Reservation
from slotgraph.stores.memory import InMemoryStore

DAG: dict[str, Any] = {
    "slots": [{"name": "topic", "source": "user", "setter": "set_topic", "ask": "What is it about?"}],
    "tasks": [],
}
VARIABLES = [
    {"name": "account", "type": "string", "description": "The verified account."},
    {"name": "confirmation", "type": "string", "description": "The payment's confirmation."},
]


class Bank:
    """A payment backend: records every write, and a list of payment records its reader returns."""

    def __init__(self) -> None:
        self.writes: list[dict[str, Any]] = []
        self.records: list[dict[str, Any]] = [
            {
                "id": "TX-1",
                "status": "succeeded",
                "amount_minor": 1050,
                "currency": "USD",
                "direction": "charge",
            },
            {
                "id": "TX-2",
                "status": "pending",
                "amount_minor": 500,
                "currency": "USD",
                "direction": "charge",
            },
            {
                "id": "TX-3",
                "status": "succeeded",
                "amount_minor": 500,
                "currency": "USD",
                "direction": "refund",
            },
            {"id": "TX-4", "status": "succeeded", "amount_minor": 700, "currency": "JPY"},
        ]
        self.reader_fails = False
        self.release: asyncio.Event | None = None
        self.started: asyncio.Event | None = None
        self.fail_write = False

    def tools(self) -> list[Any]:
        def set_topic(topic: str) -> dict[str, Any]:
            """Record the topic.

            Args:
                topic: The topic.
            """
            return {"value": topic}

        async def pay(account: str, invoice: str, amount: float, memo: str = "") -> dict[str, Any]:
            """Pay an invoice.

            Args:
                account: The account.
                invoice: The invoice.
                amount: The amount.
                memo: A note.
            """
            if self.started is not None:
                self.started.set()
            if self.release is not None:
                await self.release.wait()
            if self.fail_write:
                raise ConnectionError("the bank timed out")
            self.writes.append({"account": account, "invoice": invoice, "amount": amount})
            return {"paid": True, "confirmation": f"C-{len(self.writes)}"}

        def record(transaction_id: str, amount: str, currency: str) -> dict[str, Any]:
            """Record a payment.

            Args:
                transaction_id: The payment.
                amount: The amount in major units.
                currency: The currency.
            """
            self.writes.append({"transaction_id": transaction_id, "amount": amount, "currency": currency})
            return {"recorded": True}

        def payments() -> dict[str, Any]:
            """The payment records."""
            if self.reader_fails:
                raise ConnectionError("payments are down")
            return {"records": self.records}

        return [set_topic, pay, record, payments]


def _logic(**idempotency: Any) -> dict[str, Any]:
    return {
        "pay": {
            "bind": {"account": {"kind": "variable", "name": "account"}},
            "idempotency": {"key": ["invoice"], "fingerprint": ["account", "invoice"], **idempotency},
            "capture": {"confirmation": "$.confirmation"},
        },
        "record": {
            "receipt": {
                "reader": "payments",
                "transaction_id_param": "transaction_id",
                "amount_param": "amount",
                "currency_param": "currency",
            },
            "idempotency": {"key": ["transaction_id"]},
        },
    }


def _agent(bank: Bank, steps: list[ScriptedStep], **idempotency: Any) -> tuple[Agent, ScriptedModel]:
    model = ScriptedModel(steps)
    agent = Agent.from_config(
        DAG, tools=bank.tools(), model=model, variables=VARIABLES, tool_logic=_logic(**idempotency)
    )
    return agent, model


def _refusals(result: Any) -> list[RefusalEvent]:
    return [e for e in result.events if isinstance(e, RefusalEvent)]


def _results(result: Any, name: str) -> list[Any]:
    return [e.result for e in result.events if isinstance(e, ToolResultEvent) and e.name == name]


def test_a_repeated_key_replays_the_original_result_and_runs_the_captures_not_the_write() -> None:
    bank = Bank()
    steps = [
        ScriptedStep(tool_calls=(call("pay", invoice="I-1", amount=10.0),)),
        ScriptedStep(tool_calls=(call("pay", invoice="I-1", amount=10.0, memo="again"),)),
        ScriptedStep(text="Paid."),
    ]
    agent, model = _agent(bank, steps)
    session = agent.session(variables={"account": "A-1"})
    result = session.send("pay I-1")
    first, second = _results(result, "pay")
    assert first == {"paid": True, "confirmation": "C-1"}
    assert second["confirmation"] == "C-1"
    assert second["_execution"]["replayed"] is True
    assert "Nothing was executed again" in second["_execution"]["instructions"]
    assert len(bank.writes) == 1
    assert not _refusals(result)
    assert session.variables["confirmation"] == "C-1"
    model.assert_complete()


def test_conflicting_business_fields_under_one_key_are_refused_by_the_contract() -> None:
    bank = Bank()
    store = InMemoryStore()

    def pay_once() -> Agent:
        steps = [ScriptedStep(tool_calls=(call("pay", invoice="I-1", amount=10.0),)), ScriptedStep(text="ok")]
        return _agent(bank, steps, scope="agent")[0]

    pay_once().session(session_id="s1", store=store, variables={"account": "A-1"}).send("pay")
    # another conversation, another verified account, the same invoice key: not the same write
    result = pay_once().session(session_id="s2", store=store, variables={"account": "A-2"}).send("pay")
    [refusal] = _refusals(result)
    assert (refusal.refused, refusal.by) == ("idempotency_conflict", "contract")
    # the key (invoice) is the same by definition: only the other fingerprint fields are named as different
    assert "(the same invoice) with a different account." in refusal.message
    assert bank.writes == [{"account": "A-1", "invoice": "I-1", "amount": 10.0}]
    # with the default scope (the session) each conversation has its own keys
    steps = [ScriptedStep(tool_calls=(call("pay", invoice="I-1", amount=10.0),)), ScriptedStep(text="ok")]
    _agent(bank, steps)[0].session(session_id="s3", store=store, variables={"account": "A-3"}).send("pay")
    assert len(bank.writes) == 2


class WatchedStore(InMemoryStore):
    """Tells the test when a reservation found the key already taken (a duplicate is waiting)."""

    def __init__(self) -> None:
        super().__init__()
        self.duplicate = asyncio.Event()

    async def reserve(self, scope: str, key: str, fingerprint: str) -> Reservation:
        found = await super().reserve(scope, key, fingerprint)
        if found.status == "pending":
            self.duplicate.set()
        return found


def test_a_concurrent_duplicate_in_another_session_waits_for_the_original_and_replays_it() -> None:
    async def scenario() -> tuple[Any, Any, Bank]:
        bank = Bank()
        bank.release = asyncio.Event()
        store = WatchedStore()
        step = [ScriptedStep(tool_calls=(call("pay", invoice="I-7", amount=10.0),)), ScriptedStep(text="ok")]
        agent_a, _ = _agent(bank, step, scope="agent")
        agent_b, _ = _agent(bank, list(step), scope="agent")
        a = agent_a.session(session_id="a", store=store, variables={"account": "A-1"})
        b = agent_b.session(session_id="b", store=store, variables={"account": "A-1"})
        first = asyncio.create_task(a.asend("pay"))
        second = asyncio.create_task(b.asend("pay"))
        await store.duplicate.wait()  # b found a's reservation pending: it waits for the original
        bank.release.set()
        return await first, await second, bank

    first, second, bank = asyncio.run(scenario())
    assert len(bank.writes) == 1
    assert _results(first, "pay") == [{"paid": True, "confirmation": "C-1"}]
    [replayed] = _results(second, "pay")
    assert replayed["_execution"]["replayed"] is True and replayed["confirmation"] == "C-1"


def test_a_write_whose_outcome_is_unknown_keeps_its_key_reserved_until_reconciled() -> None:
    bank = Bank()
    bank.fail_write = True
    store = InMemoryStore()
    steps = [ScriptedStep(tool_calls=(call("pay", invoice="I-1", amount=10.0),)), ScriptedStep(text="ok")]
    agent, _ = _agent(bank, steps, wait_seconds=0.2)
    first = agent.session(session_id="s", store=store, variables={"account": "A-1"}).send("pay")
    [failed] = _results(first, "pay")
    assert failed["failed"] is True and "not confirmed" in failed["message"]
    bank.fail_write = False
    agent2, _ = _agent(
        bank,
        [ScriptedStep(tool_calls=(call("pay", invoice="I-1", amount=10.0),)), ScriptedStep(text="ok")],
        wait_seconds=0.2,
    )
    session = agent2.session(session_id="s", store=store, variables={"account": "A-1"})
    second = session.send("pay again")
    [refusal] = _refusals(second)
    assert (refusal.refused, refusal.by) == ("idempotency_unconfirmed", "contract")
    assert bank.writes == []
    # an operator reconciles: the bank says it went through
    entry = asyncio.run(store.lookup("s", 'pay:["I-1"]'))
    assert entry is not None and entry.status == "pending"
    asyncio.run(store.complete("s", 'pay:["I-1"]', {"paid": True, "confirmation": "C-bank"}))
    agent3, _ = _agent(
        bank, [ScriptedStep(tool_calls=(call("pay", invoice="I-1", amount=10.0),)), ScriptedStep(text="ok")]
    )
    third = agent3.session(session_id="s", store=store, variables={"account": "A-1"}).send("and?")
    [replayed] = _results(third, "pay")
    assert replayed["confirmation"] == "C-bank" and replayed["_execution"]["replayed"] is True
    assert bank.writes == []


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({"transaction_id": "TX-404", "amount": "10.50", "currency": "USD"}, "no payment 'TX-404'"),
        ({"transaction_id": "TX-2", "amount": "5", "currency": "USD"}, "status is 'pending'"),
        ({"transaction_id": "TX-3", "amount": "5", "currency": "USD"}, "is a 'refund'"),
        ({"transaction_id": "TX-1", "amount": "10.5", "currency": "EUR"}, "in 'USD', not 'EUR'"),
        ({"transaction_id": "TX-1", "amount": "10.49", "currency": "USD"}, "1050 minor units, not 1049"),
        ({"transaction_id": "TX-1", "amount": "10.505", "currency": "USD"}, "not an amount in USD"),
    ],
)
def test_a_receipt_that_does_not_match_exactly_one_succeeded_record_refuses_the_write(
    args: dict[str, Any], problem: str
) -> None:
    bank = Bank()
    steps = [ScriptedStep(tool_calls=(call("record", **args),)), ScriptedStep(text="ok")]
    agent, _ = _agent(bank, steps)
    result = agent.session().send("record it")
    [refusal] = _refusals(result)
    assert (refusal.refused, refusal.by) == ("receipt_refused", "contract")
    assert problem in refusal.message
    assert bank.writes == []


def test_a_refused_receipt_releases_the_key_so_the_corrected_call_runs() -> None:
    bank = Bank()
    bank.reader_fails = True
    steps = [
        ScriptedStep(tool_calls=(call("record", transaction_id="TX-1", amount="10.50", currency="USD"),)),
        ScriptedStep(tool_calls=(call("record", transaction_id="TX-1", amount="10.50", currency="USD"),)),
        ScriptedStep(text="ok"),
    ]
    model = ScriptedModel(steps)

    def reader_back(request: Any) -> bool:
        bank.reader_fails = False
        return True

    steps[1] = ScriptedStep(tool_calls=steps[1].tool_calls, check=reader_back)
    agent = Agent.from_config(DAG, tools=bank.tools(), model=model, variables=VARIABLES, tool_logic=_logic())
    result = agent.session().send("record")
    [refusal] = _refusals(result)
    assert refusal.refused == "receipt_refused" and "could not be read" in refusal.message
    assert _results(result, "record")[1] == {"recorded": True}
    assert len(bank.writes) == 1


def test_yen_amounts_have_no_minor_digits() -> None:
    bank = Bank()
    steps = [
        ScriptedStep(tool_calls=(call("record", transaction_id="TX-4", amount="700", currency="jpy"),)),
        ScriptedStep(text="ok"),
    ]
    agent, _ = _agent(bank, steps)
    result = agent.session().send("record")
    assert not _refusals(result)
    assert bank.writes == [{"transaction_id": "TX-4", "amount": "700", "currency": "jpy"}]


def test_a_contract_naming_a_parameter_the_tool_lacks_does_not_load() -> None:
    logic = {"pay": {"idempotency": {"key": ["order"]}}}
    with pytest.raises(AgentLoadError, match=r"tool_logic\.pay\.idempotency: pay has no parameter 'order'"):
        Agent.from_config(DAG, tools=Bank().tools(), variables=VARIABLES, tool_logic=logic)


def test_a_turn_cancelled_while_the_write_runs_keeps_its_key_reserved() -> None:
    async def scenario() -> Any:
        bank = Bank()
        bank.started, bank.release = asyncio.Event(), asyncio.Event()
        store = InMemoryStore()
        steps = [
            ScriptedStep(tool_calls=(call("pay", invoice="I-5", amount=1.0),))
        ]  # cancelled before a reply
        session = _agent(bank, steps)[0].session(session_id="s", store=store, variables={"account": "A"})
        turn = asyncio.create_task(session.asend("pay"))
        await bank.started.wait()  # the write was dispatched
        turn.cancel()
        with pytest.raises(asyncio.CancelledError):
            await turn
        return await store.lookup("s", 'pay:["I-5"]')

    entry = asyncio.run(scenario())
    assert entry is not None and entry.status == "pending"


def test_a_write_without_its_key_values_is_refused_by_the_contract() -> None:
    bank = Bank()
    logic = {"pay": {"idempotency": {"key": ["memo"]}}}
    steps = [
        ScriptedStep(tool_calls=(call("pay", account="A", invoice="I", amount=1.0),)),
        ScriptedStep(text="ok"),
    ]
    model = ScriptedModel(steps)
    agent = Agent.from_config(DAG, tools=bank.tools(), model=model, variables=VARIABLES, tool_logic=logic)
    [refusal] = _refusals(agent.session().send("pay"))
    assert (refusal.refused, refusal.by) == ("bad_arguments", "contract")
    assert "needs memo" in refusal.message
    assert bank.writes == []


class LedgerlessStore:
    """A session store that keeps no execution ledger (a third-party store)."""

    def __init__(self) -> None:
        self.inner = InMemoryStore()

    def __getattr__(self, name: str) -> Any:
        if name in ("reserve", "complete", "release", "lookup"):
            raise AttributeError(name)
        return getattr(self.inner, name)


def test_without_an_execution_ledger_an_idempotent_write_is_refused_not_run_unprotected() -> None:
    bank = Bank()
    steps = [ScriptedStep(tool_calls=(call("pay", invoice="I-1", amount=1.0),)), ScriptedStep(text="ok")]
    agent, _ = _agent(bank, steps)
    session = agent.session(store=LedgerlessStore(), variables={"account": "A"})  # type: ignore[arg-type]
    [refusal] = _refusals(session.send("pay"))
    assert (refusal.refused, refusal.by) == ("idempotency_unconfirmed", "contract")
    assert "keeps no execution ledger" in refusal.message
    assert bank.writes == []
