"""``slotgraph executions show|settle``: an operator settles a side effect an interrupted turn left unknown.

Real SQLite stores on disk; the interrupted turn is the runtime's own (a turn cancelled while the executor
runs), so the CLI settles exactly what the runtime reports as ``execution_unconfirmed``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from cli_support import Invoke
from tests.runtime.test_executions import Booker, agent_with, clock, interrupted_turn

from slotgraph.cli.executions import locate
from slotgraph.runtime import ErrorEvent
from slotgraph.stores import SQLiteStore
from slotgraph.stores.ledger import fingerprint

KEY = "s1:book:1"


def unconfirmed_session(path: Path) -> Booker:
    """A session whose booking was dispatched by a turn that was then interrupted; the next turn reports it
    unconfirmed (without calling the backend)."""
    booker = Booker()

    async def body() -> None:
        store = SQLiteStore(path)
        agent = agent_with(booker.book)
        await interrupted_turn(agent, store, booker, "cats")
        result = await agent.session(session_id="s1", store=store, clock=clock).asend("cats")
        errors = [e for e in result.events if isinstance(e, ErrorEvent)]
        assert [e.code for e in errors] == ["execution_unconfirmed"]
        assert f"slotgraph executions settle {KEY}" in errors[0].message
        await store.close()

    asyncio.run(body())
    assert booker.calls == [("cats", KEY)]
    return booker


def next_turn(path: Path, booker: Booker) -> str:
    async def body() -> str:
        store = SQLiteStore(path)
        try:
            result = (
                await agent_with(booker.book).session(session_id="s1", store=store, clock=clock).asend("cats")
            )
        finally:
            await store.close()
        return result.text

    return asyncio.run(body())


def test_show_prints_a_pending_entry(invoke: Invoke, tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    unconfirmed_session(path)
    shown = invoke(["executions", "show", KEY, "--store", f"sqlite://{path}", "--json"])
    assert shown.exit_code == 0, shown.output
    entry = json.loads(shown.output)
    assert (entry["scope"], entry["ledger_key"], entry["status"], entry["result"]) == (
        "s1",
        "book:1",
        "pending",
        None,
    )
    plain = invoke(["executions", "show", KEY, "--store", f"sqlite://{path}"])
    assert plain.exit_code == 0 and "pending: the outcome is unknown" in plain.output


def test_settling_with_the_backends_result_lets_the_next_turn_route_it(
    invoke: Invoke, tmp_path: Path
) -> None:
    path = tmp_path / "sessions.db"
    booker = unconfirmed_session(path)
    store_url = f"sqlite://{path}"
    settled = invoke(
        [
            "executions",
            "settle",
            KEY,
            "--result",
            '{"success": true, "ref": "R-operator"}',
            "--store",
            store_url,
        ]
    )
    assert settled.exit_code == 0, settled.output
    assert f"settled {KEY} (recorded: the next turn uses it)" in settled.output
    assert "Booked: R-operator." in next_turn(path, booker)
    assert booker.calls == [("cats", KEY)]  # the backend was not called again
    again = invoke(["executions", "settle", KEY, "--not-performed", "--store", store_url])
    assert again.exit_code == 1 and "already settled" in again.output


def test_settling_as_not_performed_runs_it_again_with_the_same_key(invoke: Invoke, tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    booker = unconfirmed_session(path)
    released = invoke(["executions", "settle", KEY, "--not-performed", "--store", f"sqlite://{path}"])
    assert released.exit_code == 0, released.output
    assert "Booked: R2." in next_turn(path, booker)
    assert booker.calls == [
        ("cats", KEY),
        ("cats", KEY),
    ]  # dispatched again, same key: the backend may dedupe


def test_a_contract_key_is_settled_in_its_scope(invoke: Invoke, tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    key = 'record_payment:["INV-7"]'

    async def reserve() -> None:
        store = SQLiteStore(path)
        await store.reserve("agent:copay", key, fingerprint({"amount": 10}))
        await store.close()

    asyncio.run(reserve())
    url = f"sqlite://{path}"
    settled = invoke(
        ["executions", "settle", key, "--scope", "agent:copay", "--result", '{"ok": 1}', "--store", url]
    )
    assert settled.exit_code == 0, settled.output

    async def lookup() -> object:
        store = SQLiteStore(path)
        try:
            entry = await store.lookup("agent:copay", key)
        finally:
            await store.close()
        return None if entry is None else (entry.status, entry.result)

    assert asyncio.run(lookup()) == ("done", {"ok": 1})


def test_bad_input_is_a_clear_error_and_changes_nothing(invoke: Invoke, tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    unconfirmed_session(path)
    url = f"sqlite://{path}"
    neither = invoke(["executions", "settle", KEY, "--store", url])
    assert neither.exit_code == 2 and "exactly one of --result JSON and --not-performed" in neither.output
    both = invoke(["executions", "settle", KEY, "--result", "{}", "--not-performed", "--store", url])
    assert both.exit_code == 2
    not_json = invoke(["executions", "settle", KEY, "--result", "{success: true}", "--store", url])
    assert not_json.exit_code == 2 and "--result is not JSON" in not_json.output
    unknown = invoke(["executions", "settle", "s1:book:9", "--not-performed", "--store", url])
    assert unknown.exit_code == 1 and "no ledger entry 's1:book:9' in scope 's1'" in unknown.output
    no_scope = invoke(["executions", "show", "payment-7", "--store", url])
    assert no_scope.exit_code == 2 and "pass --scope" in no_scope.output
    bad_store = invoke(["executions", "show", KEY, "--store", "nosuch://x"])
    assert bad_store.exit_code == 2 and "unknown store scheme 'nosuch'" in bad_store.output
    still = invoke(["executions", "show", KEY, "--store", url, "--json"])
    assert json.loads(still.output)["status"] == "pending"


def test_a_session_id_may_contain_colons() -> None:
    assert locate("tenant:42:book_table:3", None) == ("tenant:42", "book_table:3")
    assert locate('pay:["A"]', "agent:copay") == ("agent:copay", 'pay:["A"]')
