"""``slotgraph run WORKFLOW --payload JSON``: run a workflow once, showing each stage as it finishes.

The run is saved to ``--store`` after every stage (default: the embedded SQLite file), so
``slotgraph run WORKFLOW --resume RUN_ID`` continues a run whose process died from its last completed
stage. ``--json`` prints the final run record (the three channels and the timeline) as one JSON document.

With ``--queue redis://…`` the run is stored and sent to ``slotgraph worker`` processes (Celery, Redis
broker) instead of running here; the command then follows the run in the store, showing each stage as a
worker finishes it (``--no-wait``: print the run id and return at once). The store must be one the workers
reach: ``redis://…`` or ``postgresql://…`` (or an SQLite file on the same machine).

Exit codes: 0 the run succeeded, 1 invalid workflow or the run failed, 2 usage error (bad path, payload,
store URL or model spec).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from slotgraph.cli.exit_codes import ExitCode
from slotgraph.cli.output import fail, print_issue, stderr_console, stdout_console
from slotgraph.config import ConfigError, ConfigValidationError

__all__ = ["run_command"]


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _payload(text: str) -> Any:
    """The ``--payload`` value: JSON text, or ``@FILE`` holding JSON."""
    if text.startswith("@"):
        text = Path(text[1:]).read_text(encoding="utf-8")
    return json.loads(text, parse_constant=_no_constant)


def _stage_line(console: Console, event: Any) -> None:
    stage = event.stage
    if event.kind == "stage_started":
        if console.is_terminal:
            console.print(f"  … {escape(event.stage_id)}", end="\r")
        return
    if event.kind != "stage_finished" or stage is None:
        return
    mark = {"succeeded": "[green]✓[/green]", "failed": "[red]✗[/red]", "ended": "[yellow]■[/yellow]"}
    ms = (stage.ended_at - stage.started_at) * 1000
    extra = f" ({stage.attempts} attempts)" if stage.attempts > 1 else ""
    console.print(f"  {mark[stage.status]} {escape(stage.stage_id):<24} {stage.kind:<8} {ms:8.1f} ms{extra}")
    if stage.error:
        console.print(f"      [red]{escape(stage.error['code'])}[/red]: {escape(stage.error['message'])}")


def run(
    path: Path,
    payload: str | None,
    *,
    model: str | None,
    base_url: str | None,
    store_url: str,
    run_id: str | None,
    resume: str | None,
    json_output: bool,
    queue: str | None = None,
    wait: bool = True,
) -> int:
    from slotgraph.adapters.runtime_agents import RuntimeAgentPort
    from slotgraph.stores.errors import StoreError
    from slotgraph.stores.runs import open_run_store
    from slotgraph.workflow import WorkflowError, WorkflowRunner, load_workflow

    out, err = stdout_console(), stderr_console()
    if not path.is_file():
        return fail(err, f"{path}: no such workflow file", ExitCode.USAGE, "pass a workflow YAML file")
    if (payload is None) == (resume is None):
        return fail(
            err, "give either --payload (a new run) or --resume RUN_ID", ExitCode.USAGE, "e.g. --payload '{}'"
        )
    goal: Any = None
    if payload is not None:
        try:
            goal = _payload(payload)
        except (OSError, ValueError) as problem:
            return fail(
                err,
                f"--payload is not usable JSON: {problem}",
                ExitCode.USAGE,
                "pass a JSON object, or @FILE",
            )
    try:
        workflow = load_workflow(path)
    except ConfigValidationError as problem:
        err.print(f"[red]✗[/red] {escape(str(path))}: invalid workflow")
        for issue in problem.issues:
            print_issue(err, issue, indent="    ")
        return int(ExitCode.INVALID_CONFIG)
    except ConfigError as problem:
        err.print(f"[red]✗[/red] {escape(problem.message)}")
        return int(ExitCode.INVALID_CONFIG)
    try:
        store = open_run_store(store_url)
        model_obj = None
        if model is not None:
            from slotgraph.models import resolve

            model_obj = resolve(model)
    except Exception as problem:  # StoreConfigError, ModelError: the option is wrong
        return fail(err, str(problem), ExitCode.USAGE, "check --store / --model")
    if queue is not None and store_url.startswith("memory"):
        return fail(
            err,
            "--queue needs a run store the workers can reach",
            ExitCode.USAGE,
            "pass --store redis://… or postgresql://…",
        )
    progress = err if not json_output else Console(stderr=True, quiet=True)
    runner = WorkflowRunner(
        workflow,
        model=model_obj,
        store=store,
        agents=RuntimeAgentPort(model=model),
        base_url=base_url,
        observer=lambda event: _stage_line(progress, event),
    )

    async def go() -> Any:
        try:
            if queue is None:
                if resume is not None:
                    return await runner.execute(resume)
                return await runner.run(goal, run_id=run_id)
            from slotgraph.workflow.queue import enqueue_run

            if resume is not None:
                record, _ = await runner.load(resume)
            else:
                record = await runner.create(goal, run_id=run_id)
            await asyncio.to_thread(
                enqueue_run,
                queue,
                workflow_path=str(path.resolve()),
                run_id=record.run_id,
                store_url=store_url,
                model=model,
                base_url=base_url,
            )
            progress.print(f"  sent run {escape(record.run_id)} to the queue")
            if not wait:
                return record
            return await _follow(runner, record.run_id, lambda event: _stage_line(progress, event))
        finally:
            await store.close()

    progress.print(f"[bold]{escape(workflow.name)}[/bold] ({len(workflow.stages)} stages)")
    try:
        record = asyncio.run(go())
    except WorkflowError as problem:
        if problem.code in ("invalid_goal", "run_not_found", "run_conflict", "queue_unavailable"):
            return fail(err, problem.message, ExitCode.USAGE, "check --payload / --resume / --queue")
        return fail(err, problem.message, ExitCode.INVALID_CONFIG)
    except StoreError as problem:
        return fail(err, str(problem), ExitCode.INVALID_CONFIG)
    if json_output:
        typer.echo(json.dumps(record.as_json(), indent=2, ensure_ascii=False))
    else:
        colour = "green" if record.status == "succeeded" else "red"
        out.print(f"run {escape(record.run_id)}: [{colour}]{record.status}[/{colour}]")
        if record.error:
            out.print(f"  error: {escape(record.error['message'])}")
        if record.result is not None:
            out.print(f"  result: {escape(json.dumps(record.result, ensure_ascii=False))}")
        out.print(f"  slots: {escape(json.dumps(record.slots, ensure_ascii=False))}")
    if queue is not None and not wait:
        return int(ExitCode.OK)
    return int(ExitCode.OK) if record.status == "succeeded" else int(ExitCode.INVALID_CONFIG)


async def _follow(runner: Any, run_id: str, show: Any, poll: float = 0.2) -> Any:
    """Read the run from the store until it is finished, showing each stage once as it appears."""
    from slotgraph.workflow import RunEvent

    seen = 0
    while True:
        record, _ = await runner.load(run_id)
        for stage in record.stages[seen:]:
            show(RunEvent("stage_finished", run_id, record, stage, stage.stage_id))
        seen = len(record.stages)
        if record.done:
            return record
        await asyncio.sleep(poll)


def run_command(
    path: Annotated[
        Path, typer.Argument(help="A workflow YAML file.", show_default=False, metavar="WORKFLOW")
    ],
    payload: Annotated[
        str | None,
        typer.Option("--payload", help="The start payload (goal): a JSON object, or @FILE.json."),
    ] = None,
    model: Annotated[
        str | None, typer.Option("--model", help="Model spec for LLM stages (default: the workflow's).")
    ] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="Base URL of HTTP stages with a relative url.")
    ] = None,
    store: Annotated[
        str,
        typer.Option("--store", help="Run store URL: sqlite://PATH, redis://…, postgresql://…, memory://"),
    ] = "sqlite://",
    run_id: Annotated[
        str | None, typer.Option("--run-id", help="Id of the new run (default: random).")
    ] = None,
    resume: Annotated[
        str | None, typer.Option("--resume", help="Continue this run from its last completed stage.")
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the final run record as JSON.")] = False,
    queue: Annotated[
        str | None,
        typer.Option("--queue", help="Send the run to `slotgraph worker` processes on this Redis URL."),
    ] = None,
    wait: Annotated[
        bool, typer.Option("--wait/--no-wait", help="With --queue: follow the run until it finishes.")
    ] = True,
) -> None:
    """Run a workflow: a payload in, each stage shown as it finishes, the run's channels out.

    Exit code 0 when the run succeeded, 1 when the workflow is invalid or the run failed, 2 on a usage
    error.
    """
    raise typer.Exit(
        run(
            path,
            payload,
            model=model,
            base_url=base_url,
            store_url=store,
            run_id=run_id,
            resume=resume,
            json_output=json_output,
            queue=queue,
            wait=wait,
        )
    )
