"""Loading a workflow file: structure, references, cycles, schemas and expressions checked in one pass.

Every problem is a :class:`~slotgraph.config.ConfigIssue` with its location (``stages[1].input_schema``) and,
for a file, its line and column — the same reporting as agent and DAG configs.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from slotgraph.config import ConfigIssue, ValidationReport
from slotgraph.config.loader import read_located_mapping
from slotgraph.config.positions import SourceMap
from slotgraph.config.suggest import did_you_mean
from slotgraph.config.validation.structure import structure_issues
from slotgraph.expr import Expression, ExpressionError, compile_expression
from slotgraph.expr.typecheck import type_problems
from slotgraph.workflow.config import (
    END,
    AgentStageConfig,
    BranchStageConfig,
    GateStageConfig,
    HttpStageConfig,
    LlmStageConfig,
    StageConfig,
    WorkflowConfig,
)
from slotgraph.workflow.graph import Workflow
from slotgraph.workflow.schemas import CompiledSchema, compile_schema

__all__ = ["is_workflow_document", "load_workflow", "validate_workflow"]

WorkflowSource = str | os.PathLike[str] | Mapping[str, Any]
_NAMES = frozenset({"goal", "slots", "notes", "True", "False", "None"})
_CHANNEL_TYPES = {"goal": "dict", "slots": "dict", "notes": "list"}
"""The channels' types, for the expression type check (the values inside them are unknown)."""


def is_workflow_document(data: Any) -> bool:
    """True for a mapping that declares a workflow (a top-level ``workflow:`` name and ``stages:``)."""
    return isinstance(data, Mapping) and "workflow" in data and "stages" in data


def _issue(code: str, location: str, message: str, fix: str, severity: str = "error") -> ConfigIssue:
    return ConfigIssue(code, location, message, fix, severity)  # type: ignore[arg-type]


