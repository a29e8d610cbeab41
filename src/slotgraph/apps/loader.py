"""Loading a multi-agent app: ``app.yaml`` checked with locations, each agent loaded, routing tools added.

:func:`load_app` returns the app's root :class:`~slotgraph.runtime.Agent`; every agent of the app carries
the same :class:`~slotgraph.runtime.agent_team.AgentTeam` (``agent.team``), so ``agent.session()`` starts a
conversation that can move between them. Each agent gets:

* with ``handoffs``, the ``transfer_to_agent`` tool: ``agent`` enumerates the handoff targets, each
  described (the entry's ``description``, else the agent's own);
* for each ``routing`` entry naming one of its tools, that tool's parameter advertised as an enumeration of
  the values that lead to *another* agent, each described by its target.

Problems (an unknown root, handoff or routing target, a missing agent directory, two agents of one name, a
routing tool no agent has) raise :class:`~slotgraph.config.ConfigValidationError` with the app file's line
and column, like every config error; an agent's own problems are reported as loading it alone would.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from slotgraph.apps.config import APP_FILE, AppConfig, RoutingConfig
from slotgraph.config import ConfigIssue, ConfigLoadError, ConfigValidationError, Definition
from slotgraph.config.agent import agent_from_mapping
from slotgraph.config.loader import read_located_mapping
from slotgraph.config.validation.structure import structure_issues
from slotgraph.logic import load_definition, logic_issues
from slotgraph.runtime import Agent, Model, resolve_model
from slotgraph.runtime.agent_team import TRANSFER_TOOL, AgentTeam, routing_schema
from slotgraph.runtime.tools import Tool, ToolRegistry, tool_from_function

__all__ = [
    "Member",
    "app_definitions",
    "app_issues",
    "build_app",
    "is_app",
    "load_agent",
    "load_app",
    "read_app",
]


def _app_file(path: str | os.PathLike[str]) -> Path | None:
    target = Path(path)
    if target.is_dir() and (target / APP_FILE).is_file():
        return target / APP_FILE
    if target.is_file() and target.name in (APP_FILE, "app.yml"):
        return target
    return None


def is_app(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a multi-agent app (a directory holding ``app.yaml``, or that file)."""
    return _app_file(path) is not None


def read_app(path: str | os.PathLike[str]) -> tuple[AppConfig, Path]:
    """The checked ``app.yaml`` and the directory its agent paths are relative to."""
    file = _app_file(path)
    if file is None:
        raise ConfigLoadError(f"{path}: no {APP_FILE} here — fix: pass an app directory or its {APP_FILE}")
    raw, where = read_located_mapping(file, what="app file")
    issues = structure_issues(raw, AppConfig)
    if issues:
        raise ConfigValidationError([where.locate(i) for i in issues], source=str(file))
    config = AppConfig.model_validate(raw)
    problems: list[ConfigIssue] = []
    for index, entry in enumerate(config.agents):
        if entry.path is not None and not (file.parent / entry.path / "agent.yaml").is_file():
            problems.append(
                ConfigIssue(
                    "missing_file",
                    f"agents[{index}].path",
                    f"no agent directory with an agent.yaml at {entry.path!r} (relative to {file.parent})",
                    "fix the path, or create the agent there (`slotgraph init`)",
                )
            )
    if problems:
        raise ConfigValidationError([where.locate(i) for i in problems], source=str(file))
    return config, file.parent


def app_issues(
    config: AppConfig,
    names: list[str],
    tools: Mapping[str, set[str]],
    consults: Mapping[str, Sequence[str]] | None = None,
) -> list[ConfigIssue]:
    """The app file's reference problems, given each agent's name (in ``agents`` order), tool names and the
    agents its ``handoff:`` destinations of ``kind: agent`` hand over to (``consults``)."""
    issues: list[ConfigIssue] = []
    known = set(names)
    listed = ", ".join(sorted(known))
    seen: set[str] = set()
    for index, name in enumerate(names):
        if name in seen:
            issues.append(
                ConfigIssue(
                    "duplicate_agent",
                    f"agents[{index}].path",
                    f"two agents are named {name!r} (their agent.yaml `name`)",
                    "give every agent of the app its own name",
                )
            )
        seen.add(name)
    if config.root not in known:
        issues.append(
            ConfigIssue(
                "unknown_agent",
                "root",
                f"no agent of the app is named {config.root!r}",
                f"use one of {listed}",
            )
        )
    for index, entry in enumerate(config.agents):
        if entry.handoffs and TRANSFER_TOOL in tools.get(names[index], set()):
            issues.append(
                ConfigIssue(
                    "reserved_tool_name",
                    f"agents[{index}].handoffs",
                    f"{names[index]!r} has its own tool {TRANSFER_TOOL!r}; its handoffs give it the app's "
                    f"built-in {TRANSFER_TOOL}, which would replace it, so the agent's own would never run",
                    "rename the agent's tool, or route with it under `routing:` instead of `handoffs`",
                )
            )
        for n, target in enumerate(entry.handoffs):
            if target not in known or target == names[index]:
                issues.append(
                    ConfigIssue(
                        "unknown_agent",
                        f"agents[{index}].handoffs[{n}]",
                        f"{target!r} is not another agent of the app",
                        f"use one of {listed} (not the agent itself)",
                    )
                )
    for index, name in enumerate(names):
        for target in (consults or {}).get(name, ()):
            if target not in known or target == name:
                issues.append(
                    ConfigIssue(
                        "unknown_agent",
                        f"agents[{index}]",
                        f"{name!r} hands over to {target!r} (handoff: a destination of kind agent), which is "
                        "not another agent of the app",
                        f"use one of {listed} (not the agent itself) as the destination's agent",
                    )
                )
    for index, routing in enumerate(config.routing):
        if not any(routing.tool in have for have in tools.values()):
            issues.append(
                ConfigIssue(
                    "unknown_tool",
                    f"routing[{index}].tool",
                    f"no agent of the app has a tool named {routing.tool!r}",
                    "fix the name, or add the tool to the agents that route with it",
                )
            )
        for value, target in routing.values.items():
            if target not in known:
                issues.append(
                    ConfigIssue(
                        "unknown_agent",
                        f"routing[{index}].values.{value}",
                        f"{target!r} is not an agent of the app",
                        f"use one of {listed}",
                    )
                )
    return issues


