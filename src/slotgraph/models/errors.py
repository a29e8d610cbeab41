"""Errors of the model backends.

Hierarchy (every class carries a stable ``code`` and inherits :class:`slotgraph.errors.SlotgraphError`, so
``slotgraph chat`` and the server report them as messages)::

    SlotgraphError (slotgraph.errors)
    ├── ModelNotAvailableError                         a spec string names no backend we can build
    │   └── ModelSpecError                             ... because of the spec, a key or a missing SDK
    │       ├── UnknownProviderError                   "provider:" is not registered (with "did you mean")
    │       ├── MissingCredentialsError                the provider's API key variable is unset
    │       └── MissingDependencyError                 the provider's SDK is not installed (with the extra)
    ├── ScriptedModelError (also an AssertionError)    a ScriptedModel got a call it did not expect, or a
    │                                                  step of its script was not played
    └── ModelError                                     a call to a backend failed
        ├── ModelAuthError                             401/403: the key is wrong or lacks access
        ├── ModelNotFoundError                         404: no such model (or wrong base URL)
        ├── ModelTimeoutError                          no answer in time, after the retries
        ├── ModelConnectionError                       the server cannot be reached, after the retries
        ├── ModelRateLimitError                        429 after the retries
        ├── ModelResponseError                         the server answered something that is not the protocol
        └── ModelAPIError                              any other HTTP error (status and body excerpt)

Errors say what failed, where (provider, URL or model) and how to fix it, never a secret: a model error's
message is redacted (:mod:`slotgraph.redaction`).
"""

from __future__ import annotations

from slotgraph.errors import SlotgraphError
from slotgraph.redaction import redact

__all__ = [
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
]


class ModelNotAvailableError(SlotgraphError):
    """A model spec string does not name a backend this installation can build."""

    code = "model_not_available"


class ScriptedModelError(AssertionError, SlotgraphError):
    """A :class:`~slotgraph.models.scripted.ScriptedModel` got an unexpected call or was not used up."""

    code = "scripted_model_mismatch"


class ModelSpecError(ModelNotAvailableError):
    """A ``"provider:model"`` string cannot be turned into a model."""

    code = "model_spec_error"


class UnknownProviderError(ModelSpecError):
    """The spec names a provider nobody registered."""

    code = "unknown_provider"


class MissingCredentialsError(ModelSpecError):
    """The provider needs an API key and its environment variable is unset."""

    code = "missing_credentials"


class MissingDependencyError(ModelSpecError):
    """The provider's SDK is not installed; the message names the extra to install."""

    code = "missing_dependency"


class ModelError(SlotgraphError):
    """A call to a model backend failed. ``status`` is the HTTP status when there was one; ``retry_after``
    the seconds the server asked to wait (its ``Retry-After``) when it said so.

    The message is redacted (:func:`slotgraph.redaction.redact`): it quotes what the provider answered, and a
    provider's error body may repeat the API key it refused."""

    code = "model_error"

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(redact(message))
        self.status = status
        self.retry_after = retry_after

    @property
    def transient(self) -> bool:
        """Whether the same request may well succeed later: a rate limit, a timeout, an unreachable server or
        a server error (5xx) — as opposed to a wrong key, an unknown model or a broken reply."""
        if isinstance(self, ModelRateLimitError | ModelTimeoutError | ModelConnectionError):
            return True
        return isinstance(self, ModelAPIError) and self.status is not None and self.status >= 500


class ModelAuthError(ModelError):
    """The server refused the credentials (HTTP 401/403)."""

    code = "model_auth_error"


class ModelNotFoundError(ModelError):
    """The server does not know the model (HTTP 404)."""

    code = "model_not_found"


class ModelTimeoutError(ModelError):
    """The server did not answer within the timeout, on every attempt."""

    code = "model_timeout"


class ModelConnectionError(ModelError):
    """The server could not be reached, on every attempt."""

    code = "model_connection_error"


class ModelRateLimitError(ModelError):
    """The server kept answering 429 (rate limited) until the retries ran out."""

    code = "model_rate_limited"


class ModelResponseError(ModelError):
    """The server answered, but not with the protocol (not JSON, no choices, ...)."""

    code = "model_bad_response"


class ModelAPIError(ModelError):
    """Any other HTTP error from the server."""

    code = "model_api_error"
