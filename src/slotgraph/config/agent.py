"""Agent definitions: ``agent.yaml`` (:class:`AgentConfig`), the DAG it points to, and its tools module.

:func:`load_definition` accepts an agent directory (containing ``agent.yaml``), an ``agent.yaml`` file,
or a bare DAG file (YAML/JSON with ``slots``/``tasks``) and returns a :class:`Definition`, raising
:class:`ConfigValidationError` with every problem of the agent file, the DAG and the tools check at once.
Every issue carries the file and the line/column of its location: ``agent.yaml`` for agent keys and an
inline ``dag:``, the DAG file for a DAG read from its own file.

Tools are discovered with :mod:`ast` (:func:`discover_tool_names`): the tools module is never imported or
executed at load time.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

from slotgraph.config.compile import note_validated
from slotgraph.config.errors import ConfigIssue, ConfigLoadError, ConfigValidationError, ValidationReport
from slotgraph.config.extensions import drop_extension_keys
from slotgraph.config.limits import LimitsConfig
from slotgraph.config.loader import read_located_mapping
from slotgraph.config.logic import (
    ExtractionConfig,
    HandoffConfig,
    ResponseGuardConfig,
    RuleConfig,
    SafetyConfig,
    TopicConfig,
    VariableDeclaration,
)
from slotgraph.config.nodes import DagConfig
from slotgraph.config.positions import SourceMap
from slotgraph.config.tool_logic import BuiltinToolSettings, ToolLogicConfig
from slotgraph.config.tool_sources import HttpToolConfig, McpServerConfig, ToolsConfig
from slotgraph.config.validation import validate_raw
from slotgraph.config.validation.structure import structure_issues
from slotgraph.names import RESERVED_TOOLS

__all__ = [
    "AGENT_FILE",
    "APP_FILE",
    "AgentCheck",
    "AgentConfig",
    "Definition",
    "agent_from_mapping",
    "discover_tool_names",
    "load_definition",
]

AGENT_FILE = "agent.yaml"
APP_FILE = "app.yaml"
"""A multi-agent app's file (read by :mod:`slotgraph.apps`); named here so the edges can recognise one."""


class AgentConfig(BaseModel):
    """``agent.yaml``: who the agent is, which model it uses, where its DAG and tools are."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    """The agent's name (shown in logs and the playground)."""
    description: str | None = None
    """One line about what the agent does."""
    instruction: str | None = None
    """Agent-specific instruction text (role, persona, rules). Mutually exclusive with instruction_file."""
    instruction_file: str | None = None
    """Path of a text file holding the instruction, relative to the agent directory."""
    model: str = "offline"
    """The model as a "provider:model" string, e.g. "openai:gpt-4o-mini"; "offline" needs no network."""
    tools: str | ToolsConfig = "tools.py"
    """Python module with the setter and executor tools, relative to the agent directory; or a mapping with
    `module` and `mcp` (MCP servers whose tools the agent uses)."""
    dag: dict[str, Any] | str
    """The DAG config inline (a mapping with slots and tasks) or the path of a YAML/JSON file holding it."""
    channel: str | None = None
    """Default channel for channel-specific responses (e.g. "MOBILE", "telephony")."""
    tracing: bool = False
    """Emit OpenTelemetry spans for this agent's sessions (as SLOTGRAPH_OTEL=1 does for every agent)."""
    variables: list[VariableDeclaration] = Field(default_factory=list)
    """Typed session variables shared by the instruction's `#when` sections, prompt programs and rules."""
    rules: list[RuleConfig] = Field(default_factory=list)
    """Deterministic lifecycle rules: trigger, optional condition, ordered actions."""
    tool_logic: dict[str, ToolLogicConfig] = Field(default_factory=dict)
    """Per-tool gates and execution contracts, keyed by tool name: `available_when`, `unavailable_message`,
    `bind`, `merge_bind`, `capture`, `progress_message`, `idempotency`, `receipt`."""
    builtin_tools: BuiltinToolSettings = Field(default_factory=BuiltinToolSettings)
    """Settings of the built-in tools (`end_session`: `require_summary`, `params_fields`)."""
    topics: list[TopicConfig] = Field(default_factory=list)
    """Topics (subagents): named specialists with their own instructions the conversation moves between
    with the `transition_topic` tool or rules."""
    extraction: ExtractionConfig | None = None
    """Background extraction of the variables declared `extraction: true` (the extractor tool)."""
    response_guards: list[ResponseGuardConfig] = Field(default_factory=list)
    """Checks on the model's text before the person sees it (pattern, code or llm) and what to do on a
    violation (replace, redact, regenerate, suppress)."""
    handoff: HandoffConfig | None = None
    """Warm hand-off: the `start_consult` tool's destinations (people, other agents of the app), each with
    its routing rule (`when`, fail open) and the context the receiver gets."""
    safety: SafetyConfig | None = None
    """The safety classifier (a Llama Guard-style model), its latency limit and failure policy, and the
    versioned profiles response guards (`check: {safety: ...}`) and tool settings (`tool_logic.<tool>.safety`)
    check against."""
    limits: LimitsConfig = Field(default_factory=LimitsConfig)
    """Bounds on one turn's work: tool timeouts, tool calls per response and per turn, stored history."""

    @model_validator(mode="before")
    @classmethod
    def _strip_extensions(cls, data: Any) -> Any:
        return drop_extension_keys(data)

    @model_validator(mode="after")
    def _one_instruction(self) -> AgentConfig:
        if self.instruction is not None and self.instruction_file is not None:
            raise ValueError("give either 'instruction' or 'instruction_file', not both")
        return self


