"""What the backends of hosted models share: retries, the timeout, transport errors, HTTP status → error.

::

    HostedModel          retries with backoff and jitter (retry.py), one timeout for a whole answer, the
    │                    errors of an attempt that got no answer (ModelTimeoutError, ModelConnectionError)
    ├── GeminiModel      (gemini.py) through google-genai
    └── HTTPModel        one JSON POST per attempt with httpx; an HTTP error status raises the error
        │                http_status.py maps it to; a body that is not JSON raises ModelResponseError
        ├── OpenAIChatModel  (openai.py)
        └── AnthropicModel   (anthropic.py)

A subclass says where it posts, which headers carry the key, and how a request and a response map to its
wire format (its ``*_wire`` module); everything else is here. Error messages are redacted by
:class:`~slotgraph.models.errors.ModelError` itself, so a provider echoing the key it refused never leaks it.

A client is opened per call, so one model object serves sessions on any event loop (``session.send`` runs each
turn in its own loop). ``transport`` lets tests plug an ``httpx`` transport; ``sleep`` and ``random`` make
the backoff observable without waiting.
"""

from __future__ import annotations

import asyncio
import random as _random
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

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

__all__ = ["HTTPModel", "HostedModel"]

T = TypeVar("T")
Errors = tuple[type[BaseException], ...]


class HostedModel(ABC):
    """A model behind a hosted API: attempts retried by :attr:`retry`, each bounded by :attr:`timeout`."""

    timeout_hint: ClassVar[str] = "try again later"
    """The end of a timeout's message, after "raise SLOTGRAPH_MODEL_TIMEOUT or"."""
    connect_hint: ClassVar[str] = "check the network"
    """The end of a refused connection's message."""

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

    A subclass sets the class attributes below and implements :meth:`_body`, :meth:`_key_headers` and
    :meth:`_response`.
    """

    path: ClassVar[str]
    """Where requests go, after the base URL (``/chat/completions``)."""
    default_base_url: ClassVar[str]
    default_key_env: ClassVar[str]
    """The environment variable error messages tell the user to set."""
    default_provider: ClassVar[str]
    extra: ClassVar[str]
    """The ``slotgraph[...]`` extra that installs ``httpx``, for the hint when it is missing."""
    model_hint: ClassVar[str]
    """How model names look, for a 404's message."""
    not_json_hint: ClassVar[str]
    """What to check when the server answers something that is not JSON."""
    typed_messages: ClassVar[bool] = False
    """The server's error messages carry a type worth showing (``overloaded_error: ...``)."""
    protocol_headers: ClassVar[Mapping[str, str]] = {}
    """Headers every request carries besides the key (``anthropic-version``)."""

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
    def _body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON body for ``request`` (with :attr:`_extra_body` merged in)."""

    @abstractmethod
    def _key_headers(self, api_key: str) -> dict[str, str]:
        """The headers that carry the API key."""

    @abstractmethod
    def _response(self, payload: Any, request: ModelRequest) -> ModelResponse:
        """The parsed JSON of a successful answer to ``request`` as a response."""

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
            raise_for_status(
                response,
                where=self._where,
                attempts=self._attempts,
                key_sent=bool(self._api_key),
                key_env=self._key_env,
                model_hint=self.model_hint,
                typed_messages=self.typed_messages,
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
