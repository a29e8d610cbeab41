"""What the backends of hosted models share: retries, the timeout, transport errors, HTTP status → error.

::

    HostedModel              retries with backoff (retry.py), one timeout for a whole answer, the errors of an
    ├── GeminiModel          attempt without an answer, and of an HTTP error status
    └── HTTPModel            one JSON POST per attempt with httpx; a body that is not JSON is an error
        ├── OpenAIChatModel
        └── AnthropicModel

The backends speak different wire formats (each its own ``*_wire`` module) but fail alike:

- 401/403 (and a key the server says it refused, whatever the status) raise :class:`ModelAuthError` naming
  the key's environment variable; 404 raises :class:`ModelNotFoundError` with a hint about model names;
- 429, 5xx (Anthropic's 529 "overloaded" included), timeouts and refused connections are retried,
  honouring ``Retry-After``; then :class:`ModelRateLimitError`, :class:`ModelAPIError`,
  :class:`ModelTimeoutError` or :class:`ModelConnectionError` is raised;
- any other status raises :class:`ModelAPIError` with the server's own message.

Error messages are redacted by :class:`~slotgraph.models.errors.ModelError` itself. A client is opened per
call, so one model object serves sessions on any event loop; ``transport`` plugs an ``httpx`` transport,
``sleep`` and ``random`` make the backoff observable without waiting.
"""

from __future__ import annotations

import asyncio
import json
import random as _random
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from slotgraph.models.errors import (
    MissingDependencyError,
    ModelAPIError,
    ModelAuthError,
    ModelConnectionError,
    ModelError,
    ModelNotFoundError,
    ModelRateLimitError,
    ModelResponseError,
    ModelTimeoutError,
)
from slotgraph.models.protocol import ModelRequest, ModelResponse
from slotgraph.models.retry import RetryableError, RetryPolicy, Sleep, call_with_retries, parse_retry_after

if TYPE_CHECKING:
    import httpx

__all__ = ["HTTPModel", "HostedModel"]

T = TypeVar("T")
Errors = tuple[type[BaseException], ...]


class HostedModel(ABC):
    """A model behind a hosted API: attempts retried by :attr:`retry`, each bounded by :attr:`timeout`.

    The hints end error messages: ``timeout_hint`` a timeout's (after "raise SLOTGRAPH_MODEL_TIMEOUT or"),
    ``connect_hint`` a refused connection's, ``model_hint`` (how model names look) a 404's; ``_key_env``
    is the variable a refused key's message tells the user to set.
    """

    timeout_hint: ClassVar[str] = "try again later"
    connect_hint: ClassVar[str] = "check the network"
    model_hint: ClassVar[str]
    _key_env: str

    def __init__(
        self,
        model: str,
        *,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        sleep: Sleep = asyncio.sleep,
        random: Callable[[], float] = _random.random,
    ) -> None:
        self.model = model
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._random = random

    @property
    @abstractmethod
    def _where(self) -> str:
        """The model and the server, as error messages name them."""

    @property
    def _attempts(self) -> int:
        return self.retry.max_retries + 1

    async def _with_retries(self, attempt: Callable[[], Awaitable[T]]) -> T:
        return await call_with_retries(attempt, self.retry, sleep=self._sleep, random=self._random)

    def _status_error(
        self,
        status: int,
        message: str,
        retry_after: float | None,
        *,
        key_sent: bool,
        key_refused: bool = False,
    ) -> ModelError | RetryableError:
        """The error of an answer with HTTP ``status`` and the server's ``message`` (see the module
        docstring); ``key_refused``: the server said the key is wrong whatever the status (Gemini's 400)."""
        where = self._where
        if status in (401, 403) or key_refused:
            sent = "the API key was refused" if key_sent else "no API key was sent"
            return ModelAuthError(
                f"{where}: HTTP {status}, {sent} ({message}); set {self._key_env} to a valid key "
                "with access to this model",
                status=status,
            )
        if status == 404:
            return ModelNotFoundError(
                f"{where}: HTTP 404 ({message}); check the model name ({self.model_hint}) and the base URL",
                status=status,
            )
        if status == 429:
            return RetryableError(
                ModelRateLimitError(
                    f"{where}: rate limited (HTTP 429: {message}) on all {self._attempts} attempts; "
                    "wait, lower the request rate, check the quota, or raise SLOTGRAPH_MODEL_MAX_RETRIES",
                    status=status,
                ),
                retry_after,
            )
        error = ModelAPIError(f"{where}: HTTP {status}: {message}", status=status)
        return RetryableError(error, retry_after) if status >= 500 else error

    async def _answer(self, call: Awaitable[T], *, timeouts: Errors, connects: Errors) -> T:
        """``call``'s result within :attr:`timeout` — the whole answer, not each read, so a server trickling
        its answer is cut too. A timeout (one of ``timeouts``) or a failed connection (one of ``connects``)
        raises :class:`RetryableError`."""
        try:
            async with asyncio.timeout(self.timeout):
                return await call
        except timeouts as err:
            raise RetryableError(
                ModelTimeoutError(
                    f"{self._where}: no answer within {self.timeout:g}s ({self._attempts} attempts); raise "
                    f"SLOTGRAPH_MODEL_TIMEOUT or {self.timeout_hint}"
                )
            ) from err
        except connects as err:
            raise RetryableError(
                ModelConnectionError(
                    f"{self._where}: cannot connect ({type(err).__name__}: {err}; {self._attempts} "
                    f"attempts); {self.connect_hint}"
                )
            ) from err


