"""``slotgraph test PATH...``: run scenario files and platform goldens against agents, for people and CI.

It only wires :mod:`slotgraph.evals`: discover and load the files, run each case with a progress display,
print every failure (the turn, the expectation, expected and actual side by side) and, for goldens, what
the replay model filled in (routing calls, completed arguments with the user's words), the run's totals (pass
rate, model calls, preempted turns, refusals, tokens, latency), optionally write JUnit XML, an HTML report and
JSON, and end with exactly ``N passed, M failed`` (plus ``, K skipped``). Exit codes: 0 all passed,
1 a failure (or a malformed file), 2 usage error (a path that does not exist, nothing to run, a bad option).
"""

from __future__ import annotations

import datetime
import json
import logging
import re
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from slotgraph.cli.exit_codes import ExitCode
from slotgraph.cli.output import stderr_console, stdout_console, usage_error
from slotgraph.evals import (
    Case,
    CaseRunner,
    LoadFailure,
    RunOptions,
    RunSummary,
    ScenarioResult,
    discover,
    load_cases,
    scenario_json_schema,
)
from slotgraph.evals.html_report import html_report
from slotgraph.evals.junit import junit_xml
from slotgraph.evals.tool_tests import ToolTestCase

__all__ = ["test_command"]


def _selected(case: Case | LoadFailure | ToolTestCase, pattern: str | None) -> bool:
    if not pattern:
        return True
    tags = case.scenario.tags if isinstance(case, Case) else []
    haystack = " ".join([case.name, str(case.source), *tags]).casefold()
    return pattern.casefold() in haystack


def _print_result(console: Console, result: ScenarioResult) -> None:
    mark = {"passed": "[green]✓[/green]", "failed": "[red]✗[/red]", "skipped": "[yellow]-[/yellow]"}
    detail = f" [dim]({escape(result.skip_reason)})[/dim]" if result.skip_reason else ""
    console.print(
        f"{mark[result.outcome]} {escape(result.name)} [dim]{escape(str(result.source))}[/dim]{detail}"
    )
    if result.error:
        console.print(f"    [red]{escape(result.error)}[/red]")
        return
    for index, note in result.replay_notes:  # where the replay filled in for a golden: routes, arguments
        console.print(f"    [dim]turn {index}: {escape(note)}[/dim]")
    for failure in result.all_failures:
        console.print(f"    [bold]{escape(failure.headline())}[/bold]")
        turn = next((t for t in result.turns if t.index == failure.turn), None)
        if turn is not None:
            console.print(f"      input:    {escape(turn.user_text)}")
        console.print(f"      expected: {escape(failure.expected)}")
        console.print(f"      actual:   {escape(failure.actual)}")


def _print_totals(console: Console, summary: RunSummary) -> None:
    console.print(
        f"pass rate {summary.pass_rate:.0%} · {summary.turns} turns · {summary.model_calls} model calls · "
        f"{summary.preempted_turns} preempted turns · {summary.refusals} refusals · "
        f"{summary.tokens} tokens · {summary.latency_s:.2f} s"
    )


def _write(path: Path, text: str, what: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        usage_error(f"cannot write {path}: {err.strerror or err}", fix=f"choose a writable {what} path")


def _quiet_runtime_warnings() -> None:
    """Refusals are expected in scenarios and reported as results; keep the runtime's log off the terminal."""
    library = logging.getLogger("slotgraph")
    if not library.handlers:
        library.addHandler(logging.NullHandler())


def _parse_today(value: str | None) -> datetime.date | None:
    if value is None:
        return None
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        usage_error(f"--today {value!r} is not a date", fix="write it as YYYY-MM-DD, e.g. --today 2026-07-10")


def test_command(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Scenario files (.yaml), golden files (.json), tool-test files (tool_tests/*.yaml) or "
            "directories to search.",
            show_default=False,
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model", help="Play the LLM with this model in every case (scripted steps are ignored)."
        ),
    ] = None,
    pattern: Annotated[
        str | None, typer.Option("-k", help="Run only cases whose name, file or tags contain PATTERN.")
    ] = None,
    junit: Annotated[Path | None, typer.Option("--junit", help="Write JUnit XML to FILE.")] = None,
    report: Annotated[
        Path | None, typer.Option("--report", help="Write a self-contained HTML report.")
    ] = None,
    json_file: Annotated[
        Path | None,
        typer.Option("--json", help="Write every result (turns, failures, replay notes) to FILE."),
    ] = None,
    agent: Annotated[
        Path | None, typer.Option("--agent", help="Run golden files against this agent.")
    ] = None,
    today: Annotated[
        str | None,
        typer.Option("--today", help="Session date YYYY-MM-DD for goldens and clock-less scenarios."),
    ] = None,
    user_model: Annotated[
        str | None, typer.Option("--user-model", help="The model playing simulated users (user_sim).")
    ] = None,
    schema: Annotated[
        bool, typer.Option("--schema", help="Print the scenario JSON Schema and exit.")
    ] = False,
) -> None:
    """Run conversation scenarios and platform goldens; exit 0 when all pass, 1 on a failure, 2 on misuse."""
    out = stdout_console()
    if schema:
        typer.echo(json.dumps(scenario_json_schema(), indent=2))
        return
    if not paths:
        usage_error("no PATH given", fix="pass scenario files, golden files or directories, e.g. examples/")
    if agent is not None and not agent.exists():
        usage_error(
            f"--agent {agent}: no such file or directory", fix="pass an agent directory or agent.yaml"
        )
    day = _parse_today(today)
    try:
        files = discover(paths)
    except FileNotFoundError as err:
        usage_error(
            f"{err}: no such file or directory", fix="pass scenario files, golden files or directories"
        )
    cases = [c for c in load_cases(files, agent=agent, today=day) if _selected(c, pattern)]
    if not cases:
        usage_error(
            "no scenarios to run" + (f" matching -k {pattern!r}" if pattern else ""),
            fix="scenario YAML files live under a 'scenarios' directory, "
            "goldens at evaluations/<Name>/*.json, tool tests under a 'tool_tests' directory",
        )
    _quiet_runtime_warnings()
    runner = CaseRunner(RunOptions(model=model, today=day, user_model=user_model))
    results: list[ScenarioResult] = []
    progress = Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=stderr_console(),
        transient=True,
    )
    with progress:
        task = progress.add_task("running", total=len(cases))
        for case in cases:
            progress.update(task, description=re.sub(r"\s+", " ", case.name)[:40])
            result = runner.run(case)
            results.append(result)
            progress.advance(task)
    summary = RunSummary(tuple(results))
    for result in results:
        _print_result(out, result)
    if junit is not None:
        _write(junit, junit_xml(summary), "--junit")
    if report is not None:
        _write(report, html_report(summary), "--report")
    if json_file is not None:
        _write(json_file, json.dumps(summary.to_json(), indent=2, ensure_ascii=False) + "\n", "--json")
    _print_totals(out, summary)
    out.print(summary.tally(), markup=False)
    if summary.failed:
        raise typer.Exit(ExitCode.INVALID_CONFIG)
