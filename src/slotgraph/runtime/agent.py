"""An agent: a compiled DAG, its tools, its instruction and (optionally) its model.

:meth:`Agent.load` reads an agent directory, ``agent.yaml`` or bare DAG file through
:func:`slotgraph.config.load_definition`, compiles the DAG, imports the tools module (this is the runtime
layer: I/O is allowed) and registers its functions after the built-ins. :meth:`Agent.from_config` builds one
from Python objects (tests, notebooks). An agent is immutable and shared by its sessions.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from slotgraph.config import AgentConfig, CompiledDag, compile_config
from slotgraph.config.agent import Definition
from slotgraph.config.limits import LimitsConfig
from slotgraph.config.logic import (
    ExtractionConfig,
    HandoffConfig,
    ResponseGuardConfig,
    RuleConfig,
    SafetyConfig,
    TopicConfig,
    VariableDeclaration,
)
from slotgraph.config.tool_logic import BuiltinToolSettings, ToolLogicConfig
from slotgraph.config.validation import validate_raw
from slotgraph.config.validation.structure import structure_issues
from slotgraph.logic import AgentLogic, load_definition, logic_issues
from slotgraph.models.protocol import Model
from slotgraph.names import OTEL_ENV, RESERVED_TOOLS, START_CONSULT
from slotgraph.runtime.agent_team import AgentTeam
from slotgraph.runtime.builtin_tools import (
    END_SESSION,
    builtin_tools,
    end_session_tool,
    set_variables_tool,
    start_consult_tool,
    transition_topic_tool,
)
from slotgraph.runtime.engine_port import Engine
from slotgraph.runtime.errors import AgentLoadError, ModelNotAvailableError
from slotgraph.runtime.model_resolution import resolve_model
from slotgraph.runtime.plugins import TOOL_SOURCES, TRACERS, plugin
from slotgraph.runtime.session import Clock, Session
from slotgraph.runtime.tools import (
    Tool,
    ToolRegistry,
    load_tools_module,
    module_functions,
    tool_from_function,
)
from slotgraph.runtime.tracing_port import TurnTracer
from slotgraph.runtime.turn_loop import DEFAULT_STEP_CAP
from slotgraph.stores.protocol import SessionStore

__all__ = ["DEFAULT_MODEL_SPEC", "Agent"]

DEFAULT_MODEL_SPEC: str = AgentConfig.model_fields["model"].default
"""The model of an agent whose config names none: agent.yaml's default (the offline model)."""


class ToolSourceHandle(Protocol):
    """A tool source that holds resources (an MCP server connection) until the agent is closed."""

    def close(self) -> None: ...


def _external_tools(
    definition: Definition, functions: list[Callable[..., Any]], sources: list[ToolSourceHandle]
) -> list[Tool]:
    """The agent's HTTP tools and the tools of its MCP servers; the DAG's tool references checked against
    every tool."""
    if not definition.mcp_servers and not definition.http_tools:
        return []
    from slotgraph.runtime.http_tools import http_tool

    tools: list[Tool] = [http_tool(config) for config in definition.http_tools]
    if definition.mcp_servers:
        load_mcp_tools = plugin(TOOL_SOURCES, "mcp")
        tools += load_mcp_tools(
            definition.mcp_servers,
            base_dir=definition.base_dir,
            taken=[fn.__name__ for fn in functions] + [tool.name for tool in tools],
            on_source=sources.append,
        )
    names = frozenset([fn.__name__ for fn in functions] + [tool.name for tool in tools])
    report = validate_raw(definition.raw_dag, tool_names=names)
    if not report.ok:
        for source in sources:
            source.close()
        report.raise_for_errors(str(definition.path))
    return tools


