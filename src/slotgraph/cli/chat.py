"""``slotgraph chat PATH``: talk to an agent in the terminal (or script it through stdin).

Interactive when stdin is a terminal: the prompt has line editing and history (GNU readline: arrow keys,
Ctrl-A/E, ↑/↓ through earlier turns), ``/help`` lists the commands, ``/state`` shows the panel on demand,
``/restart`` leaves the conversation for a new session with the same agent and options, ``/quit`` (or
Ctrl-D) leaves. Otherwise one user turn per input line, so a conversation can be piped in and
tested. Either way the chat ends with one line saying how the session ended. ``--show-state`` prints, after
every turn, what it did and where the conversation stands (:mod:`slotgraph.cli.chat_panel`).
``--today YYYY-MM-DD`` / ``--now YYYY-MM-DDTHH:MM`` pin the session clock the tools see (``today``/``now``)
and ``--seed N`` the engine's random choices, so a piped conversation replays exactly.
``--transcript FILE.jsonl`` writes every event (one JSON object per line, with its turn) and the final state.

``--model`` takes any model spec (``offline``, ``openai:gpt-4o-mini``, ``scripted:FILE.json``, … — see
``slotgraph models list``); without it the agent's own ``model`` from agent.yaml is used.
Exit codes: 0 ok, 1 invalid agent or a failed turn, 2 usage error (bad path, model spec, date or
``--event-data``).
"""

from __future__ import annotations

import datetime
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Annotated, Any, TextIO

import typer
from rich.console import Console
from rich.markup import escape

from slotgraph.apps import load_agent
from slotgraph.cli.chat_panel import state_panel, turn_summary
from slotgraph.cli.exit_codes import ExitCode
from slotgraph.cli.output import fail, print_error, print_issue, stdout_console
from slotgraph.cli.paths import PATH_HELP, InvalidConfig, PathUsageError, check_path_usage
from slotgraph.config import ConfigError, ConfigValidationError
from slotgraph.engine import format_line
from slotgraph.engine.state import TERMINAL_STATUSES
from slotgraph.errors import SlotgraphError
from slotgraph.logic import GuardEvent, RuleEvent, TopicEvent
from slotgraph.runtime import (
    AgentLoadError,
    AgentTransferEvent,
    EndSessionEvent,
    ModelNoCallEvent,
    ModelNotAvailableError,
    PayloadEvent,
    RefusalEvent,
    ScriptedModel,
    Session,
    TextEvent,
    TransferEvent,
    TurnResult,
    event_to_json,
)

__all__ = ["chat", "chat_command"]

_QUIT = {"/quit", "/exit"}
_HELP_TEXT = """Type what the person says; the agent answers. Commands:
  /help          this help
  /state         the session panel now (--show-state prints it after every turn)
  /restart       start over: a new session with the same agent and options
  /quit, /exit   leave (Ctrl-D too)
Line editing: ←/→, Home/End, Ctrl-A/Ctrl-E, Ctrl-U; ↑/↓ go through earlier turns."""
_PROMPT = "you> "
_COLOUR_PROMPT = "\001\033[1;36m\002you>\001\033[0m\002 "  # \001..\002: readline skips the escape codes


def _enable_line_editing() -> bool:
    """Load GNU readline (stdlib) so ``input()`` edits lines and keeps history; False where unavailable."""
    try:
        import readline  # noqa: F401 - importing it is what turns line editing on for input()
    except ImportError:  # pragma: no cover - e.g. Windows without pyreadline
        return False
    return True


def _lines(
    stream: TextIO, console: Console, interactive: bool, commands: Callable[[str], bool]
) -> Iterator[str]:
    prompt = _COLOUR_PROMPT if interactive and console.is_terminal and not console.no_color else _PROMPT
    while True:
        if interactive:
            try:
                line = input(prompt)
            except EOFError:
                console.print()
                return
        else:
            raw = stream.readline()
            if not raw:
                return
            line = raw.rstrip("\n")
        command = line.strip()
        if command in _QUIT:
            return
        if command.startswith("/") and commands(command):
            continue
        if command:
            yield line


def _finished(session: Session) -> bool:
    """The conversation is over: ended (end_session, a hand-over) or complete/escalated."""
    return session.ended or session.status in TERMINAL_STATUSES


def _end_line(session: Session, turns: int, quit_early: bool, *, restarted: bool = False) -> str:
    status = session.status
    count = f"{turns} turn{'s' if turns != 1 else ''}"
    if _finished(session):
        how = {"complete": "completed", "escalated": "escalated to a person"}.get(status, status)
        return f"── session over: {how} after {count} ──"
    if restarted:
        return f"── restarted after {count} (status {status}): a new session ──"
    if quit_early:
        return f"── left the session after {count} (status {status}; nothing more was sent) ──"
    return f"── end of input after {count} (status {status}) ──"


def _panel(session: Session, result: TurnResult | None) -> Any:
    directive = result.directive if result is not None else None  # the turn's own record (its last step)
    events = result.events if result is not None else ()
    variables = session.variables if session.agent.logic is not None else None
    return state_panel(turn_summary(session.agent.dag, session.state, events, directive, variables))


