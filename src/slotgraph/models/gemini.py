"""``GeminiModel``: the Gemini API through ``google-genai``, with the same contract as the other backends.

The request and response mapping is :mod:`slotgraph.models.gemini_wire` (REST JSON); the SDK is only the
transport: its typed ``Content``/``Tool``/``GenerateContentResponse`` models are built from and dumped to that
JSON. The SDK's own retries are switched off (one attempt); ours apply, as for every hosted backend
(:class:`~slotgraph.models.hosted.HostedModel`, which maps the errors too): 429, 5xx, timeouts, refused
connections and ``MALFORMED_FUNCTION_CALL`` answers are retried with backoff and jitter.
401/403 — and Gemini's 400 "API key not valid" — raise :class:`ModelAuthError` naming ``GEMINI_API_KEY``;
404 raises :class:`ModelNotFoundError`.

A client is made per call (each ``session.send`` runs in its own event loop). ``base_url`` points the SDK at
another endpoint (the tests' loopback server, a proxy).
"""

from __future__ import annotations

import asyncio
import random as _random
from collections.abc import Callable
from typing import Any

from slotgraph.models._wire import calls_so_far
from slotgraph.models.errors import MissingDependencyError, ModelError
from slotgraph.models.gemini_wire import MalformedFunctionCall, request_body, response_from_body
from slotgraph.models.hosted import HostedModel
from slotgraph.models.protocol import ModelRequest, ModelResponse
from slotgraph.models.retry import RetryableError, RetryPolicy, Sleep, parse_retry_after

__all__ = ["GeminiModel"]

KEY_ENV = "GEMINI_API_KEY or GOOGLE_API_KEY"


def _import_genai() -> tuple[Any, Any, Any]:
    try:
        from google import genai
        from google.genai import errors, types
    except ImportError:
        raise MissingDependencyError(
            "the Gemini backend needs google-genai, which is not installed; install it with: "
            "pip install 'slotgraph[gemini]'"
        ) from None
    return genai, types, errors


def _transport_errors() -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]:
    """(timeout errors, connection errors) of the HTTP libraries google-genai may use."""
    timeouts: list[type[BaseException]] = [TimeoutError]
    connects: list[type[BaseException]] = [ConnectionError]
    for name in ("httpx", "httpx2"):
        try:
            module = __import__(name)
        except ImportError:
            continue
        timeouts.append(module.TimeoutException)
        connects.append(module.TransportError)
    return tuple(timeouts), tuple(connects)


class GeminiModel(HostedModel):
    """A Gemini model (``gemini-2.5-flash``, ...) behind the runtime's model protocol."""

    model_hint = "e.g. 'gemini:gemini-2.5-flash'"

    def __init__(
        self,
        model: str,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        sleep: Sleep = asyncio.sleep,
        random: Callable[[], float] = _random.random,
    ) -> None:
        self._genai, self._types, self._errors = _import_genai()
        super().__init__(model, timeout=timeout, retry=retry, sleep=sleep, random=random)
        self.base_url = base_url
        self._api_key = api_key
        self._key_env = KEY_ENV

    def __repr__(self) -> str:
        return f"GeminiModel({self.model!r})"

    @property
    def _where(self) -> str:
        return f"gemini model {self.model!r}" + (f" at {self.base_url}" if self.base_url else "")

    def _client(self) -> Any:
        types = self._types
        options = types.HttpOptions(
            base_url=self.base_url,
            timeout=max(1, round(self.timeout * 1000)),
            retry_options=types.HttpRetryOptions(attempts=1),
        )
        return self._genai.Client(api_key=self._api_key, http_options=options)

    def _config(self, body: dict[str, Any]) -> Any:
        types = self._types
        system = body.get("systemInstruction")
        return types.GenerateContentConfig(
            system_instruction=types.Content.model_validate(system) if system else None,
            tools=[types.Tool.model_validate(tool) for tool in body.get("tools", [])] or None,
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        )

    async def generate(self, request: ModelRequest) -> ModelResponse:
        body = request_body(request)
        contents = [self._types.Content.model_validate(c) for c in body["contents"]]
        config = self._config(body)
        offset = calls_so_far(request)
        client = self._client()
        try:

            async def attempt() -> ModelResponse:
                return await self._attempt(client, contents, config, offset)

            return await self._with_retries(attempt)
        finally:
            await client.aio.aclose()

    async def _attempt(self, client: Any, contents: list[Any], config: Any, offset: int) -> ModelResponse:
        timeouts, connects = _transport_errors()
        try:
            response = await self._answer(
                client.aio.models.generate_content(model=self.model, contents=contents, config=config),
                timeouts=timeouts,
                connects=connects,
            )
        except self._errors.APIError as err:
            raise self._api_error(err) from err
        payload = response.model_dump(mode="json", by_alias=True, exclude_none=True)
        try:
            return response_from_body(payload, where=self._where, call_offset=offset)
        except MalformedFunctionCall as err:
            raise RetryableError(err) from err

    def _api_error(self, err: Any) -> ModelError | RetryableError:
        status = int(err.code or 0)
        message = str(err.message or err)
        headers = getattr(getattr(err, "response", None), "headers", None) or {}
        return self._status_error(
            status,
            message,
            parse_retry_after(headers.get("retry-after")),
            key_sent=True,
            key_refused=status == 400 and "api key" in message.lower(),
        )