def _registry(tools: Iterable[Callable[..., Any] | Tool], logic: AgentLogic | None = None) -> ToolRegistry:
    """The built-ins (with the logic layer's: ``set_variables``, a summary-taking ``end_session``), then the
    agent's own tools, which override a built-in of the same name; gate bindings checked against them."""
    registry = ToolRegistry(builtin_tools())
    if logic is not None and logic.mutable_variables:
        registry.add(set_variables_tool(logic.mutable_variables))
    if logic is not None and logic.topics:
        registry.add(transition_topic_tool(logic.topics))
    if logic is not None and logic.handoff:
        registry.add(start_consult_tool(logic.handoff))
    ending = logic.builtin_tools.end_session if logic is not None else None
    if ending is not None and (ending.require_summary or ending.params_fields):
        registry.add(end_session_tool(summary=ending.require_summary, params_fields=ending.params_fields))
    own = [item if isinstance(item, Tool) else tool_from_function(item) for item in tools]
    taken = RESERVED_TOOLS | ({START_CONSULT} if logic is not None and logic.handoff else set())
    reserved = sorted({tool.name for tool in own} & taken)
    if reserved:
        listed = ", ".join(repr(name) for name in reserved)
        raise AgentLoadError(
            f"the agent's own tool {listed} has the name of a Slotgraph built-in the runtime runs itself "
            f"({', '.join(sorted(taken))}), so it would never run — rename the function or HTTP "
            "tool (and every reference to it), or leave an MCP server's tool out with 'tools.mcp.tools'"
        )
    for tool in own:
        registry.add(tool)
    if logic is not None:
        _check_tool_logic(logic, registry)
    return registry


def _check_tool_logic(logic: AgentLogic, registry: ToolRegistry) -> None:
    """Refuse gates that name parameters their tool does not have (known only once tools are imported)."""
    problems: list[str] = []
    for name, entry in logic.tool_logic.items():
        tool = registry.get(name)
        if tool is None:
            continue  # publish validation reports an unknown tool with its location
        properties = tool.schema.parameters.get("properties") or {}
        for mode in ("bind", "merge_bind"):
            for param in getattr(entry.config, mode):
                if param not in properties:
                    known = ", ".join(sorted(properties)) or "none"
                    problems.append(
                        f"tool_logic.{name}.{mode}.{param}: {name} has no parameter {param!r} (its "
                        f"parameters: {known}) — fix the name or remove the binding"
                    )
        safety = entry.config.safety
        for param in safety.params or () if safety is not None else ():
            if param not in properties:
                problems.append(
                    f"tool_logic.{name}.safety.params: {name} has no parameter {param!r} (its parameters: "
                    f"{', '.join(sorted(properties)) or 'none'}) — fix the name"
                )
        for key in ("idempotency", "receipt"):
            contract = getattr(entry.config, key)
            if contract is None:
                continue
            params = (
                [*contract.key, *contract.fingerprint]
                if key == "idempotency"
                else [contract.transaction_id_param, contract.amount_param, contract.currency_param]
            )
            for param in params:
                if param not in properties:
                    problems.append(
                        f"tool_logic.{name}.{key}: {name} has no parameter {param!r} — a contract reads the "
                        "tool's final (bound) arguments; fix the name"
                    )
    if logic.extraction is not None:
        extractor = registry.get(logic.extraction.tool)
        if extractor is not None and "message" not in (extractor.schema.parameters.get("properties") or {}):
            problems.append(
                f"extraction.tool: the extractor {logic.extraction.tool} has no 'message' parameter — it is "
                "called with the caller's message (and, if it takes them, 'fields')"
            )
    end = registry.get(END_SESSION)
    end_params = (end.schema.parameters.get("properties") or {}) if end is not None else {}
    if logic.builtin_tools.end_session.require_summary and "summary" not in end_params:
        problems.append(
            "builtin_tools.end_session.require_summary: the agent's own end_session has no 'summary' "
            'parameter — add `summary: str = ""` to it, or remove require_summary'
        )
    if logic.builtin_tools.end_session.params_fields and "params" not in end_params:
        problems.append(
            "builtin_tools.end_session.params_fields: the agent's own end_session has no 'params' "
            "parameter — add `params: dict | None = None` to it, or remove params_fields"
        )
    if problems:
        details = "\n".join(f"  {problem}" for problem in problems)
        raise AgentLoadError(f"the agent's tool logic has {len(problems)} problem(s):\n{details}")