def _print_debug(console: Console, result: TurnResult) -> None:
    for entry in result.debug_log:
        data = {k: v for k, v in entry.items() if k != "tag"}
        console.print(f"[dim]{escape(format_line(str(entry.get('tag', '')), data))}[/dim]")


def _because(reason: str) -> str:
    """``": <reason>"`` for an event line, or nothing when no reason was given."""
    return f": {escape(reason.strip())}" if reason.strip() else ""


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
            who = f" by the {event.by}" if event.by != "runtime" else ""
            console.print(f"[yellow]refused{who}[/yellow] {escape(event.name)}: {escape(event.refused)}")
        elif isinstance(event, EndSessionEvent):
            note = " (escalated)" if event.escalated else ""
            console.print(f"[dim]— session ended{note}{_because(event.reason)}[/dim]")
        elif isinstance(event, TransferEvent):
            console.print(f"[dim]— handed over to a human{_because(event.reason)}[/dim]")
        elif isinstance(event, TopicEvent):
            where = f"{event.from_topic or 'main'} → {event.to_topic or 'main'}"
            refused = f" refused: {event.message}" if not event.ok else ""
            console.print(f"[dim]— topic {escape(where)} ({escape(event.via)}){escape(refused)}[/dim]")
        elif isinstance(event, AgentTransferEvent):
            console.print(f"[dim]— {escape(event.from_agent)} hands over to {escape(event.to_agent)}[/dim]")
        elif isinstance(event, GuardEvent):
            detail = f": {event.detail}" if event.detail else ""
            what = f"{event.guard} ({event.check}): {event.action}{detail}"
            console.print(f"[dim]— guard {escape(what)}[/dim]")
        elif isinstance(event, RuleEvent) and not event.ok:
            console.print(f"[yellow]rule {escape(event.rule)} failed:[/yellow] {escape(event.error or '')}")
        elif isinstance(event, RuleEvent):
            done = ", ".join(event.actions)
            console.print(f"[dim]— rule {escape(event.rule)} ({escape(event.trigger)}): {escape(done)}[/dim]")
    for error in result.errors:
        print_error(console, error.message)


def _no_constant(name: str) -> Any:
    """``NaN``/``Infinity`` are not JSON (Python's reader accepts them) and cannot be stored: refuse them."""
    raise ValueError(f"{name} is not a JSON number")


def parse_clock(today: str | None, now: str | None) -> Callable[[], datetime.datetime] | None:
    """The clock ``--today``/``--now`` pin (``--today`` alone is noon that day); None for the real one.

    Raises ``ValueError`` with the message to show for a malformed date or both options at once.
    """
    if today is not None and now is not None:
        raise ValueError("pass --today or --now, not both (--now sets the date too)")
    if today is not None:
        try:
            day = datetime.date.fromisoformat(today.strip())
        except ValueError:
            raise ValueError(f"--today {today!r} is not a date: write YYYY-MM-DD, e.g. 2026-07-10") from None
        pinned = datetime.datetime.combine(day, datetime.time(12, 0))
    elif now is not None:
        try:
            pinned = datetime.datetime.fromisoformat(now.strip())
        except ValueError:
            raise ValueError(
                f"--now {now!r} is not a date and time: write YYYY-MM-DDTHH:MM, e.g. 2026-07-10T18:30"
            ) from None
    else:
        return None
    return lambda: pinned


def _tools_clock(clock: Callable[[], datetime.datetime] | None) -> AbstractContextManager[None]:
    """Tools that read the date themselves (platform tools) see the pinned day too (slotgraph.evals.clock)."""
    if clock is None:
        return nullcontext()
    from slotgraph.evals.clock import wall_clock_at  # only a pinned chat loads the evals package

    return wall_clock_at(clock())


