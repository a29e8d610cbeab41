"""Retries with exponential backoff and jitter, shared by the HTTP backends.

A backend wraps one attempt in :func:`call_with_retries`; an attempt that fails in a way worth retrying (429,
5xx, a timeout, a refused connection) raises :class:`RetryableError` carrying the error to raise when the
retries run out and the server's ``Retry-After``, if any. The sleep and the random source are injected, so
tests never sleep and see exactly which delays were chosen.
"""

from __future__ import annotations

import asyncio
import email.utils
import random as _random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

from slotgraph.models.errors import ModelError

__all__ = ["RetryPolicy", "RetryableError", "Sleep", "call_with_retries", "parse_retry_after"]

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how long to wait between attempts.

    Attempt ``n`` (0-based) waits ``min(max_delay, base_delay * 2**n)`` plus up to ``jitter`` times that,
    chosen at random — unless the server said ``Retry-After``, which is honoured (capped at
    ``max_retry_after``) without jitter.
    """

    max_retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 20.0
    jitter: float = 0.5
    max_retry_after: float = 60.0

    def delay(self, attempt: int, retry_after: float | None, random: Callable[[], float]) -> float:
        if retry_after is not None:
            return max(0.0, min(retry_after, self.max_retry_after))
        base = min(self.max_delay, self.base_delay * 2**attempt)
        return float(base + base * self.jitter * random())


class RetryableError(Exception):
    """An attempt failed in a way worth another try; ``error`` is raised if none is left."""

    def __init__(self, error: ModelError, retry_after: float | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: a number of seconds or an HTTP date; None if absent."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now or datetime.now(UTC)
    return max(0.0, (when - current).total_seconds())


async def call_with_retries(
    attempt: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    sleep: Sleep = asyncio.sleep,
    random: Callable[[], float] = _random.random,
) -> T:
    """Run ``attempt`` until it succeeds, fails for good, or the retries run out."""
    for n in range(policy.max_retries + 1):
        try:
            return await attempt()
        except RetryableError as err:
            if n >= policy.max_retries:
                if err.error.retry_after is None:
                    err.error.retry_after = err.retry_after
                raise err.error from err.__cause__
            await sleep(policy.delay(n, err.retry_after, random))
    raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover
