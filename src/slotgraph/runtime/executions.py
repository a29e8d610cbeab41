"""Exactly-once task executors: an idempotency key per attempt, recorded in the ledger before dispatch.

Every call of a task executor (a tool the engine fires through its ``function_call``) is one **attempt**.
Attempts of a task are numbered per session: the session record keeps, per task, how many attempts have
*settled* in saved turns (``record["executions"]``); the next attempt is that count plus one. Its
**idempotency key** is derived from the session, the task and that number —
``"<session id>:<task>:<attempt>"`` — and it is reserved in the store's
:class:`~slotgraph.runtime.ledger.ExecutionLedger` (scope: the session id) *before* the executor runs. The
executor receives it as the parameter ``idempotency_key`` if it declares one, and always as
``context.idempotency_key``.

Because the attempt number only moves when a turn is saved, a turn that is interrupted after the dispatch
— the process killed, the turn cancelled, the lease lost — leaves the session at the old count. When the
engine fires the task again on the next access, the attempt gets the **same key**, and the ledger answers:

* ``done``: the interrupted attempt finished and its result was recorded — the result is reused (routed as
  if the executor had just answered), the executor is not called;
* ``pending``: it was dispatched and never recorded, so it may or may not have happened. The executor is
  asked: its status hook (a function set as ``fn.idempotency_status``, called with the key, returning the
  result or None for "never happened") answers first; an executor that declares ``idempotency_key`` is
  called again with the same key (it promises to deduplicate); otherwise the outcome is **unconfirmed**: the
  executor is not called, the turn reports an ``execution_unconfirmed`` error and stops, and the task is
  neither failed nor retried until an operator settles the key (``ledger.complete`` with the result, or
  ``ledger.release`` to let it run again);
* ``conflict``: the interrupted attempt had other inputs (the user changed a value since): that attempt is
  left as it is and this one gets the next number.

**An attempt that outlives its timeout** (``limits.tool_timeout``) is settled the same way, never failed and
never retried with a new key: a slow backend may still perform it. The turn stops waiting and tells the
person it cannot confirm yet (``execution_pending``); the call goes on — a synchronous executor in its
thread, an ``async def`` one as a task of its own — and its result is recorded in the ledger when it
returns. Until then the attempt's key is ``pending``: the next access in this process sees the call still
running and says so again, without asking or re-sending anything; once it returned, its result is routed.
Another process (a second server worker, after a restart) finds the key ``pending`` and settles it as above:
status hook, the same key re-sent, or unconfirmed. A status hook that raises or does not answer in time
leaves the attempt pending too (it is asked again on the next access), rather than failing it.

Without a ledger (a store that keeps none) executors run as before, with no key.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from slotgraph.stores.ledger import ExecutionLedger, LedgerEntry, fingerprint

__all__ = ["RECORD_FIELD", "Attempt", "Executions", "attempt_key", "executions_from_record"]

logger = logging.getLogger("slotgraph.runtime")

RECORD_FIELD = "executions"
"""The session record's field holding ``{task: settled attempts}``."""

MAX_CONFLICT_SKIPS = 100


def attempt_key(session_id: str, task: str, attempt: int) -> str:
    """The idempotency key of one attempt: ``"<session id>:<task>:<attempt>"``."""
    return f"{session_id}:{task}:{attempt}"


def executions_from_record(session_id: str, value: Any) -> dict[str, int]:
    """The settled-attempt counts of a stored record; ``ValueError`` saying what is wrong."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"'{RECORD_FIELD}' is a {type(value).__name__}, not a mapping")
    out: dict[str, int] = {}
    for task, count in value.items():
        if not isinstance(task, str) or type(count) is not int or count < 0:
            raise ValueError(f"'{RECORD_FIELD}' entry {task!r}: {count!r} is not a task name -> count >= 0")
        out[task] = count
    return out


@dataclass(frozen=True, slots=True)
class Attempt:
    """What to do with one executor call, decided by the ledger.

    ``action``: ``dispatch`` (call the executor with ``key``), ``reuse`` (route ``entry.result``, recorded
    by an interrupted attempt), ``ask`` (an interrupted attempt that was never recorded: ask the executor's
    status hook, re-send the key to an executor that takes it, else report it unconfirmed)."""

    action: Literal["dispatch", "reuse", "ask"]
    task: str
    number: int
    key: str
    entry: LedgerEntry | None = None


@dataclass(slots=True)
class Executions:
    """The attempts of one turn: numbers them, reserves and completes their keys in the ledger."""

    ledger: ExecutionLedger
    session_id: str
    settled: dict[str, int] = field(default_factory=dict)

    def _ledger_key(self, task: str, number: int) -> str:
        return f"{task}:{number}"

    async def begin(self, task: str, args: Mapping[str, Any]) -> Attempt:
        """Reserve the next attempt of ``task`` with these arguments."""
        inputs = fingerprint(dict(args))
        number = self.settled.get(task, 0) + 1
        for _ in range(MAX_CONFLICT_SKIPS):
            key = attempt_key(self.session_id, task, number)
            found = await self.ledger.reserve(self.session_id, self._ledger_key(task, number), inputs)
            if found.status == "new":
                return Attempt("dispatch", task, number, key, found.entry)
            if found.status == "done":
                logger.warning(
                    "session %s: %s attempt %d was interrupted after it finished; its recorded result is "
                    "reused (key %s)",
                    self.session_id,
                    task,
                    number,
                    key,
                )
                return Attempt("reuse", task, number, key, found.entry)
            if found.status == "pending":
                return Attempt("ask", task, number, key, found.entry)
            logger.warning(
                "session %s: %s attempt %d was interrupted with other inputs; it is left as recorded and "
                "this call becomes attempt %d",
                self.session_id,
                task,
                number,
                number + 1,
            )
            self.settled[task] = number
            number += 1
        raise RuntimeError(f"{task}: more than {MAX_CONFLICT_SKIPS} interrupted attempts with other inputs")

    async def finish(self, attempt: Attempt, result: Any) -> None:
        """Record the attempt's result (routed now, reused by a replay) and settle it."""
        await self.record(attempt, result)
        self.settle(attempt)

    async def record(self, attempt: Attempt, result: Any) -> None:
        """Record the result of an attempt that returned after its turn stopped waiting for it (its
        timeout): the next access of the session reuses it."""
        await self.ledger.complete(self.session_id, self._ledger_key(attempt.task, attempt.number), result)

    def settle(self, attempt: Attempt) -> None:
        """The attempt's result is routed: the next attempt of its task gets the next number."""
        self.settled[attempt.task] = max(self.settled.get(attempt.task, 0), attempt.number)