class _Checker:
    def __init__(self, config: WorkflowConfig, source: Path | None) -> None:
        self.config = config
        self.source = source
        self.issues: list[ConfigIssue] = []
        self.ids = [stage.id for stage in config.stages]
        self.index = {stage_id: n for n, stage_id in enumerate(self.ids)}
        self.conditions: dict[str, Expression] = {}
        self.inputs: dict[str, CompiledSchema] = {}
        self.outputs: dict[str, CompiledSchema] = {}
        self.goal: CompiledSchema | None = None

    def add(self, code: str, location: str, message: str, fix: str, severity: str = "error") -> None:
        self.issues.append(_issue(code, location, message, fix, severity))

    def where(self, stage_id: str) -> str:
        return f"stages[{self.index[stage_id]}]"

    # -- references and order ----------------------------------------------------------------------------

    def check_ids(self) -> None:
        seen: set[str] = set()
        for n, stage_id in enumerate(self.ids):
            if stage_id == END:
                self.add("reserved_id", f"stages[{n}].id", "'end' is reserved (it ends the run)", "rename it")
            if stage_id in seen:
                self.add(
                    "duplicate_stage",
                    f"stages[{n}].id",
                    f"stage id {stage_id!r} is used twice",
                    "give every stage a unique id",
                )
            seen.add(stage_id)

    def target(self, value: str | None, location: str) -> None:
        if value is None or value == END or value in self.index:
            return
        self.add(
            "unknown_stage",
            location,
            f"there is no stage {value!r}{did_you_mean(value, self.ids)}",
            f"use one of: {', '.join([*self.ids, END])}",
        )

    def successors(self) -> dict[str, str | None]:
        result: dict[str, str | None] = {}
        for n, stage in enumerate(self.config.stages):
            following = self.ids[n + 1] if n + 1 < len(self.ids) else None
            chosen = stage.next if stage.next is not None else following
            result[stage.id] = None if chosen == END else chosen
        return result

    def edges(self, stage: StageConfig, successors: Mapping[str, str | None]) -> Iterator[str]:
        targets: list[str | None] = [successors.get(stage.id)]
        if isinstance(stage, BranchStageConfig):
            targets += [b.next for b in stage.branches]
            if stage.default is not None:
                targets.append(stage.default)
        for target in targets:
            if target is not None and target != END and target in self.index:
                yield target

    def check_cycles(self, successors: Mapping[str, str | None]) -> dict[str, set[str]]:
        """Report cycles; return each stage's ancestors (the stages that may run before it)."""
        graph = {s.id: list(dict.fromkeys(self.edges(s, successors))) for s in self.config.stages}
        state: dict[str, int] = {}
        reported: set[frozenset[str]] = set()
        for root in self.ids:
            if state.get(root):
                continue
            stack: list[tuple[str, Iterator[str]]] = [(root, iter(graph[root]))]
            path = [root]
            state[root] = 1
            while stack:
                node, children = stack[-1]
                child = next(children, None)
                if child is None:
                    stack.pop()
                    path.pop()
                    state[node] = 2
                elif state.get(child) == 1:
                    loop = [*path[path.index(child) :], child]
                    if frozenset(loop) not in reported:
                        reported.add(frozenset(loop))
                        self.add(
                            "cycle",
                            self.where(node),
                            f"the stages form a cycle: {' -> '.join(loop)}",
                            "a run graph is acyclic: point a next/branch at a later stage or 'end'",
                        )
                elif not state.get(child):
                    state[child] = 1
                    path.append(child)
                    stack.append((child, iter(graph[child])))
        ancestors: dict[str, set[str]] = {stage_id: set() for stage_id in self.ids}
        for origin in self.ids:
            seen: set[str] = set()
            todo = list(graph[origin])
            while todo:
                node = todo.pop()
                if node in seen:
                    continue
                seen.add(node)
                ancestors[node].add(origin)
                todo.extend(graph[node])
        reachable = {self.ids[0]} | {n for n in self.ids if self.ids[0] in ancestors[n]}
        for stage_id in self.ids:
            if stage_id not in reachable:
                self.add(
                    "unreachable_stage",
                    self.where(stage_id),
                    f"stage {stage_id!r} is never reached from the first stage",
                    "point a next or branch at it, or remove it",
                    "warning",
                )
        return ancestors

    # -- schemas and expressions ---------------------------------------------------------------------------

    def schema(self, raw: Any, location: str, name: str) -> CompiledSchema | None:
        compiled, problems = compile_schema(raw, name=name)
        for problem in problems:
            at = f"{location}.{problem.location}" if problem.location else location
            self.add("invalid_schema", at, problem.message, problem.fix)
        return compiled

    def expression(self, source: str, location: str) -> None:
        try:
            self.conditions[source] = compile_expression(source, dialect="dot_paths")
        except ExpressionError as err:
            self.add(
                "invalid_expression",
                location,
                f"{err.message} in {source!r}",
                "write a condition over goal, slots and notes, e.g. slots.match_purchase.matched == True",
            )
            return
        # The language reads an unknown name as None; here only the three channels exist, so any other
        # name (``true``, a misspelt ``slot``) is a mistake that would silently make the condition false.
        # ast.parse only reads the text (the expression compiled above, so it parses); nothing is evaluated.
        tree = ast.parse(source.strip(), mode="eval")
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id not in _NAMES:
                hint = {"true": "True", "false": "False", "null": "None", "none": "None"}.get(node.id)
                self.add(
                    "unknown_name",
                    location,
                    f"{node.id!r} in {source!r} is not goal, slots or notes"
                    + (
                        f" — did you mean {hint}?"
                        if hint
                        else did_you_mean(node.id, ["goal", "slots", "notes"])
                    ),
                    f"write {hint}" if hint else "read values as goal.KEY, slots.STAGE_ID.KEY or notes",
                )
        for problem in type_problems(source, _CHANNEL_TYPES):
            self.add(
                "expression_type_error",
                location,
                f"{source!r}: {problem}, so it fails every time it is evaluated",
                "read a value inside a channel (goal.KEY, slots.STAGE_ID.KEY), not the channel itself",
            )

    def check_stage(self, n: int, stage: StageConfig) -> None:
        at = f"stages[{n}]"
        if isinstance(stage, LlmStageConfig):
            if stage.input is not None:
                self.expression(stage.input, f"{at}.input")
            if stage.output_schema is not None:
                compiled = self.schema(stage.output_schema, f"{at}.output_schema", f"{stage.id}_output")
                if compiled is not None:
                    self.outputs[stage.id] = compiled
            elif stage.role == "extract":
                self.add(
                    "missing_output_schema",
                    at,
                    f"stage {stage.id!r} has role 'extract' but no output_schema",
                    "add output_schema: {type: object, properties: {...}} describing what to extract",
                )
        elif isinstance(stage, HttpStageConfig):
            if stage.output_schema is not None:
                compiled = self.schema(stage.output_schema, f"{at}.output_schema", f"{stage.id}_output")
                if compiled is not None:
                    self.outputs[stage.id] = compiled
            if stage.input_schema is not None:
                compiled = self.schema(stage.input_schema, f"{at}.input_schema", f"{stage.id}_input")
                if compiled is not None:
                    self.inputs[stage.id] = compiled
                    for key in stage.args:
                        if compiled.properties and key not in compiled.properties:
                            self.add(
                                "undeclared_arg",
                                f"{at}.args.{key}",
                                f"argument {key!r} is not declared in input_schema.properties, so it is "
                                "never sent",
                                f"declare {key!r} under input_schema.properties or remove it",
                                "warning",
                            )
            if "://" not in stage.url and not self.config.base_url:
                self.add(
                    "relative_url",
                    f"{at}.url",
                    f"url {stage.url!r} is relative and the workflow has no base_url",
                    "set base_url at the top of the workflow, or pass --base-url to slotgraph run",
                    "warning",
                )
        elif isinstance(stage, BranchStageConfig):
            for b, branch in enumerate(stage.branches):
                self.expression(branch.when, f"{at}.branches[{b}].when")
                self.target(branch.next, f"{at}.branches[{b}].next")
            self.target(stage.default, f"{at}.default")
        elif isinstance(stage, GateStageConfig):
            self.expression(stage.when, f"{at}.when")
        elif isinstance(stage, AgentStageConfig):
            for slot, source in stage.slots.items():
                self.expression(source, f"{at}.slots.{slot}")
            if stage.utterance is not None:
                self.expression(stage.utterance, f"{at}.utterance")
            if self.source is not None:
                path = (self.source.parent / stage.agent).resolve()
                if not path.exists():
                    self.add(
                        "agent_not_found",
                        f"{at}.agent",
                        f"no agent at {stage.agent!r} (resolved to {path})",
                        "give an agent directory or agent.yaml, relative to the workflow file",
                    )
        self.target(stage.next, f"{at}.next")

    def producers(self, ancestors: Mapping[str, set[str]]) -> dict[tuple[str, str], tuple[str, ...]]:
        result: dict[tuple[str, str], tuple[str, ...]] = {}
        goal_keys = set(self.goal.properties) if self.goal is not None else None
        for stage_id, schema in self.inputs.items():
            stage = self.config.stages[self.index[stage_id]]
            for key in schema.required:
                found = tuple(
                    other
                    for other in self.ids
                    if other in ancestors[stage_id] and key in self.declared_outputs(other)
                )
                result[(stage_id, key)] = found
                given = isinstance(stage, HttpStageConfig) and key in stage.args
                if not found and not given and goal_keys is not None and key not in goal_keys:
                    self.add(
                        "unproduced_key",
                        f"{self.where(stage_id)}.input_schema.required",
                        f"required key {key!r} is produced by no earlier stage and not declared in "
                        "goal_schema, so every run would fail closed here",
                        f"declare {key!r} in goal_schema.properties or in an earlier stage's output_schema",
                    )
        return result

    def declared_outputs(self, stage_id: str) -> set[str]:
        stage = self.config.stages[self.index[stage_id]]
        if isinstance(stage, LlmStageConfig) and stage.role == "query_formulation":
            return {"query"}
        schema = self.outputs.get(stage_id)
        return set(schema.properties) if schema is not None else set()


