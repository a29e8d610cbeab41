"""A loaded, checked workflow: stages by id, their successors, compiled schemas and conditions.

Built only by :func:`slotgraph.workflow.loader.load_workflow`; frozen, shared freely between runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from slotgraph.expr import Expression
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
    WorkflowConfig,
)
from slotgraph.workflow.schemas import CompiledSchema

__all__ = [
    "PREFETCH",
    "AgentStageConfig",
    "BranchStageConfig",
    "GateStageConfig",
    "HttpStageConfig",
    "LlmStageConfig",
    "ParallelStageConfig",
    "PrefetchStageConfig",
    "Workflow",
]


PREFETCH: Final = "prefetch"
"""In ``deterministic_prefetch`` mode: the first step of every run (all prefetch stages at once), and the
slot their answers are written to (``slots.prefetch``, by stage id)."""


@dataclass(frozen=True, slots=True)
class Workflow:
    """A run graph ready to execute."""

    config: WorkflowConfig
    stages: Mapping[str, StageConfig | MemberConfig]
    """Stage configs by id, in file order — the stages of parallel groups too, after their group."""
    successors: Mapping[str, str | None]
    """Where each stage goes when it does not choose (``next``, else the following stage); None ends."""
    start: str = ""
    """Where a run starts: the first stage, or :data:`PREFETCH` in ``deterministic_prefetch`` mode."""
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """The stages of each parallel group, in the order their outputs are merged, by group id."""
    prefetch: tuple[str, ...] = ()
    """``deterministic_prefetch`` mode: the prefetch stages a run starts with, in file order."""
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
        return self.start or next(iter(self.stages))

    def stage(self, stage_id: str) -> StageConfig | MemberConfig:
        return self.stages[stage_id]

    @property
    def prefetch_mode(self) -> bool:
        return self.config.mode == "deterministic_prefetch"

    def base_dir(self) -> Path:
        return self.source.parent if self.source is not None else Path.cwd()
