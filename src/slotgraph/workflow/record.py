"""A run as stored: the three channels, where it is, and what each stage did (the timeline).

:class:`RunRecord` is written to the run store after every stage, as the plain JSON of :meth:`as_json`
(``schema`` 1). A run resumes from ``next_stage``: a stage that was running when its process died runs
again, and its HTTP call carries the same idempotency key (``run_id:stage_id``), so the endpoint can answer
the repeat without acting twice.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["RUN_SCHEMA", "RunRecord", "RunStatus", "StageRun", "StageStatus"]

RUN_SCHEMA = 1
RunStatus = Literal["pending", "running", "succeeded", "failed"]
StageStatus = Literal["succeeded", "failed", "ended"]


@dataclass(slots=True)
class StageRun:
    """One stage as it ran: timings (seconds since the epoch), attempts and what it did (``detail``)."""

    stage_id: str
    kind: str
    status: StageStatus
    started_at: float
    ended_at: float
    attempts: int = 1
    detail: dict[str, Any] = field(default_factory=dict)
    """Kind-specific facts: the HTTP body sent and its status, the branch taken, the validation errors."""
    error: dict[str, Any] | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "stage_id": self.stage_id,
            "kind": self.kind,
            "status": self.status,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "duration_ms": round((self.ended_at - self.started_at) * 1000, 3),
            "attempts": self.attempts,
            "detail": copy.deepcopy(self.detail),
            "error": copy.deepcopy(self.error),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StageRun:
        return cls(
            stage_id=str(data["stage_id"]),
            kind=str(data["kind"]),
            status=data["status"],
            started_at=float(data["started_at"]),
            ended_at=float(data["ended_at"]),
            attempts=int(data.get("attempts", 1)),
            detail=dict(data.get("detail") or {}),
            error=dict(data["error"]) if data.get("error") else None,
        )


@dataclass(slots=True)
class RunRecord:
    """A workflow run: ``goal`` (never updated), ``slots`` (by stage id, in run order), ``notes``."""

    run_id: str
    workflow: str
    fingerprint: str
    goal: dict[str, Any]
    status: RunStatus = "pending"
    slots: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    result: Any = None
    next_stage: str | None = None
    stages: list[StageRun] = field(default_factory=list)
    error: dict[str, Any] | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    attempts: int = 0
    """How many times an executor picked the run up (more than 1 after a resume)."""

    @property
    def done(self) -> bool:
        return self.status in ("succeeded", "failed")

    def as_json(self) -> dict[str, Any]:
        return {
            "schema": RUN_SCHEMA,
            "run_id": self.run_id,
            "workflow": self.workflow,
            "fingerprint": self.fingerprint,
            "status": self.status,
            "goal": copy.deepcopy(self.goal),
            "slots": copy.deepcopy(self.slots),
            "notes": list(self.notes),
            "result": copy.deepcopy(self.result),
            "next_stage": self.next_stage,
            "stages": [stage.as_json() for stage in self.stages],
            "error": copy.deepcopy(self.error),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "attempts": self.attempts,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunRecord:
        """Rebuild a stored run; raises ``ValueError`` naming what is wrong with a damaged record."""
        schema = data.get("schema")
        if schema != RUN_SCHEMA:
            raise ValueError(f"run record schema {schema!r} is not {RUN_SCHEMA} (written by another version)")
        try:
            return cls(
                run_id=str(data["run_id"]),
                workflow=str(data["workflow"]),
                fingerprint=str(data["fingerprint"]),
                goal=dict(data["goal"]),
                status=data["status"],
                slots=dict(data.get("slots") or {}),
                notes=[str(n) for n in data.get("notes") or []],
                result=copy.deepcopy(data.get("result")),
                next_stage=data.get("next_stage"),
                stages=[StageRun.from_json(s) for s in data.get("stages") or []],
                error=dict(data["error"]) if data.get("error") else None,
                created_at=float(data.get("created_at", 0.0)),
                updated_at=float(data.get("updated_at", 0.0)),
                attempts=int(data.get("attempts", 0)),
            )
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"run record is damaged: {type(err).__name__}: {err}") from None
