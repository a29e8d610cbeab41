"""HTTP error responses of the hosted-model backends, mapped to :mod:`slotgraph.models.errors` in one place.

The hosted backends (OpenAI-compatible, Anthropic, Gemini) speak different wire formats but answer failures
alike:

- 401/403 (and a key the server says it refused, whatever the status) raise :class:`ModelAuthError` naming
  the key's environment variable;
- 404 raises :class:`ModelNotFoundError` with a backend-specific hint about model names;
- 429 and 5xx (Anthropic's 529 "overloaded" included) raise :class:`RetryableError` around
  :class:`ModelRateLimitError` / :class:`ModelAPIError`, honouring ``Retry-After``;
- any other status raises :class:`ModelAPIError` with the server's own message.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING

from slotgraph.models.errors import (
    ModelAPIError,
    ModelAuthError,
    ModelError,
    ModelNotFoundError,
    ModelRateLimitError,
)
from slotgraph.models.retry import RetryableError, parse_retry_after

if TYPE_CHECKING:
    import httpx

__all__ = ["raise_for_status", "server_message", "status_error"]


def server_message(response: httpx.Response, *, with_type: bool = False) -> str:
    """The server's own message (``{"error": {"message": ..., "type": ...}}``), else a body excerpt.

    ``with_type`` prefixes the error's ``type`` when it has one (Anthropic's ``overloaded_error: ...``).
    """
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


def raise_for_status(
    response: httpx.Response,
    *,
    where: str,
    attempts: int,
    key_sent: bool,
    key_env: str,
    model_hint: str,
    typed_messages: bool = False,
) -> None:
    """Raise the error of an HTTP error ``response`` (status >= 400); see the module docstring."""
    raise status_error(
        response.status_code,
        server_message(response, with_type=typed_messages),
        parse_retry_after(response.headers.get("retry-after")),
        where=where,
        attempts=attempts,
        key_sent=key_sent,
        key_env=key_env,
        model_hint=model_hint,
    )


def status_error(
    status: int,
    message: str,
    retry_after: float | None,
    *,
    where: str,
    attempts: int,
    key_sent: bool,
    key_env: str,
    model_hint: str,
    key_refused: bool = False,
) -> ModelError | RetryableError:
    """The error for HTTP ``status`` with the server's ``message`` (see the module docstring).

    ``key_refused`` says the server refused the key whatever the status (Gemini answers 400 "API key not
    valid"); ``retry_after`` is the server's ``Retry-After`` in seconds, if it sent one.
    """
    if status in (401, 403) or key_refused:
        sent = "the API key was refused" if key_sent else "no API key was sent"
        return ModelAuthError(
            f"{where}: HTTP {status}, {sent} ({message}); set {key_env} to a valid key "
            "with access to this model",
            status=status,
        )
    if status == 404:
        return ModelNotFoundError(
            f"{where}: HTTP 404 ({message}); check the model name ({model_hint}) and the base URL",
            status=status,
        )
    if status == 429:
        return RetryableError(
            ModelRateLimitError(
                f"{where}: rate limited (HTTP 429: {message}) on all {attempts} attempts; "
                "wait, lower the request rate, check the quota, or raise SLOTGRAPH_MODEL_MAX_RETRIES",
                status=status,
            ),
            retry_after,
        )
    error = ModelAPIError(f"{where}: HTTP {status}: {message}", status=status)
    return RetryableError(error, retry_after) if status >= 500 else error
