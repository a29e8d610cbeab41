"""``slotgraph mcp AGENT``: serve one agent as MCP tools over stdio, for a host assistant to start.

The host (an assistant, an IDE) launches the command and speaks MCP on its standard input and output; the
tools are those of ``/mcp/NAME`` on ``slotgraph serve`` (:mod:`slotgraph.server.protocols.mcp_server`):
``start_conversation``, ``send_message``, ``get_collected_slots``, ``end_conversation``. Sessions live in
``--store`` — by default in memory, for as long as the host keeps the process (a host may start it in any
working directory); ``--store sqlite:///FILE`` keeps them across restarts and shares them with a
``slotgraph serve`` on the same store. ``--today``/``--now``/``--seed`` pin the clock and the random numbers
as in ``slotgraph chat``. Nothing but MCP is written to stdout; errors go to stderr.

Needs the ``server`` and ``mcp`` extras. Exit codes: 0 when the host closes the connection, 1 the agent cannot
be loaded, 2 usage error (options, store, missing extra).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from slotgraph.cli.chat import parse_clock
from slotgraph.cli.exit_codes import ExitCode
from slotgraph.cli.output import fail, stderr_console
from slotgraph.redaction import redact_url

__all__ = ["MCP_STORE_DEFAULT", "mcp_command", "serve_mcp"]

MCP_STORE_DEFAULT = "memory://"
_HINT = "install the extras: pip install 'slotgraph[server,mcp]'"


def serve_mcp(
    path: Path,
    *,
    store: str = MCP_STORE_DEFAULT,
    model: str | None = None,
    today: str | None = None,
    now: str | None = None,
    seed: int | None = None,
) -> int:
    """Serve the agent at ``path`` over stdio until the host closes the connection; the exit code."""
    try:
        clock = parse_clock(today, now)
    except ValueError as err:
        return fail(stderr_console(), str(err), ExitCode.USAGE)
    try:
        import anyio

        from slotgraph.server import ServerConfigError, load_hosted_agents, open_session_store
        from slotgraph.server.protocols import Conversations
        from slotgraph.server.protocols.mcp_server import agent_mcp_server
        from slotgraph.server.sessions import SessionService
    except ImportError as err:
        return fail(
            stderr_console(),
            f"serving MCP needs a package that is not installed ({err.name})",
            ExitCode.USAGE,
            _HINT,
        )
    try:
        agents = load_hosted_agents([path], model=model)
    except ServerConfigError as err:
        return fail(stderr_console(), err.message, ExitCode.INVALID_CONFIG, err.fix)
    try:
        session_store = open_session_store(store)
    except ServerConfigError as err:
        return fail(stderr_console(), err.message, ExitCode.USAGE, err.fix)
    service = SessionService(agents, session_store, clock=clock, seed=seed)
    server = agent_mcp_server(Conversations(service), agents[0])
    shown = redact_url(store)
    stderr_console().print(f"Serving {escape(agents[0].name)} over MCP (stdio), store {escape(shown)}")

    async def run() -> None:
        try:
            await server.run_stdio_async()
        finally:
            await service.wait_running(30.0)
            close = getattr(session_store, "close", None)
            if callable(close):
                outcome = close()
                if inspect.isawaitable(outcome):
                    await outcome

    anyio.run(run)
    return int(ExitCode.OK)


def mcp_command(
    path: Annotated[
        Path, typer.Argument(help="The agent directory (or agent.yaml) to serve.", metavar="AGENT")
    ],
    store: Annotated[
        str,
        typer.Option(
            "--store",
            help="Session store URL: memory:// (default: sessions last as long as the process), "
            "sqlite:///FILE, redis://..., postgresql://...",
        ),
    ] = MCP_STORE_DEFAULT,
    model: Annotated[
        str | None, typer.Option("--model", help="Model spec (default: the agent's own model).")
    ] = None,
    today: Annotated[
        str | None, typer.Option("--today", help="Pin the session date the tools see: YYYY-MM-DD.")
    ] = None,
    now: Annotated[
        str | None, typer.Option("--now", help="Pin the session date and time: YYYY-MM-DDTHH:MM.")
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Seed the sessions' random numbers.")] = None,
) -> None:
    """Serve an agent as MCP tools over stdio, for an assistant or IDE to call."""
    code = serve_mcp(path, store=store, model=model, today=today, now=now, seed=seed)
    if code:
        raise typer.Exit(code)
