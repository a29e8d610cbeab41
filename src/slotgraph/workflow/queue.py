"""Scale-out: runs executed by Celery workers, with Redis as the broker (``pip install 'slotgraph[queue]'``).

Why Celery: it is the well-kept, widely deployed job engine of the Python world, and with
``acks_late`` + ``reject_on_worker_lost`` it gives the one property a run needs from a queue — a job whose
worker died is handed to another worker. Slotgraph adds only what Celery cannot know: the run's progress,
which lives in the run store (saved after every stage), so the next worker *resumes* the run from its last
completed stage instead of starting it over.

- :func:`enqueue_run` (the caller: ``slotgraph run --queue``, the service) sends one message per run: the
  workflow file, the run id, the run store URL, the model spec and the base URL. The run itself must already
  be in a store every worker can reach (Redis or PostgreSQL — not ``memory://``).
- :func:`worker_app` builds the Celery app a worker runs (``slotgraph worker --queue URL``); its task loads
  the workflow and calls :meth:`WorkflowRunner.execute`. No result backend: results are in the run store.

Redelivery: with the Redis broker an unacknowledged message becomes visible again ``visibility_timeout``
seconds after it was taken (query parameter of the queue URL, default 300). A worker killed mid-run never
acknowledges, so another worker gets the run after that time and resumes it. A run still *running* when its
timeout passes is delivered twice; the run store's compare-and-set stops the slower executor at its next
save, and HTTP stages carry the same idempotency key, so nothing is written twice. Choose a timeout longer
than your longest stage.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from slotgraph.workflow.errors import RunConflictError, WorkflowError
from slotgraph.workflow.ports import AgentPort

__all__ = ["TASK_NAME", "QueueSettings", "QueueUnavailable", "enqueue_run", "parse_queue_url", "worker_app"]

TASK_NAME = "slotgraph.workflow.execute_run"
QUEUE_NAME = "slotgraph-runs"
DEFAULT_VISIBILITY_TIMEOUT = 300.0
_HINT = "workflow queues need Celery with Redis: pip install 'slotgraph[queue]'"


class QueueUnavailable(WorkflowError):
    """Celery is not installed, or the queue URL is not usable."""

    code = "queue_unavailable"


@dataclass(frozen=True, slots=True)
class QueueSettings:
    """A queue URL, split: the broker URL Celery gets, and Slotgraph's own parameters."""

    broker_url: str
    visibility_timeout: float = DEFAULT_VISIBILITY_TIMEOUT
    restore_interval: float = 10.0
    """Seconds between a worker's sweeps for messages whose worker died (kombu's unacked restore)."""


def parse_queue_url(url: str) -> QueueSettings:
    """``redis://host:port/db?visibility_timeout=30&restore_interval=1`` → :class:`QueueSettings`."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("redis", "rediss"):
        raise QueueUnavailable(
            f"queue URL {url!r} is not a Redis URL; use redis://host:6379/0 (the broker of the run queue)"
        )
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    numbers: dict[str, float] = {}
    for key, default in (("visibility_timeout", DEFAULT_VISIBILITY_TIMEOUT), ("restore_interval", 10.0)):
        raw = query.pop(key, None)
        try:
            numbers[key] = float(raw) if raw is not None else default
        except ValueError:
            numbers[key] = -1.0
        if not numbers[key] > 0:
            raise QueueUnavailable(f"{key}={raw!r} in the queue URL must be a number of seconds above 0")
    broker = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment))
    return QueueSettings(broker, numbers["visibility_timeout"], numbers["restore_interval"])


def _celery_app(settings: QueueSettings) -> Any:
    try:
        from celery import Celery
    except ImportError:
        raise QueueUnavailable(_HINT) from None
    app = Celery("slotgraph", broker=settings.broker_url, set_as_current=False)
    app.conf.update(
        task_serializer="json",
        accept_content=["json"],
        task_default_queue=QUEUE_NAME,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_ignore_result=True,
        worker_prefetch_multiplier=1,
        worker_hijack_root_logger=False,
        broker_connection_retry_on_startup=True,
        broker_transport_options={
            "visibility_timeout": settings.visibility_timeout,
            "unacked_restore_interval": settings.restore_interval,
            "unacked_restore_throttle": 1,
        },
    )
    return app


def enqueue_run(
    queue_url: str,
    *,
    workflow_path: str,
    run_id: str,
    store_url: str,
    model: str | None = None,
    base_url: str | None = None,
) -> None:
    """Send run ``run_id`` (already stored in ``store_url``) to the workers of ``queue_url``."""
    app = _celery_app(parse_queue_url(queue_url))
    try:
        app.send_task(
            TASK_NAME,
            kwargs={
                "workflow_path": workflow_path,
                "run_id": run_id,
                "store_url": store_url,
                "model": model,
                "base_url": base_url,
            },
        )
    except Exception as err:  # kombu's OperationalError and friends: the broker is unreachable
        raise QueueUnavailable(f"cannot reach the queue broker ({type(err).__name__}: {err})") from None
    finally:
        app.close()


def worker_app(
    queue_url: str, *, model: str | None = None, agents: Callable[[str | None], AgentPort] | None = None
) -> Any:
    """The Celery app of a worker: one task that executes (or resumes) a stored run.

    ``model``: the spec for runs sent without one. ``agents(model_spec)`` builds the port agent stages run
    through (the edges pass the runtime's).
    """
    default_model = model
    from slotgraph.stores.runs import open_run_store
    from slotgraph.workflow.loader import load_workflow
    from slotgraph.workflow.runner import WorkflowRunner

    app = _celery_app(parse_queue_url(queue_url))

    @app.task(name=TASK_NAME)  # type: ignore[untyped-decorator]
    def execute_run(
        workflow_path: str, run_id: str, store_url: str, model: str | None = None, base_url: str | None = None
    ) -> str:
        workflow = load_workflow(workflow_path)
        model = model or default_model

        async def go() -> str:
            store = open_run_store(store_url)
            try:
                model_obj = None
                if model is not None:
                    from slotgraph.models import resolve

                    model_obj = resolve(model)
                runner = WorkflowRunner(
                    workflow,
                    model=model_obj,
                    store=store,
                    agents=agents(model) if agents is not None else None,
                    base_url=base_url,
                )
                record = await runner.execute(run_id)
                return record.status
            finally:
                await store.close()

        try:
            return asyncio.run(go())
        except RunConflictError:
            return "taken_over"  # another worker saved the run first; it carries on

    return app