def _fingerprint(raw: Mapping[str, Any]) -> str:
    text = json.dumps(raw, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def validate_workflow(source: WorkflowSource) -> tuple[Workflow | None, ValidationReport]:
    """Check a workflow (file or mapping); the workflow is None when there is any error. Never raises
    for config problems, only :class:`~slotgraph.config.ConfigLoadError` for an unreadable file."""
    path: Path | None = None
    source_map: SourceMap | None = None
    if isinstance(source, Mapping):
        raw = dict(source)
    else:
        path = Path(source)
        raw, source_map = read_located_mapping(path, what="workflow")
    issues = structure_issues(raw, WorkflowConfig)
    workflow: Workflow | None = None
    if not issues:
        config = WorkflowConfig.model_validate(raw)
        checker = _Checker(config, path)
        checker.check_ids()
        if config.goal_schema is not None:
            checker.goal = checker.schema(config.goal_schema, "goal_schema", "goal")
        for n, stage in enumerate(config.stages):
            checker.check_stage(n, stage)
        successors = checker.successors()
        ancestors = (
            checker.check_cycles(successors)
            if not any(i.code == "duplicate_stage" for i in checker.issues)
            else {s: set() for s in checker.ids}
        )
        producers = checker.producers(ancestors)
        issues = checker.issues
        if not any(i.severity == "error" for i in issues):
            workflow = Workflow(
                config=config,
                stages={stage.id: stage for stage in config.stages},
                successors=successors,
                input_schemas=checker.inputs,
                output_schemas=checker.outputs,
                goal_schema=checker.goal,
                conditions=checker.conditions,
                producers=producers,
                source=path.resolve() if path is not None else None,
                fingerprint=_fingerprint(raw),
            )
    if source_map is not None:
        issues = [source_map.locate(issue) for issue in issues]
    return workflow, ValidationReport.from_issues(issues)


def load_workflow(source: WorkflowSource) -> Workflow:
    """Load and check a workflow; raises :class:`~slotgraph.config.ConfigValidationError` listing every
    problem, or :class:`~slotgraph.config.ConfigLoadError` for an unreadable file."""
    workflow, report = validate_workflow(source)
    report.raise_for_errors(source=str(source) if not isinstance(source, Mapping) else "the workflow")
    assert workflow is not None
    return workflow
