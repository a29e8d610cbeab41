"""``slotgraph worker --queue redis://…``: a Celery worker that executes workflow runs sent to the queue.

Runs are sent by ``slotgraph run WORKFLOW --queue URL --store URL`` or by a service started with
``--queue``. The worker reads each run from the run store named in its message, executes (or resumes) it,
and saves it after every stage; start as many workers, on as many machines, as you like — they share the
broker and the run store. A worker that dies mid-run leaves its message unacknowledged: after the queue's
``visibility_timeout`` another worker takes the run over from its last completed stage. One run at a time per
worker process (Celery's ``solo`` pool: a killed process takes exactly one run with it).

Exit codes: 0 after a clean shutdown, 2 usage error (a bad queue URL, Celery not installed).
"""

from __future__ import annotations

import os
import socket
from typing import Annotated

import typer
from rich.markup import escape

from slotgraph.cli.exit_codes import ExitCode
from slotgraph.cli.output import fail, stderr_console
from slotgraph.redaction import redact_url

__all__ = ["worker_command"]


def worker(queue: str, *, model: str | None, loglevel: str) -> int:
    from slotgraph.adapters.runtime_agents import RuntimeAgentPort
    from slotgraph.workflow.queue import QUEUE_NAME, QueueUnavailable, parse_queue_url, worker_app

    err = stderr_console()
    try:
        settings = parse_queue_url(queue)
        app = worker_app(queue, model=model, agents=lambda spec: RuntimeAgentPort(model=spec))
    except QueueUnavailable as problem:
        return fail(err, problem.message, ExitCode.USAGE)
    broker = redact_url(settings.broker_url)
    err.print(
        f"slotgraph worker on {escape(broker)} (queue {QUEUE_NAME}, visibility timeout "
        f"{settings.visibility_timeout:g}s)"
    )
    app.worker_main(
        argv=[
            "worker",
            "--pool=solo",
            f"--loglevel={loglevel}",
            f"--queues={QUEUE_NAME}",
            f"--hostname=slotgraph-{os.getpid()}@{socket.gethostname()}",
            "--without-gossip",
            "--without-mingle",
        ]
    )
    return int(ExitCode.OK)


def worker_command(
    queue: Annotated[
        str,
        typer.Option(
            "--queue",
            help="Redis URL of the run queue, e.g. redis://localhost:6379/1?visibility_timeout=300",
            show_default=False,
        ),
    ],
    model: Annotated[
        str | None,
        typer.Option("--model", help="Model spec for runs sent without one (default: each workflow's)."),
    ] = None,
    loglevel: Annotated[str, typer.Option("--loglevel", help="Celery log level.")] = "INFO",
) -> None:
    """Execute workflow runs from a queue (Celery with the Redis broker; needs slotgraph[queue]).

    Exit code 0 after a clean shutdown, 2 on a usage error.
    """
    raise typer.Exit(worker(queue, model=model, loglevel=loglevel))
