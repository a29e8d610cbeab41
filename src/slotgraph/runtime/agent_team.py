"""Several agents in one conversation: the team of a multi-agent app and each agent's parked state.

An :class:`AgentTeam` is the runtime's view of a multi-agent app (``slotgraph.apps`` builds it from
``app.yaml``): its agents by name and its root, the agent a session starts with. Every agent of a team
carries the team (``Agent.team``), so ``agent.session()`` on the root starts a team session.

A tool result whose ``target_agent`` names another agent of the team hands the conversation over to it
within the same turn (an :class:`~slotgraph.runtime.events.AgentTransferEvent`); the agent that receives it
plays the rest of the turn on the same user message. The session record keeps the active agent's state in
``sm`` (and its logic record) and every other agent's under ``agents`` (:class:`ParkedAgents`), so an
agent's DAG keeps what it collected while the conversation is elsewhere and resumes it on return.

:func:`routing_schema` advertises a routing tool: its parameter enumerates the targets, each described on a
line (``- `takeout`: Order food to pick up``) — how a model, and the offline model, learns where to go.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from slotgraph.logic import LogicRecord
from slotgraph.models.protocol import ToolSchema

if TYPE_CHECKING:
    from slotgraph.runtime.agent import Agent

__all__ = [
    "ACTIVE_KEY",
    "AGENTS_KEY",
    "MAX_TRANSFERS_PER_TURN",
    "TRANSFER_TOOL",
    "AgentTeam",
    "ParkedAgent",
    "ParkedAgents",
    "routing_schema",
]

TRANSFER_TOOL: Final = "transfer_to_agent"
"""The built-in tool an app gives an agent with ``handoffs``: ``transfer_to_agent(agent=...)``."""

ACTIVE_KEY: Final = "agent"
"""The session record's key of the active agent's name (multi-agent apps only)."""

AGENTS_KEY: Final = "agents"
"""The session record's key of the parked agents' states (:class:`ParkedAgents`)."""

MAX_TRANSFERS_PER_TURN: Final = 3
"""Transfers one turn may make before the runtime stops bouncing (A → B → A …) with an error event."""


class AgentTeam:
    """The agents of a multi-agent app by name, and the root a session starts with."""

    def __init__(self, name: str, root: str) -> None:
        self.name = name
        self.root = root
        self._agents: dict[str, Agent] = {}

    def add(self, agent: Agent) -> None:
        self._agents[agent.name] = agent

    def get(self, name: str) -> Agent | None:
        return self._agents.get(name)

    def __getitem__(self, name: str) -> Agent:
        return self._agents[name]

    def __contains__(self, name: object) -> bool:
        return name in self._agents

    def __iter__(self) -> Iterator[Agent]:
        return iter(self._agents.values())

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self._agents)

    @property
    def root_agent(self) -> Agent:
        return self._agents[self.root]

    def __repr__(self) -> str:
        return f"AgentTeam({self.name!r}, root={self.root!r}, agents={sorted(self._agents)})"


@dataclass(frozen=True, slots=True)
class ParkedAgent:
    """The state of an agent the conversation is not with: its slot-filling state and its logic record."""

    sm: Mapping[str, Any] = field(default_factory=dict)
    logic: LogicRecord = field(default_factory=LogicRecord)

    def to_json(self) -> dict[str, Any]:
        return {"sm": dict(self.sm), "logic": self.logic.to_json()}


@dataclass(frozen=True, slots=True)
class ParkedAgents:
    """The record's ``agents`` part: every agent of the team but the active one, by name."""

    agents: Mapping[str, ParkedAgent] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {name: parked.to_json() for name, parked in self.agents.items()}

    @classmethod
    def from_json(cls, data: Any, team: AgentTeam) -> ParkedAgents:
        """Read a stored ``agents`` part; ``ValueError`` says what is wrong (never a guess)."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise ValueError(f"'agents' must be an object, got {type(data).__name__}")
        out: dict[str, ParkedAgent] = {}
        for name, part in data.items():
            if name not in team:
                raise ValueError(f"'agents' names {name!r}, which is not an agent of the app {team.name!r}")
            if not isinstance(part, Mapping) or not isinstance(part.get("sm"), Mapping):
                raise ValueError(f"'agents.{name}' must be an object with an 'sm' object")
            try:
                logic = LogicRecord.from_json(part.get("logic"))
            except ValueError as err:
                raise ValueError(f"'agents.{name}': {err}") from None
            out[name] = ParkedAgent(dict(part["sm"]), logic)
        return cls(out)


def routing_schema(base: ToolSchema, param: str, targets: Mapping[str, str]) -> ToolSchema:
    """``base`` with ``param`` a string enumerating ``targets`` (value → when to choose it)."""
    lines = "\n".join(f"- `{value}`: {description}" for value, description in targets.items())
    parameters = dict(base.parameters)
    properties = dict(parameters.get("properties") or {})
    properties[param] = {
        "type": "string",
        "enum": list(targets),
        "description": f"Where to hand the conversation. One of:\n{lines}",
    }
    parameters["properties"] = properties
    return ToolSchema(base.name, base.description, parameters)
