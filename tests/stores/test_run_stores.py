"""Run stores: the same compare-and-set contract on memory, SQLite, Redis and PostgreSQL (real servers)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from slotgraph.stores.errors import StoreConfigError, StoreConflictError, StorePayloadError
from slotgraph.stores.runs import RunStore, open_run_store

T = TypeVar("T")


def _url(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if kind == "memory":
        return "memory://"
    if kind == "sqlite":
        return f"sqlite://{tmp_path / 'runs.db'}"
    if kind == "redis":
        return f"{request.getfixturevalue('redis_server')}?prefix=t{uuid.uuid4().hex[:8]}:"
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture(params=["memory", "sqlite", "redis", "postgresql"])
def run_store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return _url(request.param, request, tmp_path)


def _with_store(url: str, body: Callable[[RunStore], Awaitable[T]]) -> T:
    async def go() -> T:
        store = open_run_store(url)
        try:
            return await body(store)
        finally:
            await store.close()

    return asyncio.run(go())


RECORD: dict[str, Any] = {
    "schema": 1,
    "run_id": "r",
    "status": "running",
    "slots": {"a": {"n": 1}},
    "notes": ["x"],
}


def test_save_load_and_compare_and_set(run_store_url: str) -> None:
    async def body(store: RunStore) -> None:
        assert await store.load_run("r") is None
        assert await store.save_run("r", RECORD, 0) == 1
        assert await store.load_run("r") == (RECORD, 1)
        assert await store.save_run("r", {**RECORD, "status": "succeeded"}, 1) == 2
        with pytest.raises(StoreConflictError, match="another executor"):
            await store.save_run("r", RECORD, 1)
        with pytest.raises(StoreConflictError):
            await store.save_run("r", RECORD, 0)  # a second create of the same id
        loaded = await store.load_run("r")
        assert loaded is not None and loaded[0]["status"] == "succeeded" and loaded[1] == 2

    _with_store(run_store_url, body)


def test_runs_are_listed_newest_first_and_survive_a_reopen(run_store_url: str) -> None:
    async def write(store: RunStore) -> list[str]:
        for run_id in ("one", "two", "three"):
            await store.save_run(run_id, {**RECORD, "run_id": run_id}, 0)
        await store.save_run("one", {**RECORD, "run_id": "one"}, 1)
        return await store.list_runs(limit=2)

    assert _with_store(run_store_url, write) == ["one", "three"]
    if not run_store_url.startswith("memory"):
        found = _with_store(run_store_url, lambda store: store.load_run("two"))
        assert found is not None and found[1] == 1


def test_a_record_that_is_not_json_is_refused(run_store_url: str) -> None:
    async def body(store: RunStore) -> None:
        with pytest.raises(StorePayloadError):
            await store.save_run("r", {"bad": float("nan")}, 0)
        assert await store.load_run("r") is None

    _with_store(run_store_url, body)


def test_bad_run_store_urls_are_config_errors() -> None:
    for url in ("runs.db", "ftp://x", ""):
        with pytest.raises(StoreConfigError):
            open_run_store(url)
