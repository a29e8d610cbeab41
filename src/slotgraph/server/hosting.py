"""The agents a server hosts: loaded once at start-up, shared (read-only) by every request.

:func:`load_hosted_agents` loads each agent path (an agent directory, or a multi-agent app — hosted under the
app's name, its root answering first) with its definition (for the description and the Mermaid
picture) and resolves its model once: ``model`` (a spec string or a :class:`~slotgraph.runtime.Model`
object) overrides every agent's own ``model`` setting. Names must be unique across the server.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from slotgraph.apps import app_definitions, load_agent, read_app
from slotgraph.config import ConfigError, ConfigValidationError, DagConfig
from slotgraph.config.graph import render_mermaid
from slotgraph.errors import SlotgraphError
from slotgraph.logic import load_definition
from slotgraph.runtime import Agent, Model, ModelNotAvailableError, resolve_model
from slotgraph.server.errors import ServerConfigError

__all__ = ["HostedAgent", "hosted", "load_hosted_agents", "resolve_server_model"]


@dataclass(frozen=True)
class HostedAgent:
    """An agent as the server shows it: the runtime agent, its model, a description and its Mermaid text."""

    agent: Agent
    model: Model
    description: str = ""
    mermaid: str = ""
    mermaids: Mapping[str, str] = field(default_factory=dict)
    """A multi-agent app: each agent's Mermaid text by name (the root's is ``mermaid``)."""
    topic_mermaids: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """The Mermaid text of every topic with its own DAG: agent name → topic id → text."""

    @property
    def name(self) -> str:
        """The agent's name; a multi-agent app is hosted under the app's name."""
        return self.agent.team.name if self.agent.team is not None else self.agent.name


def resolve_server_model(spec: str) -> Model:
    """Build a model from a spec string.

    ``offline`` is the embedded default; until :func:`slotgraph.runtime.resolve_model` knows it, it is built
    here directly from :mod:`slotgraph.models.offline`.
    """
    try:
        return resolve_model(spec)
    except ModelNotAvailableError:
        if spec.strip() != "offline":
            raise
    from slotgraph.models.offline import OfflineModel

    return OfflineModel()


def hosted(
    agent: Agent, model: Model | str | None = None, *, description: str = "", mermaid: str = ""
) -> HostedAgent:
    """Host an agent built in Python (``Agent.from_config``); ``model`` is a :class:`Model` or a
    ``"provider:model"`` spec, by default the agent's own."""
    chosen = (
        resolve_server_model(model) if isinstance(model, str) else model if model is not None else agent.model
    )
    if chosen is None:
        chosen = resolve_server_model(agent.model_spec or "offline")
    return HostedAgent(agent=agent, model=chosen, description=description, mermaid=mermaid)


def _load_one(path: str | os.PathLike[str], model: Model | str | None) -> HostedAgent:
    where = os.fspath(path)
    try:
        agent = load_agent(path, model=model)  # given (--model): every agent of an app uses it
        app_description: str | None = None
        mermaids: dict[str, str] = {}
        if agent.team is not None:  # an app: the root's definition draws the picture, each agent its own
            app_description = read_app(path)[0].description
            definitions = app_definitions(path)
            definition = next(d for d in definitions if d.agent is not None and d.agent.name == agent.name)
            mermaids = {d.agent.name: render_mermaid(d.dag) for d in definitions if d.agent is not None}
        else:
            definitions = [load_definition(path)]
            definition = definitions[0]
        topic_mermaids = {
            d.agent.name: {t: _mermaid_of(raw) for t, raw in d.topic_dags.items()}
            for d in definitions
            if d.agent is not None and d.topic_dags
        }
    except ConfigValidationError as err:
        issues = "; ".join(str(issue) for issue in err.issues[:5])
        raise ServerConfigError(
            f"{where}: invalid agent ({issues})", fix=f"run `slotgraph validate {where}`"
        ) from None
    except ModelNotAvailableError as err:  # the model given with --model
        raise ServerConfigError(f"{where}: {err}", fix="pass --model with a model you can use") from None
    except (ConfigError, SlotgraphError) as err:
        raise ServerConfigError(f"{where}: cannot load the agent ({err})") from None
    spec = model if isinstance(model, str) else (agent.model_spec or "offline")
    try:
        resolved = agent.model if agent.model is not None else resolve_server_model(spec)
        for member in agent.team or ():  # an app's agents with a model of their own: built at start-up
            member.model_in_team(resolved)
    except SlotgraphError as err:
        raise ServerConfigError(f"{where}: {err}", fix="pass --model with a model you can use") from None
    description = (definition.agent.description or "") if definition.agent is not None else ""
    if app_description is not None:
        description = app_description
    return HostedAgent(
        agent=agent,
        model=resolved,
        description=description,
        mermaid=render_mermaid(definition.dag),
        mermaids=mermaids,
        topic_mermaids=topic_mermaids,
    )


def _mermaid_of(raw_dag: Mapping[str, Any]) -> str:
    return render_mermaid(DagConfig.model_validate(raw_dag))


def load_hosted_agents(
    paths: Iterable[str | os.PathLike[str]], *, model: Model | str | None = None
) -> Sequence[HostedAgent]:
    """Load every agent path; refuse duplicate names and an empty list."""
    agents = [_load_one(path, model) for path in paths]
    if not agents:
        raise ServerConfigError("no agents to serve", fix="pass one or more agent directories")
    check_unique(agents)
    return tuple(agents)


def check_unique(agents: Sequence[HostedAgent]) -> None:
    """Raise when two hosted agents share a name (the API addresses agents by name)."""
    seen: set[str] = set()
    for item in agents:
        if item.name in seen:
            raise ServerConfigError(
                f"two agents are named {item.name!r}", fix="give each agent a unique `name` in its agent.yaml"
            )
        seen.add(item.name)