def _logic(
    instruction: str,
    variables: Iterable[VariableDeclaration | Mapping[str, Any]],
    rules: Iterable[RuleConfig | Mapping[str, Any]],
    tool_logic: Mapping[str, ToolLogicConfig | Mapping[str, Any]],
    builtin_tools: BuiltinToolSettings | Mapping[str, Any] | None,
    guards: Iterable[ResponseGuardConfig | Mapping[str, Any]] = (),
    topics: Iterable[TopicConfig | Mapping[str, Any]] = (),
    extraction: ExtractionConfig | Mapping[str, Any] | None = None,
    safety: SafetyConfig | Mapping[str, Any] | None = None,
    handoff: HandoffConfig | Mapping[str, Any] | None = None,
) -> AgentLogic | None:
    """The agent logic of Python-given parts, checked like agent.yaml's (errors raise AgentLoadError)."""
    raw: dict[str, Any] = {
        "variables": [v.model_dump() if isinstance(v, VariableDeclaration) else dict(v) for v in variables],
        "rules": [r.model_dump(exclude_none=True) if isinstance(r, RuleConfig) else dict(r) for r in rules],
        "tool_logic": {
            name: c.model_dump(exclude_none=True, exclude_defaults=True)
            if isinstance(c, ToolLogicConfig)
            else dict(c)
            for name, c in tool_logic.items()
        },
        "response_guards": [
            g.model_dump(exclude_defaults=True) if isinstance(g, ResponseGuardConfig) else dict(g)
            for g in guards
        ],
        "topics": [
            t.model_dump(exclude_none=True) if isinstance(t, TopicConfig) else dict(t) for t in topics
        ],
    }
    if builtin_tools is not None:
        raw["builtin_tools"] = (
            builtin_tools.model_dump()
            if isinstance(builtin_tools, BuiltinToolSettings)
            else dict(builtin_tools)
        )
    if extraction is not None:
        raw["extraction"] = (
            extraction.model_dump() if isinstance(extraction, ExtractionConfig) else dict(extraction)
        )
    if safety is not None:
        raw["safety"] = (
            safety.model_dump(exclude_none=True) if isinstance(safety, SafetyConfig) else dict(safety)
        )
    if handoff is not None:
        raw["handoff"] = (
            handoff.model_dump(exclude_none=True) if isinstance(handoff, HandoffConfig) else dict(handoff)
        )
    issues = structure_issues(raw, _LogicKeys) or [
        i for i in logic_issues(raw, instruction) if i.severity == "error"
    ]
    if issues:
        details = "\n".join(f"  {issue}" for issue in issues)
        raise AgentLoadError(f"the agent logic has {len(issues)} problem(s):\n{details}")
    keys = _LogicKeys.model_validate(raw)
    logic = AgentLogic.build(
        instruction,
        keys.variables,
        keys.rules,
        tool_logic=keys.tool_logic,
        builtin_tools=keys.builtin_tools,
        guards=keys.response_guards,
        topics=keys.topics,
        extraction=keys.extraction,
        safety=keys.safety,
        handoff=keys.handoff,
    )
    return logic if logic.active else None


def _topic_dags(topics: Iterable[TopicConfig | Mapping[str, Any]]) -> dict[str, CompiledDag]:
    """The compiled DAG of every Python-given topic that has one inline (a file needs an agent directory)."""
    dags: dict[str, CompiledDag] = {}
    for topic in topics:
        config = topic if isinstance(topic, TopicConfig) else TopicConfig.model_validate(dict(topic))
        if isinstance(config.dag, str):
            raise AgentLoadError(
                f"topic {config.id!r}: its dag {config.dag!r} is a file, which needs an agent directory — "
                "give the DAG inline (a mapping), or load the agent with Agent.load"
            )
        if config.dag is not None:
            dags[config.id] = compile_config(config.dag)
    return dags