def chat(
    path: Path,
    model: str | None,
    show_state: bool,
    event_data: str | None,
    transcript: Path | None,
    debug: bool,
    *,
    today: str | None = None,
    now: str | None = None,
    seed: int | None = None,
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
        return fail(out, err.message, ExitCode.USAGE, err.fix)
    try:
        clock = parse_clock(today, now)
    except ValueError as err:
        return fail(out, str(err), ExitCode.USAGE)
    with _tools_clock(clock):
        return _chat(out, stream, path, model, show_state, event_data, transcript, debug, clock, seed, lines)


def _chat(
    out: Console,
    stream: TextIO,
    path: Path,
    model: str | None,
    show_state: bool,
    event_data: str | None,
    transcript: Path | None,
    debug: bool,
    clock: Callable[[], datetime.datetime] | None,
    seed: int | None,
    lines: Iterable[str] | None,
) -> int:
    """The chat itself, with the tools' clock pinned (see :func:`chat`)."""
    data: dict[str, Any] | None = None
    if event_data is not None:
        try:
            parsed = json.loads(event_data, parse_constant=_no_constant)
        except json.JSONDecodeError as err:
            return fail(out, f"--event-data is not valid JSON: {err}", ExitCode.USAGE, "pass a JSON object")
        except ValueError as err:
            return fail(out, f"--event-data: {err}", ExitCode.USAGE, "use finite numbers")
        if not isinstance(parsed, dict):
            return fail(
                out, "--event-data must be a JSON object", ExitCode.USAGE, "e.g. '{\"party_size\": 4}'"
            )
        data = parsed
    try:
        agent = load_agent(path, model=model)
        session = agent.session(event_data=data, debug=debug, clock=clock, seed=seed)
        sessions = [session]  # /restart appends a new one; the chat talks to the last
    except ConfigValidationError as err:
        out.print(f"[red]error:[/red] {escape(str(path))}: invalid agent")
        for issue in err.issues:
            print_issue(out, issue)
        return int(ExitCode.INVALID_CONFIG)
    except (ConfigError, InvalidConfig, AgentLoadError) as err:
        return fail(out, str(err), ExitCode.INVALID_CONFIG)
    except ModelNotAvailableError as err:
        return fail(
            out, str(err), ExitCode.USAGE, "pass a spec `slotgraph models list` shows, e.g. --model offline"
        )
    interactive = lines is None and stream.isatty()
    last: list[TurnResult] = []
    quit_early = [False]
    rows: list[dict[str, Any]] = []
    turns = 0

    def command(text: str) -> bool:
        """Handle a /command; True when it was one (it is then not sent to the agent)."""
        nonlocal turns
        if text == "/help":
            out.print(escape(_HELP_TEXT))
        elif text == "/state":
            out.print(_panel(sessions[-1], last[-1] if last else None))
        elif text == "/restart":
            left = sessions[-1]
            out.print(f"[dim]{escape(_end_line(left, turns, False, restarted=True))}[/dim]")
            rows.append({"kind": "final_state", "status": left.status, "state": left.state})
            rows.append({"kind": "restart"})
            sessions.append(agent.session(event_data=data, debug=debug, clock=clock, seed=seed))
            last.clear()
            turns = 0
        else:
            out.print(f"[yellow]unknown command {escape(text)}[/yellow] — /help lists them")
        return True

    if interactive:
        _enable_line_editing()
        out.print(f"[dim]Chatting with {escape(agent.name)} — /help for commands, /quit to leave.[/dim]")
    source = iter(lines) if lines is not None else _lines(stream, out, interactive, command)
    code = ExitCode.OK
    for text in source:
        session = sessions[-1]
        turn = turns + 1
        if not interactive:
            out.print(f"[bold cyan]you>[/bold cyan] {escape(text)}")
        try:
            result = session.send(text)
        except SlotgraphError as err:
            code = ExitCode.INVALID_CONFIG
            fail(out, f"turn {turn} failed: {err}", code)
            break
        turns = turn
        last.append(result)
        rows.append({"kind": "user", "turn": turn, "text": text})
        rows.extend({**event_to_json(e), "turn": turn} for e in result.events)
        rows.extend({"kind": "debug", "turn": turn, **entry} for entry in result.debug_log)
        if debug:
            _print_debug(out, result)
        _print_turn(out, result, diagnostics=show_state)
        if show_state:
            out.print(_panel(session, result))
        if _finished(session):
            break
    else:
        quit_early[0] = interactive
    session = sessions[-1]
    if transcript is not None:
        rows.append({"kind": "final_state", "status": session.status, "state": session.state})
        with transcript.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, default=str, ensure_ascii=False) + "\n")
    if isinstance(session.model, ScriptedModel) and session.model.remaining:
        out.print(f"[yellow]note:[/yellow] {session.model.remaining} scripted model step(s) were not used")
    if code == ExitCode.OK:
        out.print(f"[dim]{escape(_end_line(session, turns, quit_early[0]))}[/dim]")
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
        bool,
        typer.Option(
            "--show-state",
            help="after every turn: its tool calls (arguments, results, refusals), the slot asked next, the "
            "slots still to collect, inactive slots, hidden tools",
        ),
    ] = False,
    today: Annotated[
        str | None, typer.Option("--today", help="pin the session date the tools see: YYYY-MM-DD")
    ] = None,
    now: Annotated[
        str | None, typer.Option("--now", help="pin the session date and time: YYYY-MM-DDTHH:MM")
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed", help="fix the engine's random choices (e.g. the transition prefix) for a replay"
        ),
    ] = None,
    event_data: Annotated[
        str | None, typer.Option("--event-data", help="JSON object of event data, e.g. a caller's party size")
    ] = None,
    transcript: Annotated[
        Path | None, typer.Option("--transcript", help="write every event and the final state as JSON lines")
    ] = None,
    debug: Annotated[
        bool,
        typer.Option("--debug", help="print the engine's debug log of every turn (also in --transcript)"),
    ] = False,
) -> None:
    """Chat with an agent in the terminal (line editing, history, /help); piped stdin: one turn per line."""
    raise typer.Exit(
        chat(path, model, show_state, event_data, transcript, debug, today=today, now=now, seed=seed)
    )
