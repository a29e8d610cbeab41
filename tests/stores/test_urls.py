"""``open_store(url)``: each scheme, paths, parameters, and clear errors for bad URLs (no server needed)."""

from __future__ import annotations

import asyncio
import builtins
import sys
from pathlib import Path
from typing import Any

import pytest

from slotgraph.stores import (
    DEFAULT_SQLITE_PATH,
    PostgresStore,
    RedisStore,
    SQLiteStore,
    StoreConfigError,
    StoreError,
    open_store,
)
from slotgraph.stores.memory import InMemoryStore


def test_memory() -> None:
    store = open_store("memory://")
    assert isinstance(store, InMemoryStore)


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("sqlite://", DEFAULT_SQLITE_PATH),
        ("sqlite:///abs/dir/s.db", Path("/abs/dir/s.db")),
        ("sqlite://rel/dir/s.db", Path("rel/dir/s.db")),
        ("sqlite://s.db", Path("s.db")),
        ("sqlite:///with%20space/s.db", Path("/with space/s.db")),
    ],
)
def test_sqlite_paths(url: str, path: Path) -> None:
    store = open_store(url)
    assert isinstance(store, SQLiteStore) and store.path == path


def test_sqlite_parameters() -> None:
    store = open_store("sqlite:///x.db?lock_ttl=2.5&lock_timeout=0")
    assert isinstance(store, SQLiteStore) and (store.lock_ttl, store.lock_timeout) == (2.5, 0.0)


def test_redis_and_postgres_keep_driver_parameters_and_take_ours() -> None:
    redis = open_store("redis://:secret@cache:6380/2?prefix=app:&lock_ttl=5&socket_timeout=3")
    assert isinstance(redis, RedisStore)
    assert (redis.prefix, redis.lock_ttl) == ("app:", 5.0)
    assert redis.url == "redis://:secret@cache:6380/2?socket_timeout=3"
    assert "secret" not in redis.where and "secret" not in repr(redis)
    for url in ("postgresql://app:pw@db:5433/app?sslmode=disable&lock_timeout=9", "postgres://app:pw@db/app"):
        store = open_store(url)
        assert isinstance(store, PostgresStore) and "pw" not in store.where
    store = open_store("postgresql://app:pw@db:5433/app?sslmode=disable&lock_timeout=9")
    assert isinstance(store, PostgresStore)
    assert store.lock_timeout == 9.0 and store.url == "postgresql://app:pw@db:5433/app?sslmode=disable"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "sqlit:///x.db",
            r"unknown store scheme 'sqlit'.*did you mean sqlite://\?.*Known schemes: memory, sqlite",
        ),
        ("pg://u@h/db", r"did you mean postgresql://"),
        ("reddis://h", r"did you mean redis://"),
        ("mongodb://h", r"unknown store scheme 'mongodb'.* Known schemes: memory, sqlite, redis"),
        ("sessions.db", r"not a store URL.*sqlite://sessions\.db \(relative\) or sqlite:///sessions\.db"),
        ("", r"non-empty string"),
        ("memory://somewhere", r"memory:// takes no host or path"),
        ("sqlite:///x.db?lock_tll=3", r"unknown parameter 'lock_tll'.*did you mean lock_ttl\?"),
        ("sqlite:///x.db?lock_ttl=0", r"lock_ttl='0' .*\(more than 0\)"),
        ("redis://h?lock_timeout=soon", r"lock_timeout='soon' .* number of seconds"),
        ("sqlite:///x.db?lock_ttl=nan", r"lock_ttl='nan'"),
    ],
)
def test_bad_urls_say_what_and_how_to_fix(url: str, message: str) -> None:
    with pytest.raises(StoreConfigError, match=message):
        open_store(url)


@pytest.mark.parametrize(
    ("url", "module", "extra"),
    [("redis://localhost:1/0", "redis", "redis"), ("postgresql://u@localhost:1/db", "psycopg", "postgres")],
)
def test_a_missing_driver_names_the_extra_to_install(
    url: str, module: str, extra: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_import = builtins.__import__

    def refuse(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == module or name.startswith(f"{module}."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    for loaded in [m for m in sys.modules if m == module or m.startswith(f"{module}.")]:
        monkeypatch.delitem(sys.modules, loaded)
    monkeypatch.setattr(builtins, "__import__", refuse)
    store = open_store(url)  # no I/O (and no driver import) until first use
    with pytest.raises(StoreConfigError, match=rf"pip install 'slotgraph\[{extra}\]'"):
        asyncio.run(store.load("s"))


@pytest.mark.parametrize("url", ["redis://127.0.0.1:1/0", "postgresql://u@127.0.0.1:1/db"])
def test_an_unreachable_server_is_a_store_error_at_first_use(url: str) -> None:
    pytest.importorskip("redis" if url.startswith("redis") else "psycopg")

    async def scenario() -> None:
        store = open_store(url)
        try:
            with pytest.raises(StoreError, match=r"(?s)cannot be reached .*is it running"):
                await store.load("s")
        finally:
            await store.close()

    asyncio.run(scenario())
