"""Model backends behind the runtime's model protocol, chosen by a ``"provider:model"`` string.

::

    from slotgraph.models import resolve

    model = resolve("openai:gpt-4o-mini")          # OPENAI_API_KEY from the environment
    model = resolve("openai-compatible:http://localhost:8080/v1#qwen2.5")
    model = resolve("gemini:gemini-2.5-flash")     # GEMINI_API_KEY or GOOGLE_API_KEY
    model = resolve("offline")                     # the embedded default

Backends are imported only when a spec names them (:mod:`slotgraph.models.openai`,
:mod:`slotgraph.models.gemini`, :mod:`slotgraph.models.offline`); :class:`ProviderRegistry` registers more.
See ``docs/models.md``.
"""

from slotgraph.models.errors import (
    MissingCredentialsError,
    MissingDependencyError,
    ModelAPIError,
    ModelAuthError,
    ModelConnectionError,
    ModelError,
    ModelNotFoundError,
    ModelRateLimitError,
    ModelResponseError,
    ModelSpecError,
    ModelTimeoutError,
    UnknownProviderError,
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

__all__ = [
    "ENTRY_POINT_GROUP",
    "MissingCredentialsError",
    "MissingDependencyError",
    "ModelAPIError",
    "ModelAuthError",
    "ModelConnectionError",
    "ModelError",
    "ModelFactory",
    "ModelNotFoundError",
    "ModelRateLimitError",
    "ModelResponseError",
    "ModelSpecError",
    "ModelTimeoutError",
    "ProviderInfo",
    "ProviderRegistry",
    "RetryPolicy",
    "UnknownProviderError",
    "default_registry",
    "resolve",
]
