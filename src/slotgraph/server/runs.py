"""Workflow runs behind the API: start a run (in this process or on the queue), read it — HTTP-free.

Each hosted workflow gets a :class:`~slotgraph.workflow.WorkflowRunner` per run, on the shared run store.
Without a queue a run executes in this process as a background task (``POST /v1/runs`` answers 202 at once;
``"wait": true`` answers with the finished run); with a queue URL it is stored and sent to the Celery workers
(:mod:`slotgraph.workflow.queue`), and any server process reads its progress from the run store.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from slotgraph.server.errors import ServerConfigError
from slotgraph.stores.runs import RunStore, open_run_store
from slotgraph.workflow import RunRecord, Workflow, WorkflowRunner, load_workflow
from slotgraph.workflow.ports import AgentPort

__all__ = ["HostedWorkflow", "RunService", "load_hosted_workflows", "run_service"]


@dataclass(frozen=True, slots=True)
class HostedWorkflow:
    workflow: Workflow

    @property
    def name(self) -> str:
        return self.workflow.name

    def summary(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.workflow.config.description,
            "stages": [
                {"id": s.id, "kind": s.kind, "title": s.title or s.id} for s in self.workflow.stages.values()
            ],
        }


def load_hosted_workflows(paths: Sequence[str | os.PathLike[str]]) -> list[HostedWorkflow]:
    """Load workflow files; raise :class:`ServerConfigError` listing every problem of a bad one."""
    from slotgraph.config import ConfigError, ConfigValidationError

    hosted: list[HostedWorkflow] = []
    for path in paths:
        try:
            hosted.append(HostedWorkflow(load_workflow(path)))
        except ConfigValidationError as err:
            raise ServerConfigError(str(err), fix=f"run `slotgraph validate {path}`") from None
        except ConfigError as err:
            raise ServerConfigError(err.message, fix="pass a workflow YAML file") from None
    names = [h.name for h in hosted]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ServerConfigError(f"workflow names must be unique, got {duplicates} twice", fix="rename one")
    return hosted


class RunService:
    """Runs of the hosted workflows. ``agents`` runs agent stages; ``queue_url`` sends runs to workers."""

    def __init__(
        self,
        workflows: Sequence[HostedWorkflow],
        store: RunStore | None = None,
        *,
        store_url: str = "memory://",
        model: str | None = None,
        base_url: str | None = None,
        agents: AgentPort | None = None,
        queue_url: str | None = None,
    ) -> None:
        self.workflows: Mapping[str, HostedWorkflow] = {h.name: h for h in workflows}
        self.store_url = store_url
        self.store = store if store is not None else open_run_store(store_url)
        self.model = model
        self.base_url = base_url
        self.agents = agents
        self.queue_url = queue_url
        self._tasks: set[asyncio.Task[Any]] = set()
        self._model_obj: Any = None

    def hosted(self, name: str) -> HostedWorkflow | None:
        return self.workflows.get(name)

    def runner(self, hosted: HostedWorkflow) -> WorkflowRunner:
        if self.model is not None and self._model_obj is None:
            from slotgraph.models import resolve

            self._model_obj = resolve(self.model)
        return WorkflowRunner(
            hosted.workflow,
            model=self._model_obj,
            store=self.store,
            agents=self.agents,
            base_url=self.base_url,
        )

    async def start(self, hosted: HostedWorkflow, goal: Any, *, run_id: str | None, wait: bool) -> RunRecord:
        """Store the run (raises GoalError / RunConflictError), then execute it here or on the queue."""
        runner = self.runner(hosted)
        record = await runner.create(goal, run_id=run_id)
        if self.queue_url is not None:
            from slotgraph.workflow.queue import enqueue_run

            source = hosted.workflow.source
            await asyncio.to_thread(
                enqueue_run,
                self.queue_url,
                workflow_path=str(source if source is not None else Path(hosted.name)),
                run_id=record.run_id,
                store_url=self.store_url,
                model=self.model,
                base_url=self.base_url,
            )
            return record
        if wait:
            return await runner.execute(record.run_id)
        task = asyncio.create_task(runner.execute(record.run_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return record

    async def load(self, run_id: str) -> RunRecord | None:
        found = await self.store.load_run(run_id)
        if found is None:
            return None
        return RunRecord.from_json(found[0])

    async def recent(self, limit: int) -> list[dict[str, Any]]:
        summaries = []
        for run_id in await self.store.list_runs(limit):
            found = await self.store.load_run(run_id)
            if found is None:
                continue
            data = found[0]
            summaries.append(
                {
                    key: data.get(key)
                    for key in ("run_id", "workflow", "status", "created_at", "updated_at", "next_stage")
                }
            )
        return summaries

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.store.close()


def run_service(
    workflow_paths: Sequence[str | os.PathLike[str]],
    *,
    store_url: str,
    model: str | None = None,
    base_url: str | None = None,
    queue_url: str | None = None,
) -> RunService:
    """The run service of a server: the workflows loaded, runs in ``store_url``, agent stages run by the
    runtime. Raises :class:`ServerConfigError` for a bad workflow, store URL or queue URL."""
    from slotgraph.adapters.runtime_agents import RuntimeAgentPort
    from slotgraph.stores.errors import StoreConfigError

    hosted = load_hosted_workflows(workflow_paths)
    if queue_url is not None:
        from slotgraph.workflow.queue import QueueUnavailable, parse_queue_url

        try:
            parse_queue_url(queue_url)
        except QueueUnavailable as err:
            raise ServerConfigError(err.message, fix="pass --queue redis://host:6379/1") from None
        if store_url.startswith("memory"):
            raise ServerConfigError(
                "queue workers cannot reach the in-memory store",
                fix="pass --store redis://… or postgresql://…",
            )
    try:
        store = open_run_store(store_url)
    except StoreConfigError as err:
        raise ServerConfigError(str(err), fix="check --store") from None
    return RunService(
        hosted,
        store,
        store_url=store_url,
        model=model,
        base_url=base_url,
        agents=RuntimeAgentPort(model=model),
        queue_url=queue_url,
    )
