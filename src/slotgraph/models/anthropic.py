"""``AnthropicModel``: Claude through the Anthropic Messages API over a thin ``httpx`` client.

``POST {base_url}/v1/messages`` with the key in ``x-api-key`` and ``anthropic-version``. The wire mapping
lives in :mod:`slotgraph.models.anthropic_wire`; the HTTP, the retries and the error mapping are those of
every HTTP backend (:class:`~slotgraph.models.hosted.HTTPModel`), as for :mod:`slotgraph.models.openai`:

- 429, 5xx (including Anthropic's 529 "overloaded"), timeouts and refused connections are retried with
  exponential backoff and jitter (:class:`~slotgraph.models.retry.RetryPolicy`), honouring ``Retry-After``;
  then the last error is raised (:class:`ModelRateLimitError`, :class:`ModelAPIError`,
  :class:`ModelTimeoutError`, :class:`ModelConnectionError`);
- 401/403 raise :class:`ModelAuthError` naming ``ANTHROPIC_API_KEY``; 404 raises
  :class:`ModelNotFoundError`; other 4xx raise :class:`ModelAPIError` with the server's message
  (``{"error": {"type", "message"}}``); a body that is not the protocol raises :class:`ModelResponseError`.
  None of these is retried.

The official ``anthropic`` SDK is not used: it brings its own retry loop (which would double ours) and nothing
the Messages API needs beyond one POST, and ``httpx`` is already what the OpenAI backend uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from slotgraph.models.anthropic_wire import request_body, response_from_body
from slotgraph.models.hosted import HTTPModel
from slotgraph.models.protocol import ModelRequest, ModelResponse

__all__ = ["ANTHROPIC_VERSION", "DEFAULT_ANTHROPIC_BASE_URL", "AnthropicModel"]

DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"


class AnthropicModel(HTTPModel):
    """A Claude model behind the Anthropic Messages API (or a server speaking it)."""

    path = "/v1/messages"
    default_base_url = DEFAULT_ANTHROPIC_BASE_URL
    default_key_env = "ANTHROPIC_API_KEY"
    default_provider = "anthropic"
    extra = "anthropic"
    model_hint = "e.g. 'claude-sonnet-4-5', see the provider's model list"
    not_json_hint = "is the base URL the Anthropic API (without /v1)?"
    connect_hint = "check ANTHROPIC_BASE_URL and the network"
    typed_messages = True
    protocol_headers: ClassVar[Mapping[str, str]] = {"anthropic-version": ANTHROPIC_VERSION}

    def _body(self, request: ModelRequest) -> dict[str, Any]:
        return request_body(request, self.model, self._extra_body)

    def _key_headers(self, api_key: str) -> dict[str, str]:
        return {"x-api-key": api_key}

    def _response(self, payload: Any, request: ModelRequest) -> ModelResponse:
        return response_from_body(payload, where=self._where)
