"""Running a workflow: stage after stage, the run saved after every one, resumable after a crash.

Order of one stage, and why:

1. save ``next_stage`` before the stage starts (it is already saved: every save names the next stage), so a
   process that dies mid-stage leaves a record from which another process resumes that very stage;
2. run the stage — its HTTP call carries ``Idempotency-Key: {run_id}:{stage_id}``, so a repeat after a crash
   is recognisable by the endpoint;
3. apply its outcome to the channels (slots, notes, result), append its :class:`StageRun` to the timeline,
   choose the next stage, and save with compare-and-set: if another executor saved first, this one stops
   (:class:`~slotgraph.workflow.errors.RunConflictError`) instead of overwriting.

A failed stage fails the run (``status: failed``, ``error`` with the stage's ``code``); it is saved like any
other outcome. The loop is capped (``max_stages``), although load-time validation already refuses cycles.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urljoin

from pydantic import ValidationError

from slotgraph.expr import ExpressionError
from slotgraph.models.protocol import Model
from slotgraph.stores.errors import StoreConflictError
from slotgraph.stores.runs import InMemoryRunStore, RunStore
from slotgraph.workflow.config import (
    AgentStageConfig,
    BranchStageConfig,
    GateStageConfig,
    HttpStageConfig,
    LlmStageConfig,
    MemberConfig,
    ParallelStageConfig,
    PrefetchStageConfig,
    StageConfig,
)
from slotgraph.workflow.errors import (
    AgentStageError,
    GateClosedError,
    GoalError,
    HttpStageError,
    RunConflictError,
    RunNotFoundError,
    StageError,
    WorkflowError,
)
from slotgraph.workflow.graph import PREFETCH, Workflow
from slotgraph.workflow.llm import packed_context, run_llm_stage
from slotgraph.workflow.payload import assemble_payload
from slotgraph.workflow.ports import AgentPort, AgentRequest, HttpClient, HttpUnavailable, HttpxClient
from slotgraph.workflow.record import RunRecord, StageRun, StageStatus
from slotgraph.workflow.schemas import error_lines

__all__ = ["RunEvent", "StageResult", "WorkflowRunner"]

DEFAULT_MAX_STAGES = 1000


@dataclass(frozen=True, slots=True)
class RunEvent:
    """Progress of a run, for displays: ``stage`` is set on stage events, ``record`` is a snapshot."""

    kind: Literal["run_started", "stage_started", "stage_finished", "run_finished"]
    run_id: str
    record: RunRecord
    stage: StageRun | None = None
    stage_id: str | None = None


@dataclass(slots=True)
class StageResult:
    """What a stage did, before it is applied to the run."""

    slot: Any = None
    has_slot: bool = False
    note: str | None = None
    result: Any = None
    has_result: bool = False
    next_stage: str | None = None
    chosen: bool = False
    """True when the stage chose the next stage itself (branch, gate ending the run)."""
    status: StageStatus = "succeeded"
    attempts: int = 1
    detail: dict[str, Any] | None = None


class WorkflowRunner:
    """Runs one workflow. Everything it talks to is given: model(s), run store, HTTP client, agent port."""

    def __init__(
        self,
        workflow: Workflow,
        *,
        model: Model | None = None,
        models: Callable[[str], Model] | None = None,
        store: RunStore | None = None,
        http: HttpClient | None = None,
        agents: AgentPort | None = None,
        base_url: str | None = None,
        clock: Callable[[], float] = time.time,
        observer: Callable[[RunEvent], None] | None = None,
        max_stages: int = DEFAULT_MAX_STAGES,
        new_id: Callable[[], str] | None = None,
    ) -> None:
        self.workflow = workflow
        self._model = model
        self._models = models
        self.store: RunStore = store if store is not None else InMemoryRunStore()
        self.http: HttpClient = http if http is not None else HttpxClient()
        self.agents = agents
        self.base_url = base_url or workflow.config.base_url
        self.clock = clock
        self.observer = observer
        self.max_stages = max_stages
        self.new_id = new_id or (lambda: uuid.uuid4().hex)
        self._resolved: dict[str, Model] = {}

    # -- public API ------------------------------------------------------------------------------------

    async def run(self, goal: Any, *, run_id: str | None = None) -> RunRecord:
        """Create a run for ``goal`` and execute it to the end (``succeeded`` or ``failed``)."""
        record = await self.create(goal, run_id=run_id)
        return await self.execute(record.run_id)

    async def create(self, goal: Any, *, run_id: str | None = None) -> RunRecord:
        """Check the goal and store a pending run (nothing executes yet: a queue worker may take it)."""
        if not isinstance(goal, Mapping):
            raise GoalError(
                f"the start payload (goal) must be a JSON object, got {type(goal).__name__}; "
                'e.g. {"doc_id": "D-1", "account_id": "A-7"}'
            )
        goal = dict(goal)
        if self.workflow.goal_schema is not None:
            try:
                self.workflow.goal_schema.validate(goal)
            except ValidationError as err:
                raise GoalError(
                    f"the start payload does not match goal_schema of {self.workflow.name!r}: "
                    + "; ".join(error_lines(err))
                ) from None
        now = self.clock()
        record = RunRecord(
            run_id=run_id or self.new_id(),
            workflow=self.workflow.name,
            fingerprint=self.workflow.fingerprint,
            goal=goal,
            next_stage=self.workflow.first,
            created_at=now,
            updated_at=now,
        )
        try:
            await self.store.save_run(record.run_id, record.as_json(), 0)
        except StoreConflictError:
            raise RunConflictError(f"a run with id {record.run_id!r} already exists") from None
        return record

    async def load(self, run_id: str) -> tuple[RunRecord, int]:
        found = await self.store.load_run(run_id)
        if found is None:
            raise RunNotFoundError(f"no run {run_id!r} in the run store")
        try:
            return RunRecord.from_json(found[0]), found[1]
        except ValueError as err:
            raise WorkflowError(f"run {run_id!r}: {err}") from None

    async def execute(self, run_id: str) -> RunRecord:
        """Run (or resume) ``run_id`` from its ``next_stage`` to the end; a finished run is returned as is."""
        record, version = await self.load(run_id)
        if record.done:
            return record
        if record.fingerprint != self.workflow.fingerprint:
            raise WorkflowError(
                f"run {run_id!r} was started on another version of workflow {record.workflow!r} "
                f"(fingerprint {record.fingerprint}, loaded {self.workflow.fingerprint}); resume it with the "
                "workflow file it started on"
            )
        record.status = "running"
        record.attempts += 1
        version = await self._save(record, version)
        self._emit("run_started", record)
        steps = 0
        while record.next_stage is not None and record.status == "running":
            steps += 1
            if steps > self.max_stages:
                record.status = "failed"
                record.error = {"code": "too_many_stages", "message": f"more than {self.max_stages} stages"}
                break
            version = await self._advance(record, version, record.next_stage)
        if record.status == "running":
            record.status = "succeeded"
        record.updated_at = self.clock()
        await self._save(record, version)
        self._emit("run_finished", record)
        return record

    # -- one stage -------------------------------------------------------------------------------------

    async def _advance(self, record: RunRecord, version: int, stage_id: str) -> int:
        """Run the step ``stage_id`` names: the prefetch step, a parallel group, or one stage."""
        if stage_id == PREFETCH and self.workflow.prefetch:
            return await self._group(record, version, PREFETCH, self.workflow.prefetch, into=PREFETCH)
        stage = self.workflow.stage(stage_id)
        if isinstance(stage, ParallelStageConfig):
            return await self._group(record, version, stage.id, self.workflow.groups[stage.id])
        return await self._step(record, version, stage)

    def _apply(self, record: RunRecord, stage_id: str, outcome: StageResult, into: str | None = None) -> None:
        """Write a stage's outcome to the channels: ``slots[stage_id]`` (or ``slots[into][stage_id]``), a
        note, the result."""
        if outcome.has_slot:
            if into is None:
                record.slots[stage_id] = outcome.slot
            else:
                record.slots.setdefault(into, {})[stage_id] = outcome.slot
        if outcome.note:
            record.notes.append(outcome.note)
        if outcome.has_result:
            record.result = outcome.result

    async def _timed(self, record: RunRecord, stage_id: str) -> tuple[float, float, StageResult | StageError]:
        stage = self.workflow.stage(stage_id)
        assert not isinstance(stage, ParallelStageConfig)
        started = self.clock()
        try:
            outcome: StageResult | StageError = await self._run_stage(record, stage)
        except StageError as err:
            outcome = err
        return started, self.clock(), outcome

    async def _group(
        self,
        record: RunRecord,
        version: int,
        group_id: str,
        members: tuple[str, ...],
        into: str | None = None,
    ) -> int:
        """Run ``members`` at the same time on the channels as they are now, then apply their outcomes in
        the order written (deterministic, whatever order they finished in): each stage's timeline entry, then
        the group's. A stage that failed fails the run — after every stage of the group finished — with its
        own error and ``group`` naming the group; the others' outputs are kept."""
        self._emit("stage_started", record, stage_id=group_id)
        started = self.clock()
        finished = await asyncio.gather(*(self._timed(record, m) for m in members), return_exceptions=True)
        problem = next((f for f in finished if isinstance(f, BaseException)), None)
        if problem is not None:  # not a stage failure: a defect or a cancellation, raised as in a stage
            raise problem
        runs: list[StageRun] = []
        failed: list[tuple[str, StageError]] = []
        for member_id, done in zip(members, finished, strict=True):
            assert not isinstance(done, BaseException)
            begun, ended, outcome = done
            kind = self.workflow.stage(member_id).kind
            if isinstance(outcome, StageError):
                failed.append((member_id, outcome))
                error = {"code": outcome.code, "message": outcome.message}
                runs.append(
                    StageRun(
                        member_id, kind, "failed", begun, ended, outcome.attempts, dict(outcome.detail), error
                    )
                )
            else:
                self._apply(record, member_id, outcome, into)
                runs.append(
                    StageRun(
                        member_id, kind, outcome.status, begun, ended, outcome.attempts, outcome.detail or {}
                    )
                )
        detail: dict[str, Any] = {"stages": list(members)}
        group_error: dict[str, Any] | None = None
        if failed:
            detail["failed"] = [member_id for member_id, _ in failed]
            first_id, first = failed[0]
            where = "the prefetch step" if into == PREFETCH else f"the parallel group {group_id!r}"
            more = f"; {', '.join(detail['failed'][1:])} failed too" if len(failed) > 1 else ""
            message = f"{first.message} (in {where}{more})"
            group_error = {"code": first.code, "message": message}
            record.status = "failed"
            record.error = {"code": first.code, "message": message, "stage_id": first_id, "group": group_id}
            record.next_stage = None
        else:
            record.next_stage = self.workflow.successors[group_id]
        status: StageStatus = "failed" if failed else "succeeded"
        step = "prefetch" if into == PREFETCH else "parallel"
        group = StageRun(group_id, step, status, started, self.clock(), 1, detail, group_error)
        record.stages.extend([*runs, group])
        record.updated_at = self.clock()
        version = await self._save(record, version)
        for ran in (*runs, group):
            self._emit("stage_finished", record, stage=ran)
        return version

    async def _step(self, record: RunRecord, version: int, stage: StageConfig | MemberConfig) -> int:
        self._emit("stage_started", record, stage_id=stage.id)
        started = self.clock()
        try:
            outcome = await self._run_stage(record, stage)
        except StageError as err:
            ran = StageRun(
                stage.id,
                stage.kind,
                "failed",
                started,
                self.clock(),
                err.attempts,
                detail=dict(err.detail),
                error={"code": err.code, "message": err.message},
            )
            record.stages.append(ran)
            record.status = "failed"
            record.error = {"code": err.code, "message": err.message, "stage_id": stage.id}
            record.next_stage = None
            record.updated_at = self.clock()
            version = await self._save(record, version)
            self._emit("stage_finished", record, stage=ran)
            return version
        self._apply(record, stage.id, outcome)
        ran = StageRun(
            stage.id,
            stage.kind,
            outcome.status,
            started,
            self.clock(),
            outcome.attempts,
            outcome.detail or {},
        )
        record.stages.append(ran)
        record.next_stage = outcome.next_stage if outcome.chosen else self.workflow.successors[stage.id]
        record.updated_at = self.clock()
        version = await self._save(record, version)
        self._emit("stage_finished", record, stage=ran)
        return version

    async def _run_stage(self, record: RunRecord, stage: StageConfig | MemberConfig) -> StageResult:
        if isinstance(stage, LlmStageConfig):
            return await self._llm(record, stage)
        if isinstance(stage, HttpStageConfig):  # PrefetchStageConfig included
            return await self._http(record, stage)
        if isinstance(stage, BranchStageConfig):
            for branch in stage.branches:
                if self._holds(branch.when, record, stage.id):
                    return StageResult(
                        next_stage=_target(branch.next), chosen=True, detail={"taken": branch.when}
                    )
            fallback = stage.default if stage.default is not None else self.workflow.successors[stage.id]
            return StageResult(next_stage=_target(fallback), chosen=True, detail={"taken": "default"})
        if isinstance(stage, GateStageConfig):
            if self._holds(stage.when, record, stage.id):
                return StageResult(detail={"passed": True})
            if stage.otherwise == "end":
                return StageResult(next_stage=None, chosen=True, status="ended", detail={"passed": False})
            raise GateClosedError(stage.id, stage.message or f"the gate's condition {stage.when!r} is false")
        assert isinstance(stage, AgentStageConfig)  # a parallel group runs through _group
        return await self._agent(record, stage)

    def _variables(self, record: RunRecord) -> dict[str, Any]:
        return {"goal": record.goal, "slots": record.slots, "notes": record.notes}

    def _value(self, source: str, record: RunRecord, stage_id: str) -> Any:
        try:
            return self.workflow.conditions[source].evaluate(self._variables(record))
        except ExpressionError as err:
            raise StageError(stage_id, f"expression {source!r} failed: {err.message}") from None

    def _holds(self, source: str, record: RunRecord, stage_id: str) -> bool:
        return bool(self._value(source, record, stage_id))

    def _model_for(self, stage: LlmStageConfig) -> Model:
        spec = stage.model
        if spec is None and self._model is not None:
            return self._model
        spec = spec or self.workflow.config.model or "offline"
        if spec not in self._resolved:
            if self._models is not None:
                self._resolved[spec] = self._models(spec)
            else:
                from slotgraph.models import resolve

                self._resolved[spec] = resolve(spec)
        return self._resolved[spec]

    async def _llm(self, record: RunRecord, stage: LlmStageConfig) -> StageResult:
        outcome = await run_llm_stage(
            stage,
            model=self._model_for(stage),
            schema=self.workflow.output_schemas.get(stage.id),
            goal=record.goal,
            notes=record.notes,
            context=self._prefetched(record),
            **({"request": self._value(stage.input, record, stage.id)} if stage.input is not None else {}),
            metadata={"run_id": record.run_id, "stage_id": stage.id},
        )
        return StageResult(
            slot=outcome.slot,
            has_slot=outcome.slot is not None,
            note=outcome.note if stage.role in ("classify", "synthesis") else None,
            result=outcome.result,
            has_result=stage.role == "synthesis",
            attempts=outcome.attempts,
            detail={"role": stage.role, "rejected": list(outcome.problems)}
            if outcome.problems
            else {"role": stage.role},
        )

    async def _http(self, record: RunRecord, stage: HttpStageConfig) -> StageResult:
        payload = assemble_payload(
            stage_id=stage.id,
            goal=record.goal,
            slots=record.slots,
            schema=self.workflow.input_schemas.get(stage.id),
            args={**self._query(record), **self._prefetch_arg(record), **stage.args},
            notes=record.notes if stage.include_notes else None,
            producers={
                key: found for (sid, key), found in self.workflow.producers.items() if sid == stage.id
            },
        )
        url = stage.url
        if "://" not in url:
            if not self.base_url:
                raise HttpStageError(
                    stage.id,
                    f"url {url!r} is relative and no base_url is set (pass --base-url)",
                    retryable=False,
                )
            url = urljoin(self.base_url.rstrip("/") + "/", url.lstrip("/"))
        headers = {**stage.headers, "Idempotency-Key": f"{record.run_id}:{stage.id}"}
        attempts = 0
        while True:
            attempts += 1
            try:
                answer = await self.http.send(stage.method, url, payload, headers, stage.timeout)
            except HttpUnavailable as err:
                failure = HttpStageError(stage.id, f"{stage.method} {url} failed: {err}", retryable=True)
            else:
                if 200 <= answer.status < 300:
                    break
                failure = HttpStageError(
                    stage.id,
                    f"{stage.method} {url} answered {answer.status}: {answer.text[:300]}",
                    retryable=answer.status >= 500 or answer.status == 429,
                )
            if not failure.retryable or attempts > stage.retries:
                failure.detail = {"url": url, "body": payload, "attempts": attempts}
                failure.attempts = attempts
                raise failure
        body = answer.body
        if body is not None and not isinstance(body, dict):
            body = {"value": body}
        schema = self.workflow.output_schemas.get(stage.id)
        if schema is not None:
            try:
                schema.validate(body if body is not None else {})
            except ValidationError as err:
                raise HttpStageError(
                    stage.id,
                    f"{stage.method} {url} answered a body that does not match the stage's output_schema: "
                    + "; ".join(error_lines(err)),
                    retryable=False,
                ) from None
        return StageResult(
            slot=body if body is not None else {},
            has_slot=True,
            attempts=attempts,
            detail={"url": url, "method": stage.method, "body": payload, "status": answer.status},
        )

    def _prefetched(self, record: RunRecord) -> dict[str, Any]:
        """The prefetched answers LLM stages read as context, by stage id: ``slots.prefetch`` in
        ``deterministic_prefetch`` mode, else the slots of the prefetch stages that ran."""
        if self.workflow.prefetch_mode:
            found = record.slots.get(PREFETCH)
            return dict(found) if isinstance(found, Mapping) else {}
        return {
            key: value
            for key, value in record.slots.items()
            if isinstance(self.workflow.stages.get(key), PrefetchStageConfig)
        }

    def _prefetch_arg(self, record: RunRecord) -> dict[str, Any]:
        """``deterministic_prefetch`` mode: ``{"prefetch": packed text}``, a call argument of HTTP stages
        (sent where declared, like ``query``); nothing before the prefetch step ran, or in ``graph`` mode."""
        if not self.workflow.prefetch_mode or PREFETCH not in record.slots:
            return {}
        return {PREFETCH: packed_context(self._prefetched(record))}

    def _query(self, record: RunRecord) -> dict[str, Any]:
        """``{"query": ...}`` from the latest query_formulation stage that ran: a call argument of the
        following HTTP stages (sent where declared, or always when the stage declares no properties)."""
        for stage_id in reversed(list(record.slots)):
            stage = self.workflow.stages.get(stage_id)
            if isinstance(stage, LlmStageConfig) and stage.role == "query_formulation":
                value = record.slots[stage_id]
                if isinstance(value, Mapping) and "query" in value:
                    return {"query": value["query"]}
        return {}

    async def _agent(self, record: RunRecord, stage: AgentStageConfig) -> StageResult:
        if self.agents is None:
            raise AgentStageError(
                stage.id, "this runner has no agent port; run the workflow with slotgraph run or the service"
            )
        slots = {name: self._value(source, record, stage.id) for name, source in stage.slots.items()}
        utterance = self._value(stage.utterance, record, stage.id) if stage.utterance is not None else None
        request = AgentRequest(
            agent=(self.workflow.base_dir() / stage.agent).resolve(),
            slots={k: v for k, v in slots.items() if v is not None},
            utterance=str(utterance) if utterance is not None else None,
            run_id=record.run_id,
            stage_id=stage.id,
        )
        try:
            outcome = await self.agents.run_agent(request)
        except StageError:
            raise
        except Exception as err:
            raise AgentStageError(stage.id, f"the agent failed: {type(err).__name__}: {err}") from err
        slot = {"filled": dict(outcome.filled), "text": outcome.text, "ended": outcome.ended}
        return StageResult(slot=slot, has_slot=True, detail={"agent": stage.agent, "given": request.slots})

    # -- plumbing --------------------------------------------------------------------------------------

    async def _save(self, record: RunRecord, version: int) -> int:
        try:
            return await self.store.save_run(record.run_id, record.as_json(), version)
        except StoreConflictError as err:
            raise RunConflictError(str(err)) from None

    def _emit(
        self, kind: Any, record: RunRecord, *, stage: StageRun | None = None, stage_id: str | None = None
    ) -> None:
        if self.observer is not None:
            self.observer(
                RunEvent(kind, record.run_id, record, stage, stage_id or (stage.stage_id if stage else None))
            )


def _target(value: str | None) -> str | None:
    return None if value in (None, "end") else value
