"""The model protocol, :class:`ScriptedModel`, and the backends behind the protocol, chosen by a
``"provider:model"`` string.

::

    from slotgraph.models import resolve

    model = resolve("openai:gpt-4o-mini")          # OPENAI_API_KEY from the environment
    model = resolve("openai-compatible:http://localhost:8080/v1#qwen2.5")
    model = resolve("gemini:gemini-2.5-flash")     # GEMINI_API_KEY or GOOGLE_API_KEY
    model = resolve("offline")                     # the embedded default

The protocol (:mod:`slotgraph.models.protocol`: ``Model``, ``ModelRequest``, ``ModelResponse``, the message
types) and the test double (:mod:`slotgraph.models.scripted`: ``ScriptedModel``) live here, below the runtime:
this package never imports :mod:`slotgraph.runtime`. Backends are imported only when a spec names them
(:mod:`slotgraph.models.openai`, :mod:`slotgraph.models.gemini`, :mod:`slotgraph.models.offline`);
:class:`ProviderRegistry` registers more. The names below are imported lazily, so importing the protocol does
not load the registry. See ``docs/models.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    **dict.fromkeys(
        (
            "MissingCredentialsError",
            "MissingDependencyError",
            "ModelAPIError",
            "ModelAuthError",
            "ModelConnectionError",
            "ModelError",
            "ModelNotAvailableError",
            "ModelNotFoundError",
            "ModelRateLimitError",
            "ModelResponseError",
            "ModelSpecError",
            "ModelTimeoutError",
            "ScriptedModelError",
            "UnknownProviderError",
        ),
        "slotgraph.models.errors",
    ),
    **dict.fromkeys(
        (
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
        ),
        "slotgraph.models.protocol",
    ),
    **dict.fromkeys(
        ("ScriptedModel", "ScriptedStep", "call", "estimate_prompt_tokens", "render_request"),
        "slotgraph.models.scripted",
    ),
    **dict.fromkeys(
        (
            "ENTRY_POINT_GROUP",
            "ModelFactory",
            "ProviderInfo",
            "ProviderRegistry",
            "default_registry",
            "resolve",
        ),
        "slotgraph.models.registry",
    ),
    "RetryPolicy": "slotgraph.models.retry",
}

__all__ = [
    "ENTRY_POINT_GROUP",
    "AssistantText",
    "AssistantToolCalls",
    "Message",
    "MissingCredentialsError",
    "MissingDependencyError",
    "Model",
    "ModelAPIError",
    "ModelAuthError",
    "ModelConnectionError",
    "ModelError",
    "ModelFactory",
    "ModelNotAvailableError",
    "ModelNotFoundError",
    "ModelRateLimitError",
    "ModelRequest",
    "ModelResponse",
    "ModelResponseError",
    "ModelSpecError",
    "ModelTimeoutError",
    "ProviderInfo",
    "ProviderRegistry",
    "RetryPolicy",
    "ScriptedModel",
    "ScriptedModelError",
    "ScriptedStep",
    "ToolCall",
    "ToolResultMessage",
    "ToolSchema",
    "UnknownProviderError",
    "Usage",
    "UserMessage",
    "call",
    "default_registry",
    "estimate_prompt_tokens",
    "render_request",
    "resolve",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from slotgraph.models.errors import (
        MissingCredentialsError,
        MissingDependencyError,
        ModelAPIError,
        ModelAuthError,
        ModelConnectionError,
        ModelError,
        ModelNotAvailableError,
        ModelNotFoundError,
        ModelRateLimitError,
        ModelResponseError,
        ModelSpecError,
        ModelTimeoutError,
        ScriptedModelError,
        UnknownProviderError,
    )
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
    from slotgraph.models.registry import (
        ENTRY_POINT_GROUP,
        ModelFactory,
        ProviderInfo,
        ProviderRegistry,
        default_registry,
        resolve,
    )
    from slotgraph.models.retry import RetryPolicy
    from slotgraph.models.scripted import (
        ScriptedModel,
        ScriptedStep,
        call,
        estimate_prompt_tokens,
        render_request,
    )


def __dir__() -> list[str]:
    return sorted({*__all__, *(n for n in globals() if n.startswith("__") and n.endswith("__"))})


assert set(__all__) == set(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'slotgraph.models' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