class HTTPModel(HostedModel):
    """A model answering one JSON ``POST {base_url}{path}`` per attempt, through ``httpx``.

    A subclass sets the class attributes — ``extra`` is the ``slotgraph[...]`` extra that installs httpx,
    ``not_json_hint`` what to check when the answer is not JSON, ``typed_messages`` that the server's error
    messages carry a type worth showing (``overloaded_error: ...``), ``protocol_headers`` what every request
    carries besides the key — and implements :meth:`_body`, :meth:`_key_headers` and :meth:`_response`.
    """

    path: ClassVar[str]
    default_base_url: ClassVar[str]
    default_key_env: ClassVar[str]
    default_provider: ClassVar[str]
    extra: ClassVar[str]
    not_json_hint: ClassVar[str]
    typed_messages: ClassVar[bool] = False
    protocol_headers: ClassVar[Mapping[str, str]] = {}

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        key_env: str | None = None,
        provider: str | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        extra_body: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep = asyncio.sleep,
        random: Callable[[], float] = _random.random,
    ) -> None:
        """``base_url``, ``key_env`` and ``provider`` default to the backend's own; ``extra_body`` is merged
        into every request body, ``headers`` into every request's headers."""
        self._httpx = _import_httpx(type(self).__name__, self.extra)
        super().__init__(model, timeout=timeout, retry=retry, sleep=sleep, random=random)
        self.base_url = (base_url or self.default_base_url).rstrip("/")
        self.provider = provider or self.default_provider
        self._api_key = api_key
        self._key_env = key_env or self.default_key_env
        self._extra_body = dict(extra_body or {})
        self._headers = dict(headers or {})
        self._transport = transport

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.model!r}, base_url={self.base_url!r}, provider={self.provider!r})"
        )

    @property
    def url(self) -> str:
        return f"{self.base_url}{self.path}"

    @property
    def _where(self) -> str:
        return f"{self.provider} model {self.model!r} at {self.url}"

    @abstractmethod
    def _body(self, request: ModelRequest) -> dict[str, Any]: ...  # with _extra_body merged in

    @abstractmethod
    def _key_headers(self, api_key: str) -> dict[str, str]: ...

    @abstractmethod
    def _response(self, payload: Any, request: ModelRequest) -> ModelResponse: ...  # a success's JSON

    async def generate(self, request: ModelRequest) -> ModelResponse:
        body = self._body(request)
        headers = {"Content-Type": "application/json", **self.protocol_headers, **self._headers}
        if self._api_key:
            headers.update(self._key_headers(self._api_key))
        httpx = self._httpx
        async with httpx.AsyncClient(
            timeout=httpx.Timeout(self.timeout), transport=self._transport
        ) as client:

            async def attempt() -> ModelResponse:
                return await self._attempt(client, body, headers, request)

            return await self._with_retries(attempt)

    async def _attempt(
        self, client: httpx.AsyncClient, body: dict[str, Any], headers: dict[str, str], request: ModelRequest
    ) -> ModelResponse:
        httpx = self._httpx
        response = await self._answer(
            client.post(self.url, json=body, headers=headers),
            timeouts=(httpx.TimeoutException, TimeoutError),
            connects=(httpx.TransportError,),
        )
        if response.status_code >= 400:
            raise self._status_error(
                response.status_code,
                _server_message(response, with_type=self.typed_messages),
                parse_retry_after(response.headers.get("retry-after")),
                key_sent=bool(self._api_key),
            )
        try:
            payload = response.json()
        except (ValueError, RecursionError):  # not JSON, or nested too deeply to read
            raise ModelResponseError(
                f"{self._where}: the response is not JSON (HTTP {response.status_code}): "
                f"{response.text[:300]!r}; {self.not_json_hint}"
            ) from None
        return self._response(payload, request)


def _import_httpx(backend: str, extra: str) -> Any:
    try:
        import httpx
    except ImportError:
        raise MissingDependencyError(
            f"{backend} needs httpx, which is not installed; install it with: "
            f"pip install 'slotgraph[{extra}]'"
        ) from None
    return httpx


def _server_message(response: httpx.Response, *, with_type: bool) -> str:
    """The server's own message (``{"error": {"message": ..., "type": ...}}``, the type first ``with_type``),
    else an excerpt of the body."""
    try:
        body = response.json()
    except (ValueError, RecursionError):
        return response.text[:300].strip() or "(empty body)"
    error = body.get("error") if isinstance(body, Mapping) else None
    if isinstance(error, Mapping) and isinstance(error.get("message"), str):
        kind = error.get("type")
        if with_type and isinstance(kind, str) and kind:
            return f"{kind}: {error['message']}"
        return str(error["message"])
    if isinstance(error, str):
        return error
    return json.dumps(body)[:300]
