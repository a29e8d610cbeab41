"""Compatibility re-export: the model protocol lives in :mod:`slotgraph.models.protocol`.

Import it from there (or from :mod:`slotgraph.runtime` / :mod:`slotgraph`); this module only keeps older
imports working.
"""

from slotgraph.models.protocol import (
    AssistantText,
    AssistantToolCalls,
    Message,
    Model,
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolResultMessage,
    ToolSchema,
    Usage,
    UserMessage,
)

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
