"""``OpenAIChatModel``: OpenAI chat completions over a thin ``httpx`` client.

It reaches OpenAI and any server speaking the same protocol (vLLM, Ollama, llama.cpp server, LM Studio):
``POST {base_url}/chat/completions`` with a bearer key when there is one. The wire mapping lives in
:mod:`slotgraph.models.openai_wire`; the HTTP, the retries and the error mapping are those of every HTTP
backend (:class:`~slotgraph.models.hosted.HTTPModel`):

- 429, 5xx, timeouts and refused connections are retried with exponential backoff and jitter
  (:class:`~slotgraph.models.retry.RetryPolicy`), honouring ``Retry-After``; then the last error is raised
  (:class:`ModelRateLimitError`, :class:`ModelAPIError`, :class:`ModelTimeoutError`,
  :class:`ModelConnectionError`);
- 401/403 raise :class:`ModelAuthError` naming the key's environment variable; 404 raises
  :class:`ModelNotFoundError`; other 4xx raise :class:`ModelAPIError` with the server's message; a body that
  is not the protocol raises :class:`ModelResponseError`. None of these is retried.
"""

from __future__ import annotations

from typing import Any

from slotgraph.models._wire import calls_so_far
from slotgraph.models.hosted import HTTPModel
from slotgraph.models.openai_wire import request_body, response_from_body
from slotgraph.models.protocol import ModelRequest, ModelResponse

__all__ = ["DEFAULT_OPENAI_BASE_URL", "OpenAIChatModel"]

DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"


class OpenAIChatModel(HTTPModel):
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    ``provider`` names the backend in errors and traces (``openai-compatible`` for another server).
    """

    path = "/chat/completions"
    default_base_url = DEFAULT_OPENAI_BASE_URL
    default_key_env = "OPENAI_API_KEY"
    default_provider = "openai"
    extra = "openai"
    model_hint = "the server lists its models under /models"
    not_json_hint = "is the base URL an OpenAI-compatible endpoint ending in /v1?"
    timeout_hint = "check that the server is not overloaded"
    connect_hint = "check the base URL and that the server is running"

    def _body(self, request: ModelRequest) -> dict[str, Any]:
        return request_body(request, self.model, self._extra_body)

    def _key_headers(self, api_key: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {api_key}"}

    def _response(self, payload: Any, request: ModelRequest) -> ModelResponse:
        return response_from_body(payload, where=self._where, call_offset=calls_so_far(request))
