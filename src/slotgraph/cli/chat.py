"""``slotgraph chat PATH``: talk to an agent in the terminal (or script it through stdin).

Interactive when stdin is a terminal (rich prompt, ``/quit`` to leave); otherwise one user turn per input
line, so a conversation can be piped in and tested. ``--show-state`` prints, after every turn, the filled /
pending / deferred slots, the fired tasks, the tools hidden from the model and the current directive.
``--transcript FILE.jsonl`` writes every event (one JSON object per line, with its turn) and the final state.

``--model`` takes any model spec (``offline``, ``openai:gpt-4o-mini``, ``scripted:FILE.json``, … — see
``slotgraph models list``); without it the agent's own ``model`` from agent.yaml is used.
Exit codes: 0 ok, 1 invalid agent or a failed turn, 2 usage error (bad path, model spec or ``--event-data``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any, TextIO

import typer
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from slotgraph.cli.exit_codes import ExitCode
from slotgraph.cli.output import print_issue, stdout_console
from slotgraph.cli.paths import PATH_HELP, InvalidConfig, PathUsageError, check_path_usage
from slotgraph.config import ConfigError, ConfigValidationError
from slotgraph.logic import RuleEvent
from slotgraph.runtime import (
    Agent,
    AgentLoadError,
    EndSessionEvent,
    ModelNoCallEvent,
    ModelNotAvailableError,
    PayloadEvent,
    RefusalEvent,
    ScriptedModel,
    Session,
    SlotgraphRuntimeError,
    TextEvent,
    TransferEvent,
    TurnResult,
    event_to_json,
)

__all__ = ["chat", "chat_command"]

_QUIT = {"/quit", "/exit"}


def _lines(stream: TextIO, console: Console, interactive: bool) -> Iterator[str]:
    while True:
        if interactive:
            try:
                line = console.input("[bold cyan]you>[/bold cyan] ")
            except EOFError:
                return
        else:
            raw = stream.readline()
            if not raw:
                return
            line = raw.rstrip("\n")
        if line.strip() in _QUIT:
            return
        if line.strip():
            yield line


def _state_panel(session: Session) -> Panel:
    sm = session.state
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()

    def show(values: Any) -> str:
        return escape(json.dumps(values, default=str, ensure_ascii=False)) if values else "—"

    table.add_row("status", escape(str(sm.get("status", "in_progress"))))
    table.add_row("filled", show(sm.get("filled")))
    table.add_row("pending", show(sm.get("pending")))
    table.add_row("deferred", show(sm.get("deferred")))
    table.add_row("tasks", show(sorted((sm.get("task_results") or {}).keys())))
    turn = session.last_turn
    if turn is not None:
        hidden = sorted(set(session.agent.tools.names) - set(turn.last_visible))
        table.add_row("hidden tools", show(hidden))
        table.add_row("directive", escape(str(turn.last_action.get("message") or "—")))
    if session.agent.logic is not None:
        table.add_row("variables", show(session.variables))
    return Panel(table, title="session", expand=False)


def _print_turn(console: Console, result: TurnResult, *, diagnostics: bool = False) -> None:
    for event in result.events:
        if isinstance(event, ModelNoCallEvent):
            if diagnostics:  # --show-state: why the model used nothing of the message
                console.print(f"[yellow]model made no call:[/yellow] {escape(event.reason)}")
            continue
        if isinstance(event, TextEvent):
            console.print(f"[bold green]agent>[/bold green] {escape(event.text)}")
        elif isinstance(event, PayloadEvent):
            console.print(f"[magenta]payload>[/magenta] {escape(json.dumps(dict(event.part), default=str))}")
        elif isinstance(event, RefusalEvent):
            console.print(f"[yellow]refused[/yellow] {escape(event.name)}: {escape(event.refused)}")
        elif isinstance(event, EndSessionEvent):
            note = " (escalated)" if event.escalated else ""
            console.print(f"[dim]— session ended{escape(note)}: {escape(event.reason)}[/dim]")
        elif isinstance(event, TransferEvent):
            console.print(f"[dim]— handed over to a human: {escape(event.reason)}[/dim]")
        elif isinstance(event, RuleEvent) and not event.ok:
            console.print(f"[yellow]rule {escape(event.rule)} failed:[/yellow] {escape(event.error or '')}")
        elif isinstance(event, RuleEvent):
            done = ", ".join(event.actions)
            console.print(f"[dim]— rule {escape(event.rule)} ({escape(event.trigger)}): {escape(done)}[/dim]")
    for error in result.errors:
        console.print(f"[red]error:[/red] {escape(error.message)}")


def _no_constant(name: str) -> Any:
    """``NaN``/``Infinity`` are not JSON (Python's reader accepts them) and cannot be stored: refuse them."""
    raise ValueError(f"{name} is not a JSON number")


def _fail(console: Console, message: str, code: ExitCode, fix: str = "") -> int:
    console.print(f"[red]error:[/red] {escape(message)}")
    if fix:
        console.print(f"  fix: {escape(fix)}")
    return int(code)


def chat(
    path: Path,
    model: str | None,
    show_state: bool,
    event_data: str | None,
    transcript: Path | None,
    debug: bool,
    *,
    stdin: TextIO | None = None,
    console: Console | None = None,
    lines: Iterable[str] | None = None,
) -> int:
    """Run a chat; returns the exit code. ``lines`` (or ``stdin``) replace the terminal for scripted use."""
    out = console or stdout_console()
    stream = stdin or sys.stdin
    try:
        check_path_usage(path)
    except PathUsageError as err:
        return _fail(out, err.message, ExitCode.USAGE, err.fix)
    data: dict[str, Any] | None = None
    if event_data is not None:
        try:
            parsed = json.loads(event_data, parse_constant=_no_constant)
        except json.JSONDecodeError as err:
            return _fail(out, f"--event-data is not valid JSON: {err}", ExitCode.USAGE, "pass a JSON object")
        except ValueError as err:
            return _fail(out, f"--event-data: {err}", ExitCode.USAGE, "use finite numbers")
        if not isinstance(parsed, dict):
            return _fail(
                out, "--event-data must be a JSON object", ExitCode.USAGE, "e.g. '{\"party_size\": 4}'"
            )
        data = parsed
    try:
        agent = Agent.load(path, model=model)
        session = agent.session(event_data=data, debug=debug)
    except ConfigValidationError as err:
        out.print(f"[red]error:[/red] {escape(str(path))}: invalid agent")
        for issue in err.issues:
            print_issue(out, issue)
        return int(ExitCode.INVALID_CONFIG)
    except (ConfigError, InvalidConfig, AgentLoadError) as err:
        return _fail(out, str(err), ExitCode.INVALID_CONFIG)
    except ModelNotAvailableError as err:
        return _fail(
            out, str(err), ExitCode.USAGE, "pass a spec `slotgraph models list` shows, e.g. --model offline"
        )
    interactive = lines is None and stream.isatty()
    source = iter(lines) if lines is not None else _lines(stream, out, interactive)
    if interactive:
        out.print(f"[dim]Chatting with {escape(agent.name)} — /quit to leave.[/dim]")
    rows: list[dict[str, Any]] = []
    code = ExitCode.OK
    for turn, text in enumerate(source, start=1):
        if not interactive:
            out.print(f"[bold cyan]you>[/bold cyan] {escape(text)}")
        try:
            result = session.send(text)
        except SlotgraphRuntimeError as err:
            code = ExitCode.INVALID_CONFIG
            _fail(out, f"turn {turn} failed: {err}", code)
            break
        rows.append({"kind": "user", "turn": turn, "text": text})
        rows.extend({**event_to_json(e), "turn": turn} for e in result.events)
        _print_turn(out, result, diagnostics=show_state)
        if show_state:
            out.print(_state_panel(session))
        if session.ended:
            break
    if transcript is not None:
        rows.append({"kind": "final_state", "status": session.status, "state": session.state})
        with transcript.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, default=str, ensure_ascii=False) + "\n")
    if isinstance(session.model, ScriptedModel) and session.model.remaining:
        out.print(f"[yellow]note:[/yellow] {session.model.remaining} scripted model step(s) were not used")
    return int(code)


def chat_command(
    path: Annotated[Path, typer.Argument(help=PATH_HELP)],
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="model spec overriding agent.yaml: offline, openai:MODEL, gemini:MODEL, scripted:FILE.json",
        ),
    ] = None,
    show_state: Annotated[
        bool, typer.Option("--show-state", help="print the slots after every turn")
    ] = False,
    event_data: Annotated[
        str | None, typer.Option("--event-data", help="JSON object of event data, e.g. a caller's party size")
    ] = None,
    transcript: Annotated[
        Path | None, typer.Option("--transcript", help="write every event and the final state as JSON lines")
    ] = None,
    debug: Annotated[bool, typer.Option("--debug", help="keep the engine's debug log in the state")] = False,
) -> None:
    """Chat with an agent in the terminal; with piped stdin, one user turn per line."""
    raise typer.Exit(chat(path, model, show_state, event_data, transcript, debug))
