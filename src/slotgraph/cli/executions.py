"""``slotgraph executions``: look at and settle side effects whose outcome an interrupted turn left unknown.

Before a task executor (or a contract's write) is dispatched, its idempotency key is reserved in the session
store's execution ledger (see ``docs/stores.md``, "The execution ledger"). When a turn is interrupted after
the dispatch and before the result was recorded, and the executor can neither be asked (no
``idempotency_status`` hook) nor safely called again (no ``idempotency_key`` parameter), the key stays
``pending`` and the session reports ``execution_unconfirmed`` on every later attempt: nobody knows whether the
booking, the payment, ... happened. An operator finds out (in the backend's own records) and settles it:

* ``slotgraph executions show KEY`` prints the entry (status, when it was reserved, the recorded result);
* ``slotgraph executions settle KEY --result JSON`` records what the backend did: the session's next turn
  routes that result as if the executor had just answered (``{"success": true, ...}`` for a booking that
  happened, a failure such as ``{"success": false, "error": "..."}`` for one that did not and should not be
  retried automatically);
* ``slotgraph executions settle KEY --not-performed`` releases the key: the side effect did not happen, and
  the session's next turn dispatches the executor again with the same key.

``KEY`` is a task executor's idempotency key as the error names it, ``SESSION:TASK:ATTEMPT`` (the ledger keeps
it as ``TASK:ATTEMPT`` in the session's scope). A contract's key (``tool_logic`` ``idempotency``) is given as
the ledger records it, with ``--scope``: the session id, or ``agent:NAME`` for ``scope: agent``. Only a
``pending`` key can be settled: a ``done`` one already has its result, an unknown one was never reserved (or
its session was deleted); both exit 1 with the reason. Settling takes no session lock: its turns report the
key unconfirmed and never dispatch it, so a settle cannot race a dispatch.
"""

from __future__ import annotations

import asyncio
import json
import shlex
from datetime import UTC, datetime
from typing import Annotated, Any

import typer
from rich.markup import escape

from slotgraph.cli.exit_codes import ExitCode
from slotgraph.cli.output import print_error, stderr_console, stdout_console, usage_error

__all__ = ["executions_app", "locate", "settle_command", "show_command"]

executions_app = typer.Typer(
    name="executions",
    help="Show or settle a side effect left unconfirmed by an interrupted turn (the store's ledger).",
    no_args_is_help=True,
    add_completion=False,
)

_STORE_HELP = (
    "Session store URL, as given to `slotgraph serve --store` (default sqlite://: .slotgraph/sessions.db)."
)
_SCOPE_HELP = (
    "Ledger scope, for a key as the ledger records it (a contract's key). Without it KEY is a task "
    "executor's SESSION:TASK:ATTEMPT."
)

StoreOption = Annotated[str, typer.Option("--store", help=_STORE_HELP)]
ScopeOption = Annotated[str | None, typer.Option("--scope", help=_SCOPE_HELP)]
KeyArgument = Annotated[
    str, typer.Argument(help="The idempotency key (the execution_unconfirmed error names it).")
]


def locate(key: str, scope: str | None) -> tuple[str, str]:
    """``(scope, key as recorded in the ledger)``.

    Without ``scope``, ``key`` is a task executor's idempotency key ``SESSION:TASK:ATTEMPT`` (as the
    ``execution_unconfirmed`` error and the executor see it), recorded as ``TASK:ATTEMPT`` in the session's
    scope. With ``scope``, ``key`` is taken as recorded (a contract's key, e.g. ``record_payment:["INV-7"]``).
    """
    if scope is not None:
        if not scope.strip():
            usage_error(
                "--scope is empty", fix="pass the scope the key was reserved in, or leave --scope out"
            )
        return scope, key
    head, separator, attempt = key.rpartition(":")
    session, separator2, task = head.rpartition(":")
    if not (separator and separator2 and session and task and attempt.isdigit()):
        usage_error(
            f"{key!r} is not a task executor's key (SESSION:TASK:ATTEMPT), so its scope cannot be derived",
            fix="pass --scope (the session id, or agent:NAME for a contract with idempotency scope 'agent') "
            "and the key as the ledger records it",
        )
    return session, f"{task}:{attempt}"


def _open(store_url: str) -> Any:
    from slotgraph.redaction import redact_url
    from slotgraph.stores import open_store
    from slotgraph.stores.errors import StoreConfigError
    from slotgraph.stores.ledger import ExecutionLedger

    try:
        store = open_store(store_url)
    except StoreConfigError as problem:
        usage_error(str(problem), fix="pass the store URL the server uses with --store")
    if not isinstance(store, ExecutionLedger):  # pragma: no cover - every shipped store keeps a ledger
        usage_error(f"the store {redact_url(store_url)!r} keeps no execution ledger")
    return store


