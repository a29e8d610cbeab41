"""Fixtures of the fault-injection suite: the real Redis and PostgreSQL servers of the store tests."""

from __future__ import annotations

from tests.stores.conftest import postgres_server, postgres_url, redis_server

__all__ = ["postgres_server", "postgres_url", "redis_server"]
