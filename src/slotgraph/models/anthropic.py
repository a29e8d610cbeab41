"""``AnthropicModel``: Claude through the Anthropic Messages API over a thin ``httpx`` client.

``POST {base_url}/v1/messages`` with the key in ``x-api-key`` and ``anthropic-version``. The wire mapping
lives in :mod:`slotgraph.models.anthropic_wire`; this module does the HTTP, the retries and the error
mapping, exactly like :mod:`slotgraph.models.openai`:

- 429, 5xx (including Anthropic's 529 "overloaded"), timeouts and refused connections are retried with
  exponential backoff and jitter (:class:`~slotgraph.models.retry.RetryPolicy`), honouring ``Retry-After``;
  then the last error is raised (:class:`ModelRateLimitError`, :class:`ModelAPIError`,
  :class:`ModelTimeoutError`, :class:`ModelConnectionError`);
- 401/403 raise :class:`ModelAuthError` naming ``ANTHROPIC_API_KEY``; 404 raises
  :class:`ModelNotFoundError`; other 4xx raise :class:`ModelAPIError` with the server's message
  (``{"error": {"type", "message"}}``); a body that is not the protocol raises :class:`ModelResponseError`.
  None of these is retried.

The official ``anthropic`` SDK is not used: it brings its own retry loop (which would double ours) and nothing
the Messages API needs beyond one POST, and ``httpx`` is already what the OpenAI backend uses. A client is
opened per call, so one model object serves sessions on any event loop.
"""

from __future__ import annotations

import asyncio
import random as _random
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from slotgraph.models.anthropic_wire import request_body, response_from_body
from slotgraph.models.errors import (
    MissingDependencyError,
    ModelConnectionError,
    ModelResponseError,
    ModelTimeoutError,
)
from slotgraph.models.http_status import raise_for_status
from slotgraph.models.protocol import ModelRequest, ModelResponse
from slotgraph.models.retry import RetryableError, RetryPolicy, Sleep, call_with_retries

if TYPE_CHECKING:
    import httpx

__all__ = ["ANTHROPIC_VERSION", "DEFAULT_ANTHROPIC_BASE_URL", "AnthropicModel"]

DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"


def _import_httpx() -> Any:
    try:
        import httpx
    except ImportError:
        raise MissingDependencyError(
            "the Anthropic backend needs httpx, which is not installed; install it with: "
            "pip install 'slotgraph[anthropic]'"
        ) from None
    return httpx


class AnthropicModel:
    """A Claude model behind the Anthropic Messages API (or a server speaking it)."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str = DEFAULT_ANTHROPIC_BASE_URL,
        api_key: str | None = None,
        key_env: str = "ANTHROPIC_API_KEY",
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
        self.provider = "anthropic"
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
        return f"AnthropicModel({self.model!r}, base_url={self.base_url!r})"

    @property
    def url(self) -> str:
        return f"{self.base_url}/v1/messages"

    @property
    def _where(self) -> str:
        return f"anthropic model {self.model!r} at {self.url}"

    async def generate(self, request: ModelRequest) -> ModelResponse:
        body = request_body(request, self.model, self._extra_body)
        headers = {
            "Content-Type": "application/json",
            "anthropic-version": ANTHROPIC_VERSION,
            **self._headers,
        }
        if self._api_key:
            headers["x-api-key"] = self._api_key
        async with self._httpx.AsyncClient(
            timeout=self._httpx.Timeout(self.timeout), transport=self._transport
        ) as client:

            async def attempt() -> ModelResponse:
                return await self._attempt(client, body, headers)

            return await call_with_retries(attempt, self.retry, sleep=self._sleep, random=self._random)

    async def _attempt(
        self, client: httpx.AsyncClient, body: dict[str, Any], headers: dict[str, str]
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
                    "SLOTGRAPH_MODEL_TIMEOUT or try again later"
                )
            ) from err
        except httpx.TransportError as err:
            raise RetryableError(
                ModelConnectionError(
                    f"{self._where}: cannot connect ({type(err).__name__}: {err}; {attempts} attempts); "
                    "check ANTHROPIC_BASE_URL and the network"
                )
            ) from err
        if response.status_code >= 400:
            self._raise_for_status(response, attempts)
        try:
            payload = response.json()
        except (ValueError, RecursionError):  # not JSON, or nested too deeply to read
            raise ModelResponseError(
                f"{self._where}: the response is not JSON (HTTP {response.status_code}): "
                f"{response.text[:300]!r}; is the base URL the Anthropic API (without /v1)?"
            ) from None
        return response_from_body(payload, where=self._where)

    def _raise_for_status(self, response: httpx.Response, attempts: int) -> None:
        raise_for_status(
            response,
            where=self._where,
            attempts=attempts,
            key_sent=bool(self._api_key),
            key_env=self._key_env,
            model_hint="e.g. 'claude-sonnet-4-5', see the provider's model list",
            typed_messages=True,
        )
