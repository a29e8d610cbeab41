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
    MemberConfig,
    ParallelStageConfig,
    PrefetchStageConfig,
    StageConfig,
    WorkflowConfig,
)
from slotgraph.workflow.graph import PREFETCH, Workflow
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
        self.prefetch_mode = config.mode == "deterministic_prefetch"
        self.located: dict[str, tuple[StageConfig | MemberConfig, str]] = {}
        """Every stage (parallel groups' stages too) by id: its config and its location."""
        self.group_of: dict[str, str] = {}
        """The group of each stage of a parallel group."""
        self.all_ids: list[str] = []
        for n, stage in enumerate(config.stages):
            self.all_ids.append(stage.id)
            self.located.setdefault(stage.id, (stage, f"stages[{n}]"))
            if isinstance(stage, ParallelStageConfig):
                for m, member in enumerate(stage.stages):
                    self.all_ids.append(member.id)
                    self.located.setdefault(member.id, (member, f"stages[{n}].stages[{m}]"))
                    self.group_of.setdefault(member.id, stage.id)
        self.prefetch: list[str] = (
            [s.id for s in config.stages if isinstance(s, PrefetchStageConfig)] if self.prefetch_mode else []
        )
        """``deterministic_prefetch``: the prefetch stages every run starts with (outside the graph)."""
        self.ids = [s.id for s in config.stages if s.id not in self.prefetch]
        """The graph's stages: the top-level ones (but the prefetch stages of the mode), in file order."""
        self.index = {stage_id: n for n, stage_id in enumerate(s.id for s in config.stages)}
        self.conditions: dict[str, Expression] = {}
        self.inputs: dict[str, CompiledSchema] = {}
        self.outputs: dict[str, CompiledSchema] = {}
        self.goal: CompiledSchema | None = None

    def add(self, code: str, location: str, message: str, fix: str, severity: str = "error") -> None:
        self.issues.append(_issue(code, location, message, fix, severity))

    def where(self, stage_id: str) -> str:
        return self.located[stage_id][1]

    def stage(self, stage_id: str) -> StageConfig | MemberConfig:
        return self.located[stage_id][0]

    # -- references and order ----------------------------------------------------------------------------

    def check_ids(self) -> None:
        seen: set[str] = set()
        for stage_id in self.all_ids:
            where = self.where(stage_id) if stage_id not in seen else None
            if where is None:  # a repeated id: point at its later occurrence
                where = self._occurrences(stage_id)[-1]
            if stage_id == END:
                self.add("reserved_id", f"{where}.id", "'end' is reserved (it ends the run)", "rename it")
            if stage_id == PREFETCH and self.prefetch_mode:
                self.add(
                    "reserved_id",
                    f"{where}.id",
                    "'prefetch' is reserved in deterministic_prefetch mode (slots.prefetch holds the "
                    "prefetched answers)",
                    "rename it",
                )
            if stage_id in seen:
                self.add(
                    "duplicate_stage",
                    f"{where}.id",
                    f"stage id {stage_id!r} is used twice",
                    "give every stage a unique id (the stages of parallel groups too)",
                )
            seen.add(stage_id)

    def _occurrences(self, stage_id: str) -> list[str]:
        out: list[str] = []
        for n, stage in enumerate(self.config.stages):
            if stage.id == stage_id:
                out.append(f"stages[{n}]")
            if isinstance(stage, ParallelStageConfig):
                out += [f"stages[{n}].stages[{m}]" for m, s in enumerate(stage.stages) if s.id == stage_id]
        return out

    def target(self, value: str | None, location: str) -> None:
        if value is None or value == END or value in self.ids:
            return
        if value in self.prefetch:
            self.add(
                "prefetch_target",
                location,
                f"{value!r} is a prefetch stage: in deterministic_prefetch mode it runs before every other "
                "stage, never where a next or a branch points",
                f"point at another stage; use one of: {', '.join([*self.ids, END])}",
            )
            return
        if value in self.group_of:
            self.add(
                "group_member_target",
                location,
                f"{value!r} runs inside the parallel group {self.group_of[value]!r}; a next or a branch "
                "points at the group",
                f"point at {self.group_of[value]!r}",
            )
            return
        self.add(
            "unknown_stage",
            location,
            f"there is no stage {value!r}{did_you_mean(value, self.ids)}",
            f"use one of: {', '.join([*self.ids, END])}",
        )

    def successors(self) -> dict[str, str | None]:
        result: dict[str, str | None] = {}
        if self.prefetch:  # deterministic_prefetch: the prefetch step first, then the graph
            result[PREFETCH] = self.ids[0] if self.ids else None
        for n, stage_id in enumerate(self.ids):
            stage = self.stage(stage_id)
            following = self.ids[n + 1] if n + 1 < len(self.ids) else None
            chosen = stage.next if stage.next is not None else following
            result[stage_id] = None if chosen == END else chosen
        return result

    def edges(self, stage: StageConfig | MemberConfig, successors: Mapping[str, str | None]) -> Iterator[str]:
        targets: list[str | None] = [successors.get(stage.id)]
        if isinstance(stage, BranchStageConfig):
            targets += [b.next for b in stage.branches]
            if stage.default is not None:
                targets.append(stage.default)
        for target in targets:
            if target is not None and target != END and target in self.ids:
                yield target

    def check_cycles(self, successors: Mapping[str, str | None]) -> dict[str, set[str]]:
        """Report cycles; return each stage's ancestors (the stages that may run before it): a parallel
        group's stages have the group's; in deterministic_prefetch mode the prefetch stages have none and
        come before every other stage."""
        graph = {
            stage_id: list(dict.fromkeys(self.edges(self.stage(stage_id), successors)))
            for stage_id in self.ids
        }
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
        ancestors: dict[str, set[str]] = {stage_id: set(self.prefetch) for stage_id in self.ids}
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
        if self.ids:
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
        for stage_id in self.prefetch:
            ancestors[stage_id] = set()
        for member, group in self.group_of.items():
            ancestors.setdefault(member, set(ancestors.get(group, set())))
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

    def check_stage(self, stage: StageConfig | MemberConfig, at: str) -> None:
        if isinstance(stage, ParallelStageConfig):
            self.check_group(stage, at)
        elif stage.id in self.group_of and stage.next is not None:
            self.add(
                "next_in_group",
                f"{at}.next",
                f"stage {stage.id!r} runs inside the parallel group {self.group_of[stage.id]!r}, which goes "
                "on as one stage",
                f"remove next here, or give it to the group {self.group_of[stage.id]!r}",
            )
        elif stage.id in self.prefetch and stage.next is not None:
            self.add(
                "next_in_prefetch",
                f"{at}.next",
                f"prefetch stage {stage.id!r} runs before every other stage in deterministic_prefetch mode; "
                "it does not choose what follows",
                "remove next (the run goes on at the first stage that is not a prefetch stage)",
            )
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
        if stage.id not in self.group_of and stage.id not in self.prefetch:
            self.target(stage.next, f"{at}.next")

    def check_group(self, group: ParallelStageConfig, at: str) -> None:
        """A parallel group: its stages, and that none of them reads another's output (they run at once)."""
        for m, member in enumerate(group.stages):
            where = f"{at}.stages[{m}]"
            self.check_stage(member, where)
            if self.prefetch_mode and isinstance(member, PrefetchStageConfig):
                self.add(
                    "prefetch_in_group",
                    where,
                    f"prefetch stage {member.id!r} is inside a parallel group; in deterministic_prefetch "
                    "mode every prefetch stage runs first, at once, by itself",
                    "list it at the top level of stages",
                )

    def check_mode(self) -> None:
        """``deterministic_prefetch`` needs prefetch stages, and stages to run after them."""
        if not self.prefetch_mode:
            return
        if not self.prefetch:
            self.add(
                "nothing_to_prefetch",
                "mode",
                "the workflow is in deterministic_prefetch mode but has no prefetch stage",
                "add a stage of kind prefetch, or remove mode",
                "warning",
            )
        if not self.ids:
            self.add(
                "only_prefetch",
                "stages",
                "every stage is a prefetch stage: nothing reads what they fetch",
                "add the stages that use the prefetched context (an llm stage, an http stage)",
            )

    def check_independence(self) -> None:
        """Report a stage of a parallel group that reads a sibling's output: a required body key only a
        sibling declares, or an expression reading ``slots.<sibling>``."""
        for group in (s for s in self.config.stages if isinstance(s, ParallelStageConfig)):
            siblings = {member.id for member in group.stages}
            for member in group.stages:
                where = self.where(member.id)
                schema = self.inputs.get(member.id)
                for key in schema.required if schema is not None else ():
                    makers = [o for o in siblings - {member.id} if key in self.declared_outputs(o)]
                    if makers:
                        self.add(
                            "parallel_dependency",
                            f"{where}.input_schema.required",
                            f"stage {member.id!r} requires {key!r}, which its sibling {sorted(makers)[0]!r} "
                            f"produces; the stages of {group.id!r} run at the same time, so it would not be "
                            "there yet",
                            "move one of them out of the group, after the other",
                        )
                for source, location in _expressions_of(member, where):
                    for read in sorted(_slot_reads(source) & (siblings - {member.id})):
                        self.add(
                            "parallel_dependency",
                            location,
                            f"stage {member.id!r} reads slots.{read}, the output of its sibling {read!r}; "
                            f"the stages of {group.id!r} run at the same time, so it would not be there yet",
                            "move one of them out of the group, after the other",
                        )

    def producers(self, ancestors: Mapping[str, set[str]]) -> dict[tuple[str, str], tuple[str, ...]]:
        result: dict[tuple[str, str], tuple[str, ...]] = {}
        goal_keys = set(self.goal.properties) if self.goal is not None else None
        for stage_id, schema in self.inputs.items():
            stage = self.stage(stage_id)
            before = ancestors.get(stage_id, set())
            for key in schema.required:
                found = tuple(
                    other
                    for other in self.all_ids
                    if (other in before or self.group_of.get(other) in before)
                    and key in self.declared_outputs(other)
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
        stage = self.stage(stage_id)
        if isinstance(stage, ParallelStageConfig):
            return set()  # its stages declare theirs
        if stage_id in self.prefetch:
            return {PREFETCH}  # the answers reach HTTP bodies only as the packed `prefetch` text
        if isinstance(stage, LlmStageConfig) and stage.role == "query_formulation":
            return {"query"}
        schema = self.outputs.get(stage_id)
        return set(schema.properties) if schema is not None else set()


def _expressions_of(stage: StageConfig | MemberConfig, at: str) -> list[tuple[str, str]]:
    """The expressions a stage evaluates, with their locations."""
    if isinstance(stage, LlmStageConfig) and stage.input is not None:
        return [(stage.input, f"{at}.input")]
    if isinstance(stage, AgentStageConfig):
        found = [(source, f"{at}.slots.{slot}") for slot, source in stage.slots.items()]
        return found + ([(stage.utterance, f"{at}.utterance")] if stage.utterance is not None else [])
    return []


def _slot_reads(source: str) -> set[str]:
    """The stage ids an expression reads as ``slots.<id>`` (it parses: it was compiled first)."""
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError:
        return set()
    return {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "slots"
    }


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
            checker.check_stage(stage, f"stages[{n}]")
        checker.check_mode()
        successors = checker.successors()
        ancestors = (
            checker.check_cycles(successors)
            if not any(i.code == "duplicate_stage" for i in checker.issues)
            else {s: set() for s in checker.all_ids}
        )
        checker.check_independence()
        producers = checker.producers(ancestors)
        issues = checker.issues
        if not any(i.severity == "error" for i in issues):
            workflow = Workflow(
                config=config,
                stages={stage_id: checker.stage(stage_id) for stage_id in checker.all_ids},
                successors=successors,
                start=PREFETCH if checker.prefetch else checker.ids[0],
                groups={
                    g.id: tuple(m.id for m in g.stages)
                    for g in config.stages
                    if isinstance(g, ParallelStageConfig)
                },
                prefetch=tuple(checker.prefetch),
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
