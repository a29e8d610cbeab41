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
:class:`ProviderRegistry` registers more. See ``docs/models.md``.

The package exports what the modules of :data:`_MODULES` export (their ``__all__``), imported on first use
(PEP 562): a name is looked up in those modules in order, importing each only when needed, so importing the
protocol does not load the registry.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_MODULES: tuple[str, ...] = (
    "slotgraph.models.errors",
    "slotgraph.models.protocol",
    "slotgraph.models.scripted",
    "slotgraph.models.registry",
    "slotgraph.models.retry",
)
"""The modules whose ``__all__`` the package re-exports, cheapest first."""

if TYPE_CHECKING:  # pragma: no cover - the same names, spelled out for type checkers and IDEs
    from slotgraph.models.errors import MissingCredentialsError as MissingCredentialsError
    from slotgraph.models.errors import MissingDependencyError as MissingDependencyError
    from slotgraph.models.errors import ModelAPIError as ModelAPIError
    from slotgraph.models.errors import ModelAuthError as ModelAuthError
    from slotgraph.models.errors import ModelConnectionError as ModelConnectionError
    from slotgraph.models.errors import ModelError as ModelError
    from slotgraph.models.errors import ModelNotAvailableError as ModelNotAvailableError
    from slotgraph.models.errors import ModelNotFoundError as ModelNotFoundError
    from slotgraph.models.errors import ModelRateLimitError as ModelRateLimitError
    from slotgraph.models.errors import ModelResponseError as ModelResponseError
    from slotgraph.models.errors import ModelSpecError as ModelSpecError
    from slotgraph.models.errors import ModelTimeoutError as ModelTimeoutError
    from slotgraph.models.errors import ScriptedModelError as ScriptedModelError
    from slotgraph.models.errors import UnknownProviderError as UnknownProviderError
    from slotgraph.models.protocol import AssistantText as AssistantText
    from slotgraph.models.protocol import AssistantToolCalls as AssistantToolCalls
    from slotgraph.models.protocol import Message as Message
    from slotgraph.models.protocol import Model as Model
    from slotgraph.models.protocol import ModelRequest as ModelRequest
    from slotgraph.models.protocol import ModelResponse as ModelResponse
    from slotgraph.models.protocol import ToolCall as ToolCall
    from slotgraph.models.protocol import ToolResultMessage as ToolResultMessage
    from slotgraph.models.protocol import ToolSchema as ToolSchema
    from slotgraph.models.protocol import Usage as Usage
    from slotgraph.models.protocol import UserMessage as UserMessage
    from slotgraph.models.registry import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP
    from slotgraph.models.registry import ModelFactory as ModelFactory
    from slotgraph.models.registry import ProviderInfo as ProviderInfo
    from slotgraph.models.registry import ProviderRegistry as ProviderRegistry
    from slotgraph.models.registry import default_registry as default_registry
    from slotgraph.models.registry import resolve as resolve
    from slotgraph.models.retry import RetryableError as RetryableError
    from slotgraph.models.retry import RetryPolicy as RetryPolicy
    from slotgraph.models.retry import Sleep as Sleep
    from slotgraph.models.retry import call_with_retries as call_with_retries
    from slotgraph.models.retry import parse_retry_after as parse_retry_after
    from slotgraph.models.scripted import ScriptedModel as ScriptedModel
    from slotgraph.models.scripted import ScriptedStep as ScriptedStep
    from slotgraph.models.scripted import call as call
    from slotgraph.models.scripted import estimate_prompt_tokens as estimate_prompt_tokens
    from slotgraph.models.scripted import render_request as render_request


def _exports() -> dict[str, str]:
    """Every exported name and its module: the ``__all__`` of each module of :data:`_MODULES` (imports them
    all; used for ``__all__`` and ``dir()``)."""
    exports: dict[str, str] = {}
    for module in _MODULES:
        for name in importlib.import_module(module).__all__:
            exports.setdefault(name, module)
    return exports


def __dir__() -> list[str]:
    return sorted({*_exports(), *(n for n in globals() if n.startswith("__") and n.endswith("__"))})


def __getattr__(name: str) -> Any:
    if name.startswith("_") and name != "__all__":  # probes such as __wrapped__ import nothing
        raise AttributeError(f"module 'slotgraph.models' has no attribute {name!r}")
    if name == "__all__":
        value: Any = sorted(_exports())
    else:
        for module_name in _MODULES:
            module = importlib.import_module(module_name)
            if name in module.__all__:
                value = getattr(module, name)
                break
        else:
            raise AttributeError(f"module 'slotgraph.models' has no attribute {name!r}")
    globals()[name] = value
    return value
