"""Typed models of a workflow file (a run graph), as written in YAML next to agents.

::

    workflow: purchase_refund
    base_url: http://127.0.0.1:8080          # HTTP stages with a relative url are joined to it
    stages:
      - id: extract_fields
        kind: llm
        role: classify
        instruction: Read the refund request; return merchant, amount and date.
        output_schema: {type: object, properties: {merchant: {type: string}, ...}}
      - id: match_purchase
        kind: http
        url: /purchases/match
        input_schema: {type: object, properties: {...}, required: [account_id, merchant, amount, date]}

Stages run in list order unless ``next`` (a stage id or ``end``) or a branch says otherwise; a ``parallel``
stage runs its stages at the same time. These are the
edge models (pydantic, unknown keys refused with a "did you mean"); :mod:`slotgraph.workflow.loader` checks
references, cycles, schemas and expressions and compiles them into a
:class:`~slotgraph.workflow.graph.Workflow`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from slotgraph.config.extensions import drop_extension_keys

__all__ = [
    "AgentStageConfig",
    "BranchConfig",
    "BranchStageConfig",
    "GateStageConfig",
    "HttpStageConfig",
    "LlmRole",
    "LlmStageConfig",
    "MemberConfig",
    "ParallelStageConfig",
    "PrefetchStageConfig",
    "StageConfig",
    "WorkflowConfig",
]

LlmRole = Literal["classify", "extract", "synthesis", "query_formulation"]
END = "end"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _strip_extensions(cls, data: Any) -> Any:
        return drop_extension_keys(data)


class _Stage(_Model):
    id: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    """Unique stage id; ``slots[id]`` holds the stage's structured output."""
    title: str | None = None
    """A human label for progress displays and the run timeline."""
    next: str | None = None
    """The stage that runs after this one (a stage id or ``end``); default: the next stage in the list."""


class LlmStageConfig(_Stage):
    """A model call. ``classify``/``synthesis`` append their text to notes (and write ``slots[id]`` when it
    is JSON); ``extract`` writes ``slots[id]``; ``query_formulation`` writes ``slots[id] = {"query": text}``.
    """

    kind: Literal["llm"]
    role: LlmRole
    instruction: str = ""
    """The stage's task, sent as the system instruction."""
    input: str | None = None
    """An expression (dot-path dialect) choosing what the model reads as the request, e.g.
    ``goal.message``; default: every goal key, one ``key: value`` line each."""
    output_schema: dict[str, Any] | None = None
    """JSON Schema of the structured output (an object); validated, with bounded retries."""
    max_retries: int = Field(2, ge=0, le=10)
    """Further attempts after an invalid output (each one is told what was wrong)."""
    model: str | None = None
    """A ``provider:model`` spec for this stage only (default: the run's model)."""


class HttpStageConfig(_Stage):
    """A call to an HTTP endpoint; the body is assembled from goal, slots and ``args`` by ``input_schema``."""

    kind: Literal["http"]
    url: str
    """Absolute, or relative to the workflow's ``base_url``."""
    method: Literal["POST", "PUT", "PATCH"] = "POST"
    input_schema: dict[str, Any] | None = None
    """JSON Schema of the body: declared ``properties`` are the only keys sent; ``required`` fail closed."""
    output_schema: dict[str, Any] | None = None
    """JSON Schema of the answer: checked before it is stored in ``slots[id]``; its properties count as
    this stage's declared output (so a later stage requiring them is known to be served)."""
    args: dict[str, Any] = Field(default_factory=dict)
    """Fixed call arguments, merged like slot keys (only where declared when properties exist)."""
    include_notes: bool = False
    """Send the notes channel as ``notes`` (subject to the same declared-keys rule)."""
    headers: dict[str, str] = Field(default_factory=dict)
    timeout: float = Field(30.0, gt=0, le=600)
    retries: int = Field(1, ge=0, le=10)
    """Further attempts after a connection error or a 5xx answer (same idempotency key)."""


class PrefetchStageConfig(HttpStageConfig):
    """An HTTP stage without call arguments whose answer is packed as context for later LLM stages."""

    kind: Literal["prefetch"]  # type: ignore[assignment]


class BranchConfig(_Model):
    when: str
    """A condition in the dot-path dialect over ``goal``, ``slots`` and ``notes``."""
    next: str


class BranchStageConfig(_Stage):
    """Routes to the first branch whose ``when`` holds, else to ``default`` (else the next stage)."""

    kind: Literal["branch"]
    branches: list[BranchConfig] = Field(min_length=1)
    default: str | None = None


class GateStageConfig(_Stage):
    """Lets the run pass only when ``when`` holds; else fails the run (or ends it: ``otherwise: end``)."""

    kind: Literal["gate"]
    when: str
    message: str = ""
    """Why the gate closed, shown in the run's error."""
    otherwise: Literal["fail", "end"] = "fail"


class AgentStageConfig(_Stage):
    """Runs a conversational agent as a child run, with the slots it is given; ``slots[id]`` gets its
    filled slots and final text."""

    kind: Literal["agent"]
    agent: str
    """An agent directory or agent.yaml, relative to the workflow file."""
    slots: dict[str, str] = Field(default_factory=dict)
    """``slot name: expression`` (dot-path dialect over goal, slots, notes) prefilled in the child."""
    utterance: str | None = None
    """An expression giving the child's first user message (default: none; it starts from its slots)."""


MemberConfig = Annotated[
    LlmStageConfig | HttpStageConfig | PrefetchStageConfig | AgentStageConfig,
    Field(discriminator="kind"),
]
"""A stage of a parallel group: one that produces output (a group does not route)."""


class ParallelStageConfig(_Stage):
    """Stages that do not depend on each other, run at the same time: each reads the channels as they were
    when the group started and writes ``slots[its id]``; their outputs are merged in the order written."""

    kind: Literal["parallel"]
    stages: list[MemberConfig] = Field(min_length=2)
    """The stages run together (``llm``, ``http``, ``prefetch``, ``agent``; none may name another's
    output, and none has ``next``: the group goes on as one stage)."""


StageConfig = Annotated[
    LlmStageConfig
    | HttpStageConfig
    | PrefetchStageConfig
    | BranchStageConfig
    | GateStageConfig
    | AgentStageConfig
    | ParallelStageConfig,
    Field(discriminator="kind"),
]


class WorkflowConfig(_Model):
    """A run graph: a start payload (goal) in, stages in order, a result out."""

    workflow: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.-]*$")
    """The workflow's name."""
    description: str = ""
    model: str | None = None
    """The default ``provider:model`` of LLM stages (``offline`` when nothing else is given)."""
    base_url: str | None = None
    goal_schema: dict[str, Any] | None = None
    """Optional JSON Schema the start payload must satisfy."""
    mode: Literal["graph", "deterministic_prefetch"] = "graph"
    """``graph`` (default): stages run as the graph says, ``prefetch`` stages where they are listed.
    ``deterministic_prefetch``: every ``prefetch`` stage runs first, all at once, from the goal alone (no
    stage has run yet: an empty invoke), and their answers are written to ``slots.prefetch`` (by stage id),
    which later LLM stages read as packed context and HTTP stages get as ``prefetch`` where declared."""
    stages: list[StageConfig] = Field(min_length=1)
