"""``app.yaml``: a multi-agent app — its agents (each an agent directory), its root, and how they route."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from slotgraph.config.agent import APP_FILE
from slotgraph.config.extensions import drop_extension_keys

__all__ = ["APP_FILE", "AppAgentEntry", "AppConfig", "RoutingConfig"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AppAgentEntry(_Strict):
    """One agent of the app."""

    path: str | None = Field(default=None, min_length=1)
    """The agent's directory (holding its agent.yaml), relative to the app file."""
    agent: dict[str, Any] | None = None
    """The agent written inline instead: what its agent.yaml would hold (its relative paths — dag, tools,
    instruction_file — start from the app file's directory)."""
    description: str | None = Field(default=None, min_length=1)
    """When to hand the conversation to this agent (what routing tools tell the model); default: the
    agent's own `description`."""
    handoffs: list[str] = Field(default_factory=list)
    """Agents (by name) this agent may hand the conversation to: it gets a `transfer_to_agent` tool whose
    `agent` parameter enumerates them with their descriptions."""

    @model_validator(mode="after")
    def _path_or_inline(self) -> AppAgentEntry:
        if (self.path is None) == (self.agent is None):
            raise ValueError(
                "an agent of the app has exactly one of 'path' (a directory) or 'agent' (inline)"
            )
        return self


class RoutingConfig(_Strict):
    """A tool of the agents' own whose result's `target_agent` hands the conversation over (a platform
    app's routing tool, such as `set_active_flow`): its parameter is advertised as an enumeration."""

    tool: str = Field(min_length=1)
    """The tool's name (a tool of one or more agents of the app)."""
    param: str = Field(min_length=1)
    """The parameter that chooses the target."""
    values: dict[str, str] = Field(min_length=1)
    """The parameter's values → the agent each one leads to."""


class AppConfig(_Strict):
    """``app.yaml``."""

    name: str = Field(min_length=1)
    """The app's name: what the server lists and sessions are created with."""
    description: str | None = None
    """One line about what the app does."""
    root: str = Field(min_length=1)
    """The agent (by name) every conversation starts with."""
    agents: list[AppAgentEntry] = Field(min_length=1)
    """The app's agents."""
    routing: list[RoutingConfig] = Field(default_factory=list)
    """Tools of the agents whose `target_agent` result routes (see RoutingConfig)."""

    @model_validator(mode="before")
    @classmethod
    def _strip_extensions(cls, data: Any) -> Any:
        return drop_extension_keys(data)
