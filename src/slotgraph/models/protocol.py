"""The model protocol: what the runtime sends a language model and what it gets back.

It lives in :mod:`slotgraph.models` beside the backends that implement it, so no backend imports the
runtime; :mod:`slotgraph.runtime` and :mod:`slotgraph` re-export every name.

A backend implements one coroutine, :meth:`Model.generate`. The request carries the system instruction (the
agent's instruction plus the framework's phase suffix), the conversation so far, and ONLY the tools the engine
left visible for this call; the response carries text and/or tool calls and token usage. All values are
frozen dataclasses: the runtime builds a new request for every model call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = [
    "AssistantText",
    "AssistantToolCalls",
    "Message",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "ToolCall",
    "ToolResultMessage",
    "ToolSchema",
    "Usage",
    "UserMessage",
]


@dataclass(frozen=True, slots=True)
class ToolSchema:
    """A tool as the model sees it: a name, a description and a JSON Schema of its parameters."""

    name: str
    description: str
    parameters: Mapping[str, Any]

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": dict(self.parameters)}


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call: an id (unique within the conversation), the tool name and its arguments."""

    id: str
    name: str
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage of one model call (or a sum of them)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens
        )

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True, slots=True)
class UserMessage:
    """What the person said. ``text`` is empty for an event turn (e.g. a welcome event)."""

    text: str
    event: str | None = None
    role: Literal["user"] = "user"


@dataclass(frozen=True, slots=True)
class AssistantText:
    """Text the agent said (from the model, or from the engine on a preempted call)."""

    text: str
    role: Literal["assistant"] = "assistant"


@dataclass(frozen=True, slots=True)
class AssistantToolCalls:
    """Tool calls the agent made (from the model, or the engine's ``function_call``)."""

    calls: tuple[ToolCall, ...]
    role: Literal["assistant"] = "assistant"


@dataclass(frozen=True, slots=True)
class ToolResultMessage:
    """The result of one tool call, answering the call with the same id."""

    call_id: str
    name: str
    result: Any
    role: Literal["tool"] = "tool"


Message = UserMessage | AssistantText | AssistantToolCalls | ToolResultMessage


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """Everything a model needs for one call."""

    system_instruction: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSchema, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def tool_names(self) -> tuple[str, ...]:
        return tuple(tool.name for tool in self.tools)


@dataclass(frozen=True, slots=True)
class ModelResponse:
    """What a model answered: text and/or tool calls."""

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    no_call_reason: str | None = None
    """Why the model called no tool on the person's message, when it can say (a diagnostic for authors,
    emitted as a ``model_no_call`` event; never shown to the person)."""


@runtime_checkable
class Model(Protocol):
    """A language model backend."""

    async def generate(self, request: ModelRequest) -> ModelResponse: ...
