"""Execution contracts at run time: a write runs at most once per idempotency key, and only with a receipt.

:class:`Contracts` is what the gate layer asks, for a tool with ``idempotency`` and/or ``receipt`` in its
``tool_logic``, after the gates passed and the arguments were bound (so keys, fingerprints and the receipt
check see the *final* arguments). :meth:`Contracts.admit` answers with a :class:`Admission`:

* **refused** — the model gets an ordinary tool result (``by: contract``): ``idempotency_conflict`` (the
  key was used for a write with other business fields), ``idempotency_unconfirmed`` (an earlier attempt with
  this key was dispatched and never confirmed — it may or may not have happened; the key stays reserved
  until it is reconciled), ``receipt_refused`` (no single matching succeeded payment record);
* **replay** — the key is ``done``: the original result, marked ``_execution.replayed: true``, nothing runs;
* **dispatch** — the key was reserved for this call (``new``): the runner runs the tool and then
  :meth:`Admission.confirm` records its result; a receipt that refuses *before* dispatch releases the key.

Keys live in the session store's execution ledger (:mod:`slotgraph.runtime.ledger`), so they hold across
restarts, processes and workers on SQLite, Redis and PostgreSQL. A duplicate that finds the key ``pending``
(a concurrent original still running) polls the ledger for up to the contract's ``wait_seconds`` and then
replays the original's result, or is refused as unconfirmed. A tool that raised, or a turn cancelled while
the tool ran, leaves the key reserved: its outcome is unknown, so it is never silently run again.
Reconciling one is an operator's decision: ``complete(scope, key, result)`` on the store records what
happened (later repeats replay it), ``release(scope, key)`` lets the next call run.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from slotgraph.config.tool_logic import IdempotencyConfig, ReceiptConfig
from slotgraph.logic.contracts import idempotency_identity, receipt_problem, replayed_result
from slotgraph.runtime.events import RefusalReason
from slotgraph.stores.ledger import ExecutionLedger

__all__ = ["POLL_SECONDS", "Admission", "Contracts"]

logger = logging.getLogger("slotgraph.runtime")

POLL_SECONDS: Final = 0.05
"""How often a duplicate looks at the ledger while the original is pending."""

ReadRecords = Callable[[str], Awaitable[Any]]
"""Runs a receipt's status reader tool (by name) and returns its result; raises when it fails."""


@dataclass(slots=True)
class Admission:
    """What :meth:`Contracts.admit` decided for one call."""

    reason: RefusalReason | None = None
    """A refusal reason (``idempotency_conflict``, ``idempotency_unconfirmed``, ``receipt_refused``,
    ``bad_arguments``), else None."""
    message: str = ""
    replay: Any = None
    """The replayed result (``replayed`` is True)."""
    replayed: bool = False
    _ledger: ExecutionLedger | None = field(default=None, repr=False)
    _scope: str = ""
    _key: str = ""

    @property
    def refused(self) -> bool:
        return self.reason is not None

    @property
    def reserved(self) -> bool:
        """The key was reserved for this call: once it runs, its outcome must be confirmed."""
        return self._ledger is not None

    async def confirm(self, result: Any) -> None:
        """Record the dispatched call's result under its key (later repeats replay it)."""
        if self._ledger is None:
            return
        try:
            await self._ledger.complete(self._scope, self._key, result)
        except Exception:  # the write happened; its key stays pending (unconfirmed), never re-run blindly
            logger.exception("could not record the result of %s/%s in the ledger", self._scope, self._key)


class Contracts:
    """The execution contracts of one turn (see the module docstring)."""

    def __init__(
        self,
        ledger: ExecutionLedger | None,
        *,
        session_id: str,
        agent_name: str,
        read_records: ReadRecords,
    ) -> None:
        self.ledger = ledger
        self.session_id = session_id
        self.agent_name = agent_name
        self.read_records = read_records

    def _scope(self, config: IdempotencyConfig) -> str:
        return self.session_id if config.scope == "session" else f"agent:{self.agent_name}"

    async def admit(
        self,
        tool: str,
        args: Mapping[str, Any],
        *,
        idempotency: IdempotencyConfig | None,
        receipt: ReceiptConfig | None,
    ) -> Admission:
        admission = Admission()
        if idempotency is not None:
            admission = await self._reserve(tool, idempotency, args)
            if admission.refused or admission.replayed:
                return admission
        if receipt is not None:
            problem = await self._receipt(receipt, args)
            if problem is not None:
                await self._release(admission)
                return Admission(
                    "receipt_refused",
                    f"{tool} was not run: {problem}. It runs only for a payment that succeeded, with its "
                    "exact transaction id, amount and currency. Take or check the payment first; never "
                    "invent payment details.",
                )
        return admission

    async def _receipt(self, receipt: ReceiptConfig, args: Mapping[str, Any]) -> str | None:
        try:
            read = await self.read_records(receipt.reader)
        except Exception as err:
            logger.warning("receipt reader %s failed: %s", receipt.reader, err)
            return "the payment records could not be read"
        return receipt_problem(receipt, args, read)

    async def _release(self, admission: Admission) -> None:
        if admission._ledger is not None:
            await admission._ledger.release(admission._scope, admission._key)

    async def _reserve(
        self, tool: str, config: IdempotencyConfig, args: Mapping[str, Any], *, again: bool = True
    ) -> Admission:
        identity = idempotency_identity(tool, config, args)
        if isinstance(identity, str):
            return Admission("bad_arguments", identity)
        if self.ledger is None:
            return Admission(
                "idempotency_unconfirmed",
                f"{tool} was not run: this session's store keeps no execution ledger, so a repeat could not "
                "be recognised. Tell the person it cannot be done right now.",
            )
        key, digest = identity
        scope = self._scope(config)
        reservation = await self.ledger.reserve(scope, key, digest)
        if reservation.status == "new":
            return Admission(_ledger=self.ledger, _scope=scope, _key=key)
        if reservation.status == "conflict":
            return Admission("idempotency_conflict", _conflict_message(tool, config))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + config.wait_seconds
        entry = reservation.entry
        while entry is not None and entry.status == "pending" and loop.time() < deadline:
            await asyncio.sleep(POLL_SECONDS)
            entry = await self.ledger.lookup(scope, key)
        if entry is not None and entry.status == "done" and entry.fingerprint == digest:
            return Admission(replay=replayed_result(entry.result), replayed=True)
        if entry is None and again:  # released meanwhile (the original never dispatched): this call may run
            return await self._reserve(tool, config, args, again=False)
        return Admission(
            "idempotency_unconfirmed",
            f"{tool} was not run: an earlier attempt of this request was started and its outcome is not "
            "confirmed — it may or may not have happened. Do not try again; tell the person it will be "
            "checked.",
        )


def _conflict_message(tool: str, config: IdempotencyConfig) -> str:
    """Why a repeated key was refused. The key's fields are equal by definition (that is what made it a
    repeat), so only the other fingerprint fields can differ; the ledger keeps a hash of them, not their
    values, so which one differs is not known — the message names the candidates."""
    others = [name for name in config.fingerprint if name not in config.key]
    if len(others) == 1:
        differs = f"a different {others[0]}"
    elif others:
        differs = f"a different value of {', '.join(others[:-1])} or {others[-1]}"
    else:
        differs = "different details"
    return (
        f"{tool} was not run: this request repeats an earlier one (the same {', '.join(config.key)}) with "
        f"{differs}. Nothing was executed. Check the details with the person; a new write needs its own "
        "identifier."
    )