def _limits(limits: LimitsConfig | Mapping[str, Any] | None) -> LimitsConfig:
    if limits is None or isinstance(limits, LimitsConfig):
        return limits or LimitsConfig()
    try:
        return LimitsConfig.model_validate(dict(limits))
    except ValidationError as err:
        problems = "; ".join(f"limits.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in err.errors())
        raise AgentLoadError(f"invalid limits ({problems}) — fix: see docs/security.md#limits") from None


class _LogicKeys(BaseModel):
    variables: list[VariableDeclaration]
    rules: list[RuleConfig]
    tool_logic: dict[str, ToolLogicConfig]
    builtin_tools: BuiltinToolSettings = BuiltinToolSettings()
    response_guards: list[ResponseGuardConfig]
    topics: list[TopicConfig]
    extraction: ExtractionConfig | None = None
    safety: SafetyConfig | None = None
    handoff: HandoffConfig | None = None


@dataclass(frozen=True)
class Agent:
    """A loaded agent. Start conversations with :meth:`session`."""

    name: str
    dag: CompiledDag
    tools: ToolRegistry
    instruction: str = ""
    model: Model | None = None
    model_spec: str | None = None
    channel: str | None = None
    base_dir: Path | None = None
    tool_sources: tuple[ToolSourceHandle, ...] = ()
    tracing: bool = False
    """Sessions emit OpenTelemetry spans (``tracing: true`` in agent.yaml; ``SLOTGRAPH_OTEL=1`` for all)."""
    """Sources holding resources for the tools (MCP server connections); :meth:`close` releases them."""
    logic: AgentLogic | None = None
    """The agent's logic (``variables:``, ``rules:``, ``#when`` sections and prompt programs in the
    instruction); None when it uses none, and then the instruction is sent verbatim."""
    description: str = ""
    """One line about what the agent does (agent.yaml ``description``)."""
    team: AgentTeam | None = field(default=None, compare=False, repr=False)
    """The multi-agent app this agent belongs to (``slotgraph.apps`` sets it); a session started on the
    app's root can move between its agents (:mod:`slotgraph.runtime.agent_team`)."""
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    """Bounds on one turn's work (``limits:`` in agent.yaml): tool timeouts, call caps, stored history."""
    topic_dags: Mapping[str, CompiledDag] = field(default_factory=dict)
    """The DAG of every topic with its own (``topics[i].dag``), by topic id: while such a topic is
    active, its engine runs on the topic's own slot state instead of the agent's DAG."""
    own_model: str | None = None
    """The model this agent's ``agent.yaml`` names itself (``model:``), when no model was given at load;
    None when it names none. In a multi-agent app such an agent talks through its own model; the others
    use the session's (see :meth:`model_in_team`)."""
    _own_resolved: dict[str, Model] = field(default_factory=dict, compare=False, repr=False)
    _slots_models: dict[bool, type[BaseModel]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for (
            tool
        ) in self.tools:  # before their first call starts any thread (a Tool shared by agents: the last)
            tool.threads.limit = self.limits.tool_threads

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, model: Model | str | None = None) -> Agent:
        """Load an agent directory / ``agent.yaml`` / DAG file. ``model`` overrides the agent's ``model``."""
        return cls.from_definition(load_definition(path), model=model)

    @classmethod
    def from_definition(cls, definition: Definition, *, model: Model | str | None = None) -> Agent:
        """An agent from a loaded, validated :class:`~slotgraph.config.Definition` (``load_definition``, or
        an agent written inline in a multi-agent app file). ``model`` overrides the agent's ``model``."""
        dag = compile_config(definition.raw_dag)
        functions: list[Callable[..., Any]] = []
        if definition.tools_path is not None:
            module = load_tools_module(definition.tools_path)
            functions = module_functions(module)
        sources: list[ToolSourceHandle] = []
        external = _external_tools(definition, functions, sources)
        agent_cfg = definition.agent
        spec = agent_cfg.model if agent_cfg is not None else DEFAULT_MODEL_SPEC
        resolved: Model | None = None
        if isinstance(model, str):
            spec, resolved = model, resolve_model(model)
        elif model is not None:
            resolved = model
        logic = AgentLogic.build(
            definition.instruction or "",
            agent_cfg.variables if agent_cfg is not None else (),
            agent_cfg.rules if agent_cfg is not None else (),
            tool_logic=agent_cfg.tool_logic if agent_cfg is not None else None,
            builtin_tools=agent_cfg.builtin_tools if agent_cfg is not None else None,
            guards=agent_cfg.response_guards if agent_cfg is not None else (),
            topics=agent_cfg.topics if agent_cfg is not None else (),
            extraction=agent_cfg.extraction if agent_cfg is not None else None,
            safety=agent_cfg.safety if agent_cfg is not None else None,
            handoff=agent_cfg.handoff if agent_cfg is not None else None,
        )
        try:
            registry = _registry([*functions, *external], logic if logic.active else None)
        except AgentLoadError:
            for source in sources:
                source.close()
            raise
        return cls(
            name=agent_cfg.name if agent_cfg is not None else definition.path.stem,
            dag=dag,
            tools=registry,
            instruction=definition.instruction or "",
            model=resolved,
            model_spec=spec,
            channel=agent_cfg.channel if agent_cfg is not None else None,
            base_dir=definition.base_dir,
            tool_sources=tuple(sources),
            tracing=agent_cfg.tracing if agent_cfg is not None else False,
            logic=logic if logic.active else None,
            description=(agent_cfg.description or "") if agent_cfg is not None else "",
            limits=agent_cfg.limits if agent_cfg is not None else LimitsConfig(),
            topic_dags={topic: compile_config(raw) for topic, raw in definition.topic_dags.items()},
            own_model=(
                agent_cfg.model
                if agent_cfg is not None and model is None and "model" in agent_cfg.model_fields_set
                else None
            ),
        )

    @classmethod
    def from_config(
        cls,
        dag: Mapping[str, Any] | CompiledDag,
        *,
        tools: Iterable[Callable[..., Any] | Tool] = (),
        instruction: str = "",
        model: Model | str | None = None,
        name: str = "agent",
        channel: str | None = None,
        variables: Iterable[VariableDeclaration | Mapping[str, Any]] = (),
        rules: Iterable[RuleConfig | Mapping[str, Any]] = (),
        tool_logic: Mapping[str, ToolLogicConfig | Mapping[str, Any]] | None = None,
        builtin_tools: BuiltinToolSettings | Mapping[str, Any] | None = None,
        response_guards: Iterable[ResponseGuardConfig | Mapping[str, Any]] = (),
        topics: Iterable[TopicConfig | Mapping[str, Any]] = (),
        limits: LimitsConfig | Mapping[str, Any] | None = None,
        extraction: ExtractionConfig | Mapping[str, Any] | None = None,
        safety: SafetyConfig | Mapping[str, Any] | None = None,
        handoff: HandoffConfig | Mapping[str, Any] | None = None,
    ) -> Agent:
        """Build an agent from a DAG config (raw mapping or compiled), tool functions and an instruction.

        ``variables``, ``rules``, ``tool_logic``, ``builtin_tools``, ``response_guards``, ``topics``,
        ``extraction``, ``safety`` and ``handoff`` take the shapes of ``agent.yaml``'s keys; the instruction
        may use ``#when`` sections and prompt programs. Problems raise :class:`AgentLoadError` with every
        issue.
        ``model`` is a :class:`Model` or a ``"provider:model"`` spec (resolved when a session starts); without
        it the agent uses agent.yaml's default, the offline model.
        """
        compiled = dag if isinstance(dag, CompiledDag) else compile_config(dag)
        topics = list(topics)
        logic = _logic(
            instruction,
            variables,
            rules,
            tool_logic or {},
            builtin_tools,
            response_guards,
            topics,
            extraction,
            safety,
            handoff,
        )
        bounds = _limits(limits)
        spec = model if isinstance(model, str) else None if model is not None else DEFAULT_MODEL_SPEC
        return cls(name=name, dag=compiled, tools=_registry(tools, logic), instruction=instruction,
                   model=None if isinstance(model, str) else model, model_spec=spec,
                   own_model=model if isinstance(model, str) else None, topic_dags=_topic_dags(topics),
                   channel=channel, logic=logic, limits=bounds)  # fmt: skip

    def slots_model(self, *, partial: bool = False) -> type[BaseModel]:
        """The pydantic model of the agent's slots: a field per slot that holds data, typed from its setter,
        described by its ``hint``, optional where a completed session may lack it (``partial=True``: every
        field optional). One class per agent (built on first use). See
        :mod:`slotgraph.runtime.typed_results` and :meth:`Session.result`."""
        if partial not in self._slots_models:
            from slotgraph.runtime.typed_results import slots_model

            self._slots_models[partial] = slots_model(self, partial=partial)
        return self._slots_models[partial]

    def close(self) -> None:
        """Release the tool sources (stop MCP servers started for this agent). Idempotent."""
        for source in self.tool_sources:
            source.close()

    def _model(self, model: Model | str | None) -> Model:
        if isinstance(model, str):
            return resolve_model(model)
        if model is not None:
            return model
        if self.model is not None:
            return self.model
        if self.model_spec:
            return resolve_model(self.model_spec)
        raise ModelNotAvailableError(
            f"agent {self.name!r} has no model: pass model=... to Agent.load or session"
        )

    def model_in_team(self, session_model: Model) -> Model:
        """The model this agent talks through when a conversation of its app reaches it: the model given
        at load (``load_app(path, model=...)``, ``--model``; every agent has it), else the one its
        ``agent.yaml`` names (resolved once per agent), else ``session_model``."""
        if self.model is not None:
            return self.model
        if self.own_model is None:
            return session_model
        if self.own_model not in self._own_resolved:
            self._own_resolved[self.own_model] = resolve_model(self.own_model)
        return self._own_resolved[self.own_model]

    def session(
        self,
        *,
        session_id: str | None = None,
        event_data: Mapping[str, Any] | None = None,
        channel: str | None = None,
        clock: Clock | None = None,
        seed: int | None = None,
        store: SessionStore | None = None,
        model: Model | str | None = None,
        engine: Engine | None = None,
        debug: bool = False,
        step_cap: int = DEFAULT_STEP_CAP,
        tracer: TurnTracer | None = None,
        variables: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        agent_models: bool = True,
        must_exist: bool = False,
    ) -> Session:
        """Start (or, with a store holding ``session_id``, resume) a conversation.

        ``must_exist``: a turn of a session the store does not hold raises
        :class:`~slotgraph.runtime.errors.UnknownSessionError` instead of starting it afresh (a service that
        created the session earlier).
        ``model`` is the session's model (default: this agent's own). In a multi-agent app every other
        agent uses it too, unless it has its own (:meth:`model_in_team`); ``agent_models=False`` makes the
        session's model answer for every agent (a scripted or replayed conversation).
        ``tracer`` observes each turn (e.g. a :class:`slotgraph.tracing.SessionTracer`); without one, the
        agent's ``tracing: true`` or ``SLOTGRAPH_OTEL=1`` gives OpenTelemetry spans.
        ``variables`` seeds the agent's variables (a value given here beats the declared default);
        ``metadata`` holds caller facts expressions can read (``session_id`` and ``channel`` are added).
        """
        if not isinstance(self.dag, CompiledDag):
            raise AgentLoadError("agent has no compiled DAG")
        return Session(
            self,
            self._model(model),
            session_id=session_id,
            event_data=event_data,
            channel=channel,
            clock=clock,
            seed=seed,
            store=store,
            engine=engine,
            debug=debug,
            must_exist=must_exist,
            step_cap=step_cap,
            tracer=tracer if tracer is not None else self._default_tracer(),
            variables=variables,
            metadata=metadata,
            agent_models=agent_models,
        )

    def _default_tracer(self) -> TurnTracer | None:
        """The OpenTelemetry tracer when the agent (``tracing: true``) or ``SLOTGRAPH_OTEL`` asks for one
        (a malformed switch is the tracer's to refuse)."""
        switch = os.environ.get(OTEL_ENV, "").strip().lower()
        if not self.tracing and switch in ("", "0", "false", "no", "off"):
            return None
        tracer: TurnTracer = plugin(TRACERS, "otel")(agent_name=self.name)
        return tracer