def _transfer_tool(targets: Mapping[str, str]) -> Tool:
    def transfer_to_agent(agent: str) -> dict[str, Any]:
        """Hand the conversation to another agent of this app when the person needs what it does (the
        choices say what each one does). Call it alone and say nothing: that agent answers the person."""
        if agent not in targets:
            return {
                "error": True,
                "message": f"there is no agent {agent!r} to hand over to; choose one of {', '.join(targets)}",
            }
        return {"transferred": True, "target_agent": agent}

    tool = tool_from_function(transfer_to_agent, name=TRANSFER_TOOL)
    return dataclasses.replace(tool, schema=routing_schema(tool.schema, "agent", targets))


def app_definitions(path: str | os.PathLike[str]) -> list[Definition]:
    """The definition of every agent of an app, in ``agents`` order: loaded from its directory, or checked
    inline (positions in the app file). Raises the first agent's :class:`ConfigValidationError`."""
    config, base = read_app(path)
    file = _app_file(path)
    assert file is not None
    definitions: list[Definition] = []
    for index, entry in enumerate(config.agents):
        if entry.path is not None:
            definitions.append(load_definition(base / entry.path))
            continue
        assert entry.agent is not None
        _, where = read_located_mapping(file, what="app file")
        inner = where.within(f"agents[{index}].agent")
        definitions.append(agent_from_mapping(entry.agent, inner, base, file, checks=(logic_issues,)))
    return definitions


def load_app(path: str | os.PathLike[str], *, model: Model | str | None = None) -> Agent:
    """Load a multi-agent app; returns its root agent (every agent carries the app's team). ``model`` (a
    :class:`Model` or a spec, resolved once) overrides every agent's own: they all talk through it."""
    config, _ = read_app(path)
    spec = model if isinstance(model, str) else None
    shared = resolve_model(model) if isinstance(model, str) else model  # one model, one script
    loaded = [Agent.from_definition(d, model=shared) for d in app_definitions(path)]
    if spec is not None:
        loaded = [dataclasses.replace(agent, model_spec=spec) for agent in loaded]
    names = [agent.name for agent in loaded]
    tools = {agent.name: set(agent.tools.names) for agent in loaded}
    consults = {
        agent.name: [d.config.target for d in agent.logic.handoff if d.config.kind == "agent"]
        for agent in loaded
        if agent.logic is not None
    }
    issues = app_issues(config, names, tools, consults)
    if issues:
        file = _app_file(path)
        assert file is not None
        _, where = read_located_mapping(file, what="app file")
        raise ConfigValidationError([where.locate(i) for i in issues], source=str(file))
    members = [
        Member(agent, entry.description, tuple(entry.handoffs))
        for agent, entry in zip(loaded, config.agents, strict=True)
    ]
    return build_app(config.name, config.root, members, config.routing)


@dataclass(frozen=True, slots=True)
class Member:
    """An agent of an app built in Python (:func:`build_app`): the agent, when to route to it (default: its
    own description), and the agents it may hand over to with ``transfer_to_agent``."""

    agent: Agent
    description: str | None = None
    handoffs: tuple[str, ...] = ()


def build_app(
    name: str, root: str, members: Sequence[Member], routing: Sequence[RoutingConfig] = ()
) -> Agent:
    """An app of agents built in Python (``app.yaml``'s meaning, unchecked: names must be right); returns
    the root agent, every member carrying the app's team."""
    described = {
        m.agent.name: m.description or m.agent.description or f"the {m.agent.name} agent" for m in members
    }
    team = AgentTeam(name, root)
    for member in members:
        agent = member.agent
        registry = ToolRegistry(list(agent.tools))
        if member.handoffs:
            registry.add(_transfer_tool({target: described[target] for target in member.handoffs}))
        for entry in routing:
            tool = registry.get(entry.tool)
            targets = {v: described[a] for v, a in entry.values.items() if a != agent.name}
            if tool is not None and targets:
                schema = routing_schema(tool.schema, entry.param, targets)
                registry.add(dataclasses.replace(tool, schema=schema))
        team.add(dataclasses.replace(agent, tools=registry, team=team))
    return team.root_agent


def load_agent(path: str | os.PathLike[str], *, model: Model | str | None = None) -> Agent:
    """An app's root agent (see :func:`load_app`) or a single agent (``Agent.load``)."""
    if is_app(path):
        return load_app(path, model=model)
    return Agent.load(path, model=model)
