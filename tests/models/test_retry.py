"""Backoff delays, Retry-After parsing and the retry loop."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from slotgraph.models.errors import ModelAPIError
from slotgraph.models.retry import RetryableError, RetryPolicy, call_with_retries, parse_retry_after


def test_delays_grow_exponentially_with_jitter_and_a_cap() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=5.0, jitter=0.5)
    assert [policy.delay(n, None, lambda: 0.0) for n in range(4)] == [1.0, 2.0, 4.0, 5.0]
    assert policy.delay(1, None, lambda: 1.0) == 3.0


def test_retry_after_wins_and_is_capped() -> None:
    policy = RetryPolicy(max_retry_after=10.0)
    assert policy.delay(0, 3.0, lambda: 1.0) == 3.0
    assert policy.delay(0, 600.0, lambda: 1.0) == 10.0


def test_parse_retry_after() -> None:
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after(None) is None and parse_retry_after(" ") is None
    assert parse_retry_after("7") == 7.0 and parse_retry_after("1.5") == 1.5
    assert parse_retry_after("Thu, 01 Jan 2026 12:00:30 GMT", now=now) == 30.0
    assert parse_retry_after("Thu, 01 Jan 2026 11:00:00 GMT", now=now) == 0.0
    assert parse_retry_after("soon") is None


def test_the_loop_retries_then_raises_the_last_error() -> None:
    delays: list[float] = []
    attempts: list[int] = []

    async def sleep(delay: float) -> None:
        delays.append(delay)

    async def attempt() -> str:
        attempts.append(1)
        raise RetryableError(ModelAPIError(f"fail {len(attempts)}", status=500))

    with pytest.raises(ModelAPIError, match="fail 3"):
        asyncio.run(call_with_retries(attempt, RetryPolicy(max_retries=2), sleep=sleep, random=lambda: 0.0))
    assert len(attempts) == 3 and delays == [0.5, 1.0]


def test_other_errors_are_not_retried() -> None:
    attempts: list[int] = []

    async def attempt() -> str:
        attempts.append(1)
        raise ModelAPIError("bad request", status=400)

    with pytest.raises(ModelAPIError):
        asyncio.run(call_with_retries(attempt, RetryPolicy()))
    assert attempts == [1]
