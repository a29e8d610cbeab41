"""A loaded, checked workflow: stages by id, their successors, compiled schemas and conditions.

Built only by :func:`slotgraph.workflow.loader.load_workflow`; frozen, shared freely between runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from slotgraph.expr import Expression
from slotgraph.workflow.config import (
    AgentStageConfig,
    BranchStageConfig,
    GateStageConfig,
    HttpStageConfig,
    LlmStageConfig,
    PrefetchStageConfig,
    StageConfig,
    WorkflowConfig,
)
from slotgraph.workflow.schemas import CompiledSchema

__all__ = [
    "AgentStageConfig",
    "BranchStageConfig",
    "GateStageConfig",
    "HttpStageConfig",
    "LlmStageConfig",
    "PrefetchStageConfig",
    "Workflow",
]


@dataclass(frozen=True, slots=True)
class Workflow:
    """A run graph ready to execute."""

    config: WorkflowConfig
    stages: Mapping[str, StageConfig]
    """Stage configs by id, in file order."""
    successors: Mapping[str, str | None]
    """Where each stage goes when it does not choose (``next``, else the following stage); None ends."""
    input_schemas: Mapping[str, CompiledSchema] = field(default_factory=dict)
    output_schemas: Mapping[str, CompiledSchema] = field(default_factory=dict)
    goal_schema: CompiledSchema | None = None
    conditions: Mapping[str, Expression] = field(default_factory=dict)
    """Compiled expressions by their source text (dot-path dialect)."""
    producers: Mapping[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    """``(http stage id, key) -> earlier stages whose declared output carries key``."""
    source: Path | None = None
    """The workflow file (relative agent paths are resolved from its directory)."""
    fingerprint: str = ""
    """A hash of the workflow's content: a run resumes only on the workflow it started on."""

    @property
    def name(self) -> str:
        return self.config.workflow

    @property
    def first(self) -> str:
        return next(iter(self.stages))

    def stage(self, stage_id: str) -> StageConfig:
        return self.stages[stage_id]

    def base_dir(self) -> Path:
        return self.source.parent if self.source is not None else Path.cwd()