class AgentCheck(Protocol):
    """A check an upper layer adds to loading an agent file (the logic layer's publish validation).

    It gets the agent file's mapping, the instruction text (and the file it came from, if any), the tool
    names when they are known, the DAG's slot names and its task executors' tool names; it returns issues
    located in the agent file (or carrying their own file and position). Errors block loading like every
    other config error.
    """

    def __call__(
        self,
        raw: Mapping[str, Any],
        instruction: str | None,
        *,
        instruction_file: Path | None,
        tool_names: frozenset[str] | None,
        slot_names: frozenset[str],
        executor_names: frozenset[str],
    ) -> list[ConfigIssue]: ...


@dataclass(frozen=True, slots=True)
class Definition:
    """A loaded, validated agent (``kind == "agent"``) or bare DAG file (``kind == "dag"``)."""

    kind: Literal["agent", "dag"]
    path: Path
    base_dir: Path
    agent: AgentConfig | None
    dag: DagConfig
    raw_dag: dict[str, Any]
    tools_path: Path | None
    report: ValidationReport
    """The validation report (errors are raised, so this holds warnings only)."""
    instruction: str | None = None
    """The instruction text, read from ``instruction`` or ``instruction_file``."""
    mcp_servers: tuple[McpServerConfig, ...] = ()
    """MCP servers whose tools the agent uses (``tools: {mcp: ...}``); the runtime connects to them."""
    http_tools: tuple[HttpToolConfig, ...] = ()
    """Tools whose executor is an HTTP endpoint (``tools: {http: [...]}``)."""
    topic_dags: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    """The raw DAG of every topic that declares its own (``topics[i].dag``), by topic id."""


