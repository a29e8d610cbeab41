"""A worker process playing the copay example against a durable store, for the race and crash tests.

python copay_child.py race URL SESSION       appointment A-100, prints READY, waits for GO on stdin, then
                                              records payment TX-1 (seeded); prints the record's tool result
python copay_child.py crash-dispatch URL SESSION   records TX-1 and is killed (SIGKILL) inside the write,
                                              right after it happened: before the ledger knows the outcome
python copay_child.py crash-save URL SESSION  records TX-1 and is killed when the turn is saved: after the
                                              write and its ledger entry, before the session is saved
python copay_child.py resume URL SESSION      the model repeats the record; prints the record's tool result

The payment system is the SQLite file $COPAY_DB (the test created payment TX-1 for A-100 in it).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep, call
from slotgraph.runtime.events import RefusalEvent, ToolResultEvent
from slotgraph.stores import open_store
from slotgraph.stores.ledger import LedgerEntry, Reservation

COPAY = Path(__file__).resolve().parents[2] / "examples" / "copay"


def _kill(*_: Any, **__: Any) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


class KillAtSave:
    """A store that dies when a turn is saved (everything else is the real store's)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def save(self, session_id: str, record: dict[str, Any], expected_version: int) -> int:
        _kill()
        raise AssertionError("unreachable")

    async def reserve(self, scope: str, key: str, fingerprint: str) -> Reservation:
        found: Reservation = await self.inner.reserve(scope, key, fingerprint)
        return found

    async def complete(self, scope: str, key: str, result: Any) -> None:
        await self.inner.complete(scope, key, result)

    async def release(self, scope: str, key: str) -> None:
        await self.inner.release(scope, key)

    async def lookup(self, scope: str, key: str) -> LedgerEntry | None:
        entry: LedgerEntry | None = await self.inner.lookup(scope, key)
        return entry


def _report(result: Any) -> None:
    outcome: dict[str, Any] = {}
    for event in result.events:
        if isinstance(event, ToolResultEvent) and event.name == "record_copay":
            outcome["result"] = event.result
        if isinstance(event, RefusalEvent) and event.name == "record_copay":
            outcome["refused"] = event.refused
    print(json.dumps(outcome), flush=True)


async def main(mode: str, url: str, session_id: str) -> None:
    store = open_store(url)
    agent = Agent.load(COPAY)
    if mode == "crash-dispatch":
        tool = agent.tools.get("record_copay")
        assert tool is not None and tool.fn is not None
        write = tool.fn

        def write_then_die(**kwargs: Any) -> Any:
            write(**kwargs)
            _kill()

        agent.tools.add(dataclasses.replace(tool, fn=write_then_die))
    try:
        if mode != "resume":
            first = ScriptedModel(
                [ScriptedStep(tool_calls=(call("set_appointment_id", appointment_id="A-100"),))]
            )
            await agent.session(
                session_id=session_id, store=store, model=first, variables={"transaction_id": "TX-1"}
            ).asend("the copay for A-100")
        if mode == "race":
            print("READY", flush=True)
            assert sys.stdin.readline().strip() == "GO"
        record = ScriptedModel(
            [
                ScriptedStep(tool_calls=(call("record_copay", amount_dollars=25),)),
                ScriptedStep(text="Recorded."),
            ]
        )
        turn_store = KillAtSave(store) if mode == "crash-save" else store
        session = agent.session(session_id=session_id, store=turn_store, model=record)
        _report(await session.asend("please record my payment"))
        if mode == "resume":
            print(json.dumps({"copay_record": session.variables["copay_record"]}), flush=True)
    finally:
        await store.close()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