def _run(store_url: str, action: Any) -> Any:
    """Run ``action(store)`` on a fresh loop and close the store; a store failure exits 1 with its message."""
    from slotgraph.stores.errors import LedgerError, StoreError

    store = _open(store_url)

    async def go() -> Any:
        try:
            return await action(store)
        finally:
            await store.close()

    try:
        return asyncio.run(go())
    except (StoreError, LedgerError) as problem:
        print_error(stderr_console(), str(problem))
        raise typer.Exit(ExitCode.INVALID_CONFIG) from None


def _entry_dict(scope: str, entry: Any) -> dict[str, Any]:
    return {
        "scope": scope,
        "ledger_key": entry.key,
        "status": entry.status,
        "reserved_at": datetime.fromtimestamp(entry.created_at, UTC).isoformat(timespec="seconds"),
        "fingerprint": entry.fingerprint,
        "result": entry.result,
    }


def _not_found(key: str, scope: str) -> None:
    stderr_console().print(
        f"[red]error:[/red] no ledger entry {escape(repr(key))} in scope {escape(repr(scope))}: it was never "
        "reserved, or its session was deleted (check the key and --store; a contract key needs --scope)"
    )
    raise typer.Exit(ExitCode.INVALID_CONFIG)


@executions_app.command("show")
def show_command(
    key: KeyArgument,
    store: StoreOption = "sqlite://",
    scope: ScopeOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the entry as JSON.")] = False,
) -> None:
    """Print a ledger entry: pending (outcome unknown) or done (with its recorded result)."""
    where, recorded_key = locate(key, scope)
    entry = _run(store, lambda opened: opened.lookup(where, recorded_key))
    if entry is None:
        _not_found(key, where)
    shown = _entry_dict(where, entry)
    if as_json:
        typer.echo(json.dumps(shown, indent=2, ensure_ascii=False))
        return
    console = stdout_console()
    for name, value in shown.items():
        text = json.dumps(value, ensure_ascii=False) if name == "result" else str(value)
        console.print(f"{name:<12} {text}", markup=False)
    if entry.status == "pending":
        console.print(
            "pending: the outcome is unknown. Settle it with --result JSON (what the backend did) or "
            "--not-performed (run it again).",
            markup=False,
        )


@executions_app.command("settle")
def settle_command(
    key: KeyArgument,
    result: Annotated[
        str | None,
        typer.Option("--result", help="What the side effect returned, as JSON, e.g. '{\"success\": true}'."),
    ] = None,
    not_performed: Annotated[
        bool, typer.Option("--not-performed", help="It did not happen: release the key so it runs again.")
    ] = False,
    store: StoreOption = "sqlite://",
    scope: ScopeOption = None,
) -> None:
    """Settle a pending key: record the side effect's result, or release it to run again."""
    if (result is None) == (not not_performed):
        usage_error(
            "say what happened: exactly one of --result JSON and --not-performed",
            fix="--result '{\"success\": true, ...}' if the backend did it, --not-performed if it did not",
        )
    recorded: Any = None
    if result is not None:
        try:
            recorded = json.loads(result)
        except json.JSONDecodeError as problem:
            usage_error(
                f"--result is not JSON: {problem.msg} at character {problem.pos}",
                fix="""quote it for the shell, e.g. --result '{"success": true, "booking_id": "B-1"}'""",
            )
    where, recorded_key = locate(key, scope)

    async def settle(opened: Any) -> str:
        entry = await opened.lookup(where, recorded_key)
        if entry is None:
            return "missing"
        if entry.status != "pending":
            return "done"
        if not_performed:
            await opened.release(where, recorded_key)
        else:
            await opened.complete(where, recorded_key, recorded)
        return "settled"

    outcome = _run(store, settle)
    if outcome == "missing":
        _not_found(key, where)
    if outcome == "done":
        stderr_console().print(
            f"[red]error:[/red] {escape(repr(key))} is already settled (done): its recorded result stays; "
            f"see it with: slotgraph executions show {escape(shlex.quote(key))}"
        )
        raise typer.Exit(ExitCode.INVALID_CONFIG)
    what = "released: the next turn runs it again" if not_performed else "recorded: the next turn uses it"
    stdout_console().print(f"settled {key} ({what})", markup=False)