def discover_tool_names(path: str | os.PathLike[str]) -> frozenset[str]:
    """Top-level ``def``/``async def`` names of a tools module, read with :mod:`ast` (never executed)."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigLoadError(f"{file}: cannot read the tools module ({err})") from None
    try:
        tree = ast.parse(text, filename=str(file))
    except SyntaxError as err:
        raise ConfigLoadError(
            f"{file}:{err.lineno}:{err.offset}: syntax error in the tools module: {err.msg}"
        ) from None
    return frozenset(
        node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    )


def _reserved_name_issues(
    module: Path | None,
    module_names: frozenset[str] | None,
    http_tools: Sequence[HttpToolConfig],
    module_key: str,
) -> list[ConfigIssue]:
    """An agent's own tool named like a built-in the runtime runs itself (``RESERVED_TOOLS``) would never
    run: each one is an error naming the tool, where it is defined and the fix."""
    issues: list[ConfigIssue] = []
    for name in sorted((module_names or frozenset()) & RESERVED_TOOLS):
        issues.append(
            _issue(
                "reserved_tool_name",
                module_key,
                f"the tools module {module.name if module else 'tools.py'} defines {name!r}, the name of "
                f"Slotgraph's built-in {name} tool, which the runtime runs itself: the function would never "
                "run",
                f"rename the function (e.g. {name}_custom) and every reference to it",
            )
        )
    for index, tool in enumerate(http_tools):
        if tool.name in RESERVED_TOOLS:
            issues.append(
                _issue(
                    "reserved_tool_name",
                    f"tools.http[{index}].name",
                    f"the HTTP tool is named {tool.name!r}, the name of Slotgraph's built-in {tool.name} "
                    "tool, which the runtime runs itself: the HTTP call would never be made",
                    f"give the HTTP tool another name (e.g. {tool.name}_http) and update every reference",
                )
            )
    return issues


def _looks_like_dag(data: Mapping[str, Any]) -> bool:
    return "slots" in data or "tasks" in data


def _issue(code: str, location: str, message: str, fix: str) -> ConfigIssue:
    return ConfigIssue(code, location, message, fix)


def _load_agent(file: Path, checks: Sequence[AgentCheck] = ()) -> Definition:
    raw, agent_map = read_located_mapping(file, what="agent file")
    return _agent_definition(raw, agent_map, file.parent, file, checks)


def agent_from_mapping(
    raw: Mapping[str, Any],
    source_map: SourceMap,
    base: Path,
    file: Path,
    *,
    checks: Sequence[AgentCheck] = (),
) -> Definition:
    """An agent written inline in another file (a multi-agent app's ``agents[i].agent``): ``raw`` is its
    ``agent.yaml`` mapping, ``source_map`` the positions of its values (relative to the mapping), ``base``
    the directory its relative paths start from and ``file`` the file holding it. Checked like an agent
    file; raises :class:`ConfigValidationError` with every problem."""
    if not isinstance(raw, Mapping):
        raise ConfigLoadError(f"{file}: an inline agent must be a mapping, got {type(raw).__name__}")
    return _agent_definition(dict(raw), source_map, base, file, checks)


def _agent_definition(
    raw: dict[str, Any], agent_map: SourceMap, base: Path, file: Path, checks: Sequence[AgentCheck]
) -> Definition:
    issues = [i for i in structure_issues(raw, AgentConfig) if "not both" not in i.message]
    if raw.get("instruction") is not None and raw.get("instruction_file") is not None:
        issues.append(
            _issue(
                "conflicting_fields",
                "instruction_file",
                "give either 'instruction' or 'instruction_file', not both",
                "keep the inline text or the file, and remove the other",
            )
        )
    warnings: list[ConfigIssue] = []
    dag_raw: dict[str, Any] | None = None
    dag_map: SourceMap | None = None  # None: the DAG is inline, its positions are in agent_map
    dag_value = raw.get("dag")
    if isinstance(dag_value, str):
        dag_path = base / dag_value
        if not dag_path.is_file():
            issues.append(
                _issue(
                    "missing_file",
                    "dag",
                    f"DAG file {dag_value!r} not found in {base}",
                    "fix the path (relative to the agent directory) or inline the DAG",
                )
            )
        else:
            dag_raw, dag_map = read_located_mapping(dag_path, what="DAG config")
    elif isinstance(dag_value, Mapping):
        dag_raw = dict(dag_value)
    instruction = raw.get("instruction") if isinstance(raw.get("instruction"), str) else None
    instruction_file = raw.get("instruction_file")
    instruction_path: Path | None = None
    if isinstance(instruction_file, str):
        ipath = base / instruction_file
        if ipath.is_file():
            instruction_path = ipath
            instruction = ipath.read_text(encoding="utf-8")
        else:
            issues.append(
                _issue(
                    "missing_file",
                    "instruction_file",
                    f"instruction file {instruction_file!r} not found in {base}",
                    "fix the path (relative to the agent directory) or use 'instruction'",
                )
            )
    tools_value = raw.get("tools", "tools.py")
    tools_path: Path | None = None
    tool_names: frozenset[str] | None = None
    mcp_servers: tuple[McpServerConfig, ...] = ()
    http_tools: tuple[HttpToolConfig, ...] = ()
    module_key = "tools"
    explicit_module = "tools" in raw
    if isinstance(tools_value, Mapping):
        try:
            tools_config = ToolsConfig.model_validate(tools_value)
        except ValueError:
            tools_config = None  # structure_issues reports what is wrong, with its location
        if tools_config is not None:
            mcp_servers = tools_config.mcp
            http_tools = tools_config.http
        module_key = "tools.module"
        explicit_module = isinstance(tools_value.get("module"), str)
        tools_value = tools_value["module"] if explicit_module else "tools.py"
    if isinstance(tools_value, str):
        candidate = base / tools_value
        if candidate.is_file():
            tools_path = candidate
            # With MCP servers the tool names are only known once the runtime asks the servers.
            tool_names = None if mcp_servers else discover_tool_names(candidate)
        elif explicit_module:
            issues.append(
                _issue(
                    "missing_file",
                    module_key,
                    f"tools module {tools_value!r} not found in {base}",
                    "fix the path (relative to the agent directory) or remove it",
                )
            )
    issues.extend(_reserved_name_issues(tools_path, tool_names, http_tools, module_key))
    if tool_names is not None and http_tools:
        tool_names = tool_names | {tool.name for tool in http_tools}
    if dag_raw is not None:
        report = validate_raw(dag_raw, tool_names=tool_names)
        if report.ok:
            note_validated(dag_raw)
        if dag_map is not None:
            report = _located(report, dag_map)
        issues.extend(i.prefixed("dag") for i in report.errors)
        warnings.extend(i.prefixed("dag") for i in report.warnings)
        if tools_path is None and "tools" not in raw and (report.ok and _names_tools(dag_raw)):
            warnings.append(
                ConfigIssue(
                    "no_tools_module",
                    "tools",
                    f"no {tools_value} next to {file.name}: the tools the DAG names are not checked",
                    "add a tools.py defining the setters and task tools",
                    severity="warning",
                )
            )
    topic_dags = _topic_dags(raw, base, tool_names, issues, warnings)
    if checks:
        slot_names = frozenset(
            str(s["name"])
            for s in (dag_raw or {}).get("slots") or []
            if isinstance(s, Mapping) and "name" in s
        )
        tasks = (dag_raw or {}).get("tasks")
        executor_names = frozenset(
            str(t["tool"]) for t in tasks or [] if isinstance(t, Mapping) and isinstance(t.get("tool"), str)
        )
        for check in checks:
            found_issues = check(
                raw,
                instruction,
                instruction_file=instruction_path,
                tool_names=tool_names,
                slot_names=slot_names,
                executor_names=executor_names,
            )
            for found in found_issues:
                (warnings if found.severity == "warning" else issues).append(found)
    issues = [agent_map.locate(i) for i in issues]
    warnings = [agent_map.locate(i) for i in warnings]
    if issues:
        raise ConfigValidationError(issues, source=str(file))
    assert dag_raw is not None  # no issues means the dag was read
    return Definition(
        kind="agent",
        path=file,
        base_dir=base,
        agent=AgentConfig.model_validate(raw),
        dag=DagConfig.model_validate(dag_raw),
        raw_dag=dag_raw,
        tools_path=tools_path,
        report=ValidationReport.from_issues(warnings),
        instruction=instruction,
        mcp_servers=mcp_servers,
        http_tools=http_tools,
        topic_dags=topic_dags,
    )


def _topic_dags(
    raw: Mapping[str, Any],
    base: Path,
    tool_names: frozenset[str] | None,
    issues: list[ConfigIssue],
    warnings: list[ConfigIssue],
) -> dict[str, dict[str, Any]]:
    """The DAG of every topic that declares one (``topics[i].dag``: a file relative to the agent directory,
    or inline), each checked like the agent's own DAG against the agent's tools; problems are added to
    ``issues``/``warnings`` with their location."""
    found: dict[str, dict[str, Any]] = {}
    topics = raw.get("topics")
    for index, topic in enumerate(topics if isinstance(topics, list) else []):
        if not isinstance(topic, Mapping) or topic.get("dag") is None or not isinstance(topic.get("id"), str):
            continue
        where = f"topics[{index}].dag"
        value = topic["dag"]
        source_map: SourceMap | None = None
        if isinstance(value, str):
            path = base / value
            if not path.is_file():
                issues.append(
                    _issue(
                        "missing_file",
                        where,
                        f"the topic's DAG file {value!r} is not in {base}",
                        "fix the path (relative to the agent directory) or write the DAG inline",
                    )
                )
                continue
            dag_raw, source_map = read_located_mapping(path, what="DAG config")
        elif isinstance(value, Mapping):
            dag_raw = dict(value)
        else:
            continue  # structure_issues reports a value of the wrong type
        report = validate_raw(dag_raw, tool_names=tool_names)
        if report.ok:
            note_validated(dag_raw)
        if source_map is not None:
            report = _located(report, source_map)
        issues.extend(i.prefixed(where) for i in report.errors)
        warnings.extend(i.prefixed(where) for i in report.warnings)
        found[topic["id"]] = dag_raw
    return found


def _names_tools(dag: Mapping[str, Any]) -> bool:
    slots = dag.get("slots")
    tasks = dag.get("tasks")
    has_setter = isinstance(slots, list) and any(isinstance(s, Mapping) and s.get("setter") for s in slots)
    return has_setter or (isinstance(tasks, list) and bool(tasks))


def _located(report: ValidationReport, source_map: SourceMap) -> ValidationReport:
    """``report`` with every issue given the file and position of its location."""
    return ValidationReport(
        errors=tuple(source_map.locate(i) for i in report.errors),
        warnings=tuple(source_map.locate(i) for i in report.warnings),
    )


def _load_dag_file(file: Path, raw: dict[str, Any], source_map: SourceMap) -> Definition:
    sibling = file.parent / "tools.py"
    tools_path = sibling if sibling.is_file() else None
    tool_names = discover_tool_names(sibling) if tools_path is not None else None
    report = _located(validate_raw(raw, tool_names=tool_names), source_map)
    report.raise_for_errors(str(file))
    note_validated(raw)
    return Definition(
        kind="dag",
        path=file,
        base_dir=file.parent,
        agent=None,
        dag=DagConfig.model_validate(raw),
        raw_dag=raw,
        tools_path=tools_path,
        report=ValidationReport(warnings=report.warnings),
    )


def load_definition(path: str | os.PathLike[str], *, checks: Sequence[AgentCheck] = ()) -> Definition:
    """Load an agent directory, an ``agent.yaml`` or a bare DAG file; raise with every problem found.

    A bare DAG file is checked against a ``tools.py`` next to it when there is one. ``checks`` add checks of
    an agent file (``slotgraph.logic.load_definition`` adds the logic layer's).
    """
    target = Path(path)
    if target.is_dir():
        file = target / AGENT_FILE
        if not file.is_file():
            raise ConfigLoadError(
                f"{target}: no {AGENT_FILE} in this directory — fix: add one, or pass a DAG file"
            )
        return _load_agent(file, checks)
    if not target.exists():
        raise ConfigLoadError(f"{target}: no such file or directory")
    if target.name in (AGENT_FILE, "agent.yml"):
        return _load_agent(target, checks)
    raw, source_map = read_located_mapping(target)
    if _looks_like_dag(raw):
        return _load_dag_file(target, raw, source_map)
    if "dag" in raw and "name" in raw:
        return _load_agent(target, checks)
    raise ConfigLoadError(
        f"{target}: neither an agent file (with 'name' and 'dag') nor a DAG config (with 'slots' and 'tasks')"
    )
