"""``/v1/workflows`` and ``/v1/runs``: start a workflow run, read it (channels and timeline), list recent
runs; ``/runs``: the run timeline page.

``POST /v1/runs`` with ``{"workflow": NAME, "payload": {...}}`` stores the run and answers **202** with it
(``status: pending``) and a ``Location``; the run executes in the background — in this process, or on the
queue workers when the server has one. ``"wait": true`` (in-process only) answers **200** with the finished
run. Problems: ``unknown_workflow`` (404), ``invalid_goal`` (422), ``run_conflict`` (409, the id exists),
``run_not_found`` (404).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from slotgraph.runtime.json_values import json_problem
from slotgraph.server.playground import playground_assets
from slotgraph.server.problems import problem
from slotgraph.server.runs import RunService
from slotgraph.workflow import GoalError, RunConflictError

__all__ = ["StartRun", "get_runs", "runs_router"]


class StartRun(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workflow: str = Field(min_length=1, max_length=200, description="Name of a hosted workflow.")
    payload: dict[str, Any] = Field(description="The start payload (the run's goal).")
    run_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        pattern=r"^[A-Za-z0-9_.:-]+$",
        description="Default: random.",
    )
    wait: bool = Field(default=False, description="Answer with the finished run (in-process execution only).")

    @field_validator("payload")
    @classmethod
    def _json_values_only(cls, value: dict[str, Any]) -> dict[str, Any]:
        found = json_problem(value, "payload")
        if found is not None:
            raise ValueError(f"{found}; use finite numbers, strings, booleans, null, lists and objects")
        return value


async def get_runs(request: Request) -> RunService:
    service = getattr(request.app.state, "runs", None)
    assert isinstance(service, RunService)
    return service


Runs = Annotated[RunService, Depends(get_runs)]


def _not_found(run_id: str) -> JSONResponse:
    return problem(
        404, "run_not_found", "Run not found", f"there is no run {run_id!r}", fix="check the run id"
    )


def runs_router() -> APIRouter:
    router = APIRouter()
    page = playground_assets()["runs.html"][0].decode("utf-8")

    @router.get("/runs", response_class=HTMLResponse, include_in_schema=False)
    async def timeline_page() -> HTMLResponse:
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    @router.get("/v1/workflows", tags=["runs"], summary="The hosted workflows and their stages")
    async def list_workflows(runs: Runs) -> dict[str, Any]:
        return {"workflows": [h.summary() for h in runs.workflows.values()]}

    @router.post("/v1/runs", tags=["runs"], status_code=202, summary="Start a workflow run")
    async def start_run(body: StartRun, runs: Runs) -> Any:
        hosted = runs.hosted(body.workflow)
        if hosted is None:
            return problem(
                404,
                "unknown_workflow",
                "Unknown workflow",
                f"this server hosts no workflow {body.workflow!r}",
                fix=f"use one of: {', '.join(sorted(runs.workflows)) or '(none)'} (GET /v1/workflows)",
            )
        if body.wait and runs.queue_url is not None:
            return problem(
                422,
                "invalid_request",
                "Invalid request",
                "wait is not available when runs execute on queue workers",
                fix="poll GET /v1/runs/{run_id} instead",
            )
        try:
            record = await runs.start(hosted, body.payload, run_id=body.run_id, wait=body.wait)
        except GoalError as err:
            return problem(
                422, err.code, "Invalid payload", err.message, fix="send the payload the workflow expects"
            )
        except RunConflictError as err:
            return problem(409, err.code, "Run exists", err.message, fix="choose another run_id, or omit it")
        status = 200 if body.wait else 202
        return JSONResponse(
            record.as_json(), status_code=status, headers={"Location": f"/v1/runs/{record.run_id}"}
        )

    @router.get("/v1/runs", tags=["runs"], summary="Recent runs, newest first")
    async def list_runs(runs: Runs, limit: Annotated[int, Query(ge=1, le=500)] = 50) -> dict[str, Any]:
        return {"runs": await runs.recent(limit)}

    @router.get("/v1/runs/{run_id}", tags=["runs"], summary="A run: status, goal, slots, notes, timeline")
    async def get_run(run_id: str, runs: Runs) -> Any:
        record = await runs.load(run_id)
        if record is None:
            return _not_found(run_id)
        return record.as_json()

    return router
