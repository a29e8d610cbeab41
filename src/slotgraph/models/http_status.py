"""HTTP error responses of the hosted-model backends, mapped to :mod:`slotgraph.models.errors` in one place.

The OpenAI-compatible and Anthropic backends speak different wire formats but answer failures alike:

- 401/403 raise :class:`ModelAuthError` naming the key's environment variable;
- 404 raises :class:`ModelNotFoundError` with a backend-specific hint about model names;
- 429 and 5xx (Anthropic's 529 "overloaded" included) raise :class:`RetryableError` around
  :class:`ModelRateLimitError` / :class:`ModelAPIError`, honouring ``Retry-After``;
- any other status raises :class:`ModelAPIError` with the server's own message.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING

from slotgraph.models.errors import ModelAPIError, ModelAuthError, ModelNotFoundError, ModelRateLimitError
from slotgraph.models.retry import RetryableError, parse_retry_after

if TYPE_CHECKING:
    import httpx

__all__ = ["raise_for_status", "server_message"]


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
    status = response.status_code
    message = server_message(response, with_type=typed_messages)
    if status in (401, 403):
        sent = "the API key was refused" if key_sent else "no API key was sent"
        raise ModelAuthError(
            f"{where}: HTTP {status}, {sent} ({message}); set {key_env} to a valid key "
            "with access to this model",
            status=status,
        )
    if status == 404:
        raise ModelNotFoundError(
            f"{where}: HTTP 404 ({message}); check the model name ({model_hint}) and the base URL",
            status=status,
        )
    retry_after = parse_retry_after(response.headers.get("retry-after"))
    if status == 429:
        raise RetryableError(
            ModelRateLimitError(
                f"{where}: rate limited (HTTP 429: {message}) on all {attempts} attempts; "
                "wait, lower the request rate, or raise SLOTGRAPH_MODEL_MAX_RETRIES",
                status=status,
            ),
            retry_after,
        )
    error = ModelAPIError(f"{where}: HTTP {status}: {message}", status=status)
    if status >= 500:
        raise RetryableError(error, retry_after)
    raise error
