"""Errors of :mod:`slotgraph.workflow`.

Hierarchy (every class carries a stable ``code``)::

    WorkflowError                    base of everything raised while running a workflow
    ├── RunNotFoundError             no run with that id in the run store
    ├── RunConflictError             another executor saved the run first (compare-and-set lost)
    ├── GoalError                    the start payload is not a JSON object / breaks the goal_schema
    └── StageError                   a stage failed; ``stage_id`` names it
        ├── MissingRequiredKeyError  fail closed: an HTTP body lacks a key its input_schema requires
        ├── PayloadSchemaError       an assembled HTTP body has a value of the wrong type
        ├── StageOutputError         an LLM stage's output stayed invalid after its retries
        ├── HttpStageError           an HTTP stage's endpoint failed (status, connection, not JSON)
        ├── GateClosedError          a gate stage's condition was false (``otherwise: fail``)
        └── AgentStageError          a conversational-agent stage could not run

Loading a workflow file raises :class:`slotgraph.config.ConfigLoadError` or
:class:`slotgraph.config.ConfigValidationError` (every issue with its location), like agent configs.
"""

from __future__ import annotations

from typing import Any

from slotgraph.errors import SlotgraphError

__all__ = [
    "AgentStageError",
    "GateClosedError",
    "GoalError",
    "HttpStageError",
    "MissingRequiredKeyError",
    "PayloadSchemaError",
    "RunConflictError",
    "RunNotFoundError",
    "StageError",
    "StageOutputError",
    "WorkflowError",
]


class WorkflowError(SlotgraphError):
    """Base of the workflow package's run-time errors."""

    code = "workflow_error"

    def __init__(self, message: str, *, fix: str | None = None) -> None:
        super().__init__(message, fix=fix)
        self.message = message

    def __str__(self) -> str:
        return self.message


class RunNotFoundError(WorkflowError):
    code = "run_not_found"


class RunConflictError(WorkflowError):
    code = "run_conflict"


class GoalError(WorkflowError):
    code = "invalid_goal"


class StageError(WorkflowError):
    """A stage failed. ``retryable`` is True when running the stage again may succeed (an outage);
    ``detail`` holds what the stage did before failing and ``attempts`` how often it tried (both kept in
    the run's timeline)."""

    code = "stage_failed"
    retryable = False

    def __init__(self, stage_id: str, message: str) -> None:
        super().__init__(f"stage {stage_id!r}: {message}")
        self.stage_id = stage_id
        self.detail: dict[str, Any] = {}
        self.attempts = 1
        """How many times the stage tried (an LLM stage's retries, an HTTP stage's repeated calls)."""


class MissingRequiredKeyError(StageError):
    """Fail closed: the HTTP body lacks ``key``, required by the stage's ``input_schema``."""

    code = "missing_required_key"

    def __init__(self, stage_id: str, key: str, producers: tuple[str, ...]) -> None:
        if producers:
            names = " or ".join(repr(p) for p in producers)
            source = f"stage {names} should have produced it (its output has no {key!r})"
        else:
            source = f"no earlier stage declares it, so the start payload (goal) must carry {key!r}"
        super().__init__(
            stage_id,
            f"required key {key!r} of its input_schema is missing: {source}; the call was not made",
        )
        self.key = key
        self.producers = producers


class PayloadSchemaError(StageError):
    code = "payload_schema_error"


class StageOutputError(StageError):
    code = "invalid_stage_output"


class HttpStageError(StageError):
    code = "http_stage_failed"

    def __init__(self, stage_id: str, message: str, *, retryable: bool) -> None:
        super().__init__(stage_id, message)
        self.retryable = retryable


class GateClosedError(StageError):
    code = "gate_closed"


class AgentStageError(StageError):
    code = "agent_stage_failed"
