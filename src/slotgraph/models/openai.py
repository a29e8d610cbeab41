"""``OpenAIChatModel``: OpenAI chat completions over a thin ``httpx`` client.

It reaches OpenAI and any server speaking the same protocol (vLLM, Ollama, llama.cpp server, LM Studio):
``POST {base_url}/chat/completions`` with a bearer key when there is one. The wire mapping lives in
:mod:`slotgraph.models.openai_wire`; this module does the HTTP, the retries and the error mapping:

- 429, 5xx, timeouts and refused connections are retried with exponential backoff and jitter
  (:class:`~slotgraph.models.retry.RetryPolicy`), honouring ``Retry-After``; then the last error is raised
  (:class:`ModelRateLimitError`, :class:`ModelAPIError`, :class:`ModelTimeoutError`,
  :class:`ModelConnectionError`);
- 401/403 raise :class:`ModelAuthError` naming the key's environment variable; 404 raises
  :class:`ModelNotFoundError`; other 4xx raise :class:`ModelAPIError` with the server's message; a body that
  is not the protocol raises :class:`ModelResponseError`. None of these is retried.

A client is opened per call, so one model object serves sessions on any event loop (``session.send`` runs
each turn in its own loop). ``transport`` lets tests plug an ``httpx`` transport; ``sleep`` and ``random``
make the backoff observable without waiting.
"""

from __future__ import annotations

import asyncio
import random as _random
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from slotgraph.models.errors import (
    MissingDependencyError,
    ModelConnectionError,
    ModelResponseError,
    ModelTimeoutError,
)
from slotgraph.models.http_status import raise_for_status
from slotgraph.models.openai_wire import request_body, response_from_body
from slotgraph.models.protocol import AssistantToolCalls, ModelRequest, ModelResponse
from slotgraph.models.retry import RetryableError, RetryPolicy, Sleep, call_with_retries

if TYPE_CHECKING:
    import httpx

__all__ = ["DEFAULT_OPENAI_BASE_URL", "OpenAIChatModel"]

DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"


def _import_httpx() -> Any:
    try:
        import httpx
    except ImportError:
        raise MissingDependencyError(
            "the OpenAI backend needs httpx, which is not installed; install it with: "
            "pip install 'slotgraph[openai]'"
        ) from None
    return httpx


class OpenAIChatModel:
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str = DEFAULT_OPENAI_BASE_URL,
        api_key: str | None = None,
        key_env: str = "OPENAI_API_KEY",
        provider: str = "openai",
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        extra_body: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep = asyncio.sleep,
        random: Callable[[], float] = _random.random,
    ) -> None:
        self._httpx = _import_httpx()
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.provider = provider
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self._api_key = api_key
        self._key_env = key_env
        self._extra_body = dict(extra_body or {})
        self._headers = dict(headers or {})
        self._transport = transport
        self._sleep = sleep
        self._random = random

    def __repr__(self) -> str:
        return f"OpenAIChatModel({self.model!r}, base_url={self.base_url!r}, provider={self.provider!r})"

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    @property
    def _where(self) -> str:
        return f"{self.provider} model {self.model!r} at {self.url}"

    async def generate(self, request: ModelRequest) -> ModelResponse:
        body = request_body(request, self.model, self._extra_body)
        headers = {"Content-Type": "application/json", **self._headers}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        offset = sum(len(m.calls) for m in request.messages if isinstance(m, AssistantToolCalls))
        async with self._httpx.AsyncClient(
            timeout=self._httpx.Timeout(self.timeout), transport=self._transport
        ) as client:

            async def attempt() -> ModelResponse:
                return await self._attempt(client, body, headers, offset)

            return await call_with_retries(attempt, self.retry, sleep=self._sleep, random=self._random)

    async def _attempt(
        self, client: httpx.AsyncClient, body: dict[str, Any], headers: dict[str, str], offset: int
    ) -> ModelResponse:
        httpx = self._httpx
        attempts = self.retry.max_retries + 1
        try:
            async with asyncio.timeout(self.timeout):  # the whole answer, not each read: a trickle ends too
                response = await client.post(self.url, json=body, headers=headers)
        except (httpx.TimeoutException, TimeoutError) as err:
            raise RetryableError(
                ModelTimeoutError(
                    f"{self._where}: no answer within {self.timeout:g}s ({attempts} attempts); raise "
                    "SLOTGRAPH_MODEL_TIMEOUT or check that the server is not overloaded"
                )
            ) from err
        except httpx.TransportError as err:
            raise RetryableError(
                ModelConnectionError(
                    f"{self._where}: cannot connect ({type(err).__name__}: {err}; {attempts} attempts); "
                    "check the base URL and that the server is running"
                )
            ) from err
        if response.status_code >= 400:
            self._raise_for_status(response, attempts)
        try:
            payload = response.json()
        except (ValueError, RecursionError):  # not JSON, or nested too deeply to read
            raise ModelResponseError(
                f"{self._where}: the response is not JSON (HTTP {response.status_code}): "
                f"{response.text[:300]!r}; is the base URL an OpenAI-compatible endpoint ending in /v1?"
            ) from None
        return response_from_body(payload, where=self._where, call_offset=offset)

    def _raise_for_status(self, response: httpx.Response, attempts: int) -> None:
        raise_for_status(
            response,
            where=self._where,
            attempts=attempts,
            key_sent=bool(self._api_key),
            key_env=self._key_env,
            model_hint="the server lists its models under /models",
        )
