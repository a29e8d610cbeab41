"""Workflows: run graphs of stages with goal / slots / notes handoff and schema-bound HTTP bodies.

::

    from slotgraph.workflow import WorkflowRunner, load_workflow

    workflow = load_workflow("workflows/purchase_refund.yaml")     # every problem located, at once
    record = await WorkflowRunner(workflow, model=model).run({"doc_id": "D-1", "account_id": "A-7"})
    record.status, record.slots, record.notes, record.result

Three channels per run: ``goal`` (the start body, never updated, the base of every HTTP body), ``slots``
(``slots[stage_id]``: each stage's structured JSON) and ``notes`` (append-only prose for LLM stages). HTTP
bodies are assembled strictly by ``input_schema`` and fail closed (:mod:`slotgraph.workflow.payload`). Runs
are saved to a run store after every stage and resume from the last completed one. See ``docs/workflows.md``.
"""

from slotgraph.workflow.errors import (
    AgentStageError,
    GateClosedError,
    GoalError,
    HttpStageError,
    MissingRequiredKeyError,
    PayloadSchemaError,
    RunConflictError,
    RunNotFoundError,
    StageError,
    StageOutputError,
    WorkflowError,
)
from slotgraph.workflow.graph import Workflow
from slotgraph.workflow.loader import is_workflow_document, load_workflow, validate_workflow
from slotgraph.workflow.payload import assemble_payload
from slotgraph.workflow.ports import (
    AgentOutcome,
    AgentPort,
    AgentRequest,
    HttpAnswer,
    HttpClient,
    HttpUnavailable,
    HttpxClient,
)
from slotgraph.workflow.record import RunRecord, StageRun
from slotgraph.workflow.runner import RunEvent, WorkflowRunner
from slotgraph.workflow.schemas import CompiledSchema, compile_schema

__all__ = [
    "AgentOutcome",
    "AgentPort",
    "AgentRequest",
    "AgentStageError",
    "CompiledSchema",
    "GateClosedError",
    "GoalError",
    "HttpAnswer",
    "HttpClient",
    "HttpStageError",
    "HttpUnavailable",
    "HttpxClient",
    "MissingRequiredKeyError",
    "PayloadSchemaError",
    "RunConflictError",
    "RunEvent",
    "RunNotFoundError",
    "RunRecord",
    "StageError",
    "StageOutputError",
    "StageRun",
    "Workflow",
    "WorkflowError",
    "WorkflowRunner",
    "assemble_payload",
    "compile_schema",
    "is_workflow_document",
    "load_workflow",
    "validate_workflow",
]
