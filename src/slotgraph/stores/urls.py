"""``open_store(url)``: the store a URL names.

=================================  =========================================================================
``memory://``                      :class:`~slotgraph.stores.memory.InMemoryStore` (this process only)
``sqlite://``                      SQLite at the default path ``.slotgraph/sessions.db`` (relative to the cwd)
``sqlite://relative/path.db``      SQLite at a path relative to the working directory
``sqlite:///absolute/path.db``     SQLite at an absolute path (three slashes, like ``file:///``)
``redis://host:port/db``           Redis (also ``rediss://`` for TLS); needs ``slotgraph[redis]``
``postgresql://user@host:port/db`` PostgreSQL (also ``postgres://``); needs ``slotgraph[postgres]``
=================================  =========================================================================

Query parameters tune the store: ``lock_timeout`` (seconds a turn waits for the session's lock; every
store), ``lock_ttl`` (seconds a crashed holder's lock outlives it; SQLite and Redis), ``prefix`` (key prefix;
Redis), ``pool_size`` / ``pool_timeout`` (connections in the pool and seconds to wait for one; Redis and
PostgreSQL), ``lock_pool_size`` (connections holding session locks; PostgreSQL). Other query parameters
of Redis and PostgreSQL URLs go to the driver (e.g. ``sslmode=require``).

``open_store`` is synchronous and does no I/O: connections open lazily on the first operation, so a bad
host or password is reported then (as :class:`~slotgraph.runtime.errors.StoreError`); a bad URL is reported
at once (:class:`~slotgraph.runtime.errors.StoreConfigError`).
"""

from __future__ import annotations

import difflib
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from slotgraph.redaction import redact_url
from slotgraph.stores.errors import StoreConfigError
from slotgraph.stores.memory import InMemoryStore
from slotgraph.stores.postgres_store import (
    DEFAULT_LOCK_POOL_SIZE,
    DEFAULT_POOL_SIZE,
    DEFAULT_POOL_TIMEOUT,
    PostgresStore,
)
from slotgraph.stores.protocol import SessionStore
from slotgraph.stores.redis_store import REDIS_POOL_SIZE, RedisStore
from slotgraph.stores.sqlite_store import DEFAULT_SQLITE_PATH, SQLiteStore

__all__ = ["DEFAULT_STORE_URL", "SCHEMES", "open_store"]

DEFAULT_STORE_URL = "sqlite://"
"""The embedded default: SQLite at :data:`DEFAULT_SQLITE_PATH` (``.slotgraph/sessions.db``)."""

SCHEMES = ("memory", "sqlite", "redis", "rediss", "postgresql", "postgres")
_ALIASES = {
    "mem": "memory",
    "inmemory": "memory",
    "sqlite3": "sqlite",
    "file": "sqlite",
    "pg": "postgresql",
    "psql": "postgresql",
    "postgresql+psycopg": "postgresql",
}
_OURS = {
    "memory": {"lock_timeout"},
    "sqlite": {"lock_timeout", "lock_ttl"},
    "redis": {"lock_timeout", "lock_ttl", "prefix", "pool_size", "pool_timeout"},
    "postgresql": {"lock_timeout", "pool_size", "lock_pool_size", "pool_timeout"},
}
_FAMILY = {"rediss": "redis", "postgres": "postgresql"}


def open_store(url: str) -> SessionStore:
    """The store ``url`` names (see the module docstring); no connection is made yet."""
    if not isinstance(url, str) or not url.strip():
        raise StoreConfigError(f"a store URL must be a non-empty string, got {url!r}; e.g. {_examples()}")
    url = url.strip()
    if "://" not in url:
        raise StoreConfigError(
            f"{url!r} is not a store URL (scheme://...); for an SQLite file write sqlite://{url} (relative) "
            f"or sqlite:///{url.lstrip('/')} (absolute). Known schemes: {', '.join(SCHEMES)}"
        )
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise StoreConfigError(
            f"unknown store scheme {scheme!r} in {redact_url(url)!r}{_did_you_mean(scheme)}"
        )
    family = _FAMILY.get(scheme, scheme)
    ours, rest = _split_query(parts.query, _OURS[family], family, redact_url(url))
    lock_timeout = _seconds(ours, "lock_timeout", 60.0, allow_zero=True)
    if family == "memory":
        if parts.netloc or parts.path.strip("/"):
            raise StoreConfigError(f"memory:// takes no host or path, got {url!r}; write memory://")
        return InMemoryStore(lock_timeout=lock_timeout)
    if family == "sqlite":
        raw = unquote(parts.netloc + parts.path)
        return SQLiteStore(
            Path(raw) if raw else DEFAULT_SQLITE_PATH,
            lock_ttl=_seconds(ours, "lock_ttl", 30.0),
            lock_timeout=lock_timeout,
        )
    driver_url = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(rest), parts.fragment))
    if family == "redis":
        return RedisStore(
            driver_url,
            prefix=ours.get("prefix", "slotgraph:"),
            lock_ttl=_seconds(ours, "lock_ttl", 30.0),
            lock_timeout=lock_timeout,
            pool_size=_count(ours, "pool_size", REDIS_POOL_SIZE),
            pool_timeout=_seconds(ours, "pool_timeout", DEFAULT_POOL_TIMEOUT),
        )
    return PostgresStore(
        driver_url,
        lock_timeout=lock_timeout,
        pool_size=_count(ours, "pool_size", DEFAULT_POOL_SIZE),
        lock_pool_size=_count(ours, "lock_pool_size", DEFAULT_LOCK_POOL_SIZE),
        pool_timeout=_seconds(ours, "pool_timeout", DEFAULT_POOL_TIMEOUT),
    )


def _examples() -> str:
    return "memory://, sqlite:///var/lib/app/sessions.db, redis://localhost:6379/0, postgresql://app@localhost/app"


def _did_you_mean(scheme: str) -> str:
    guess = _ALIASES.get(scheme)
    if guess is None:
        close = difflib.get_close_matches(scheme, SCHEMES, n=1, cutoff=0.5)
        guess = close[0] if close else None
    hint = f" — did you mean {guess}://?" if guess else "."
    return f"{hint} Known schemes: {', '.join(SCHEMES)} (e.g. {_examples()})"


def _split_query(
    query: str, ours: set[str], family: str, shown: str
) -> tuple[dict[str, str], list[tuple[str, str]]]:
    mine: dict[str, str] = {}
    rest: list[tuple[str, str]] = []
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key in ours:
            mine[key] = value
        elif family in {"memory", "sqlite"}:
            close = difflib.get_close_matches(key, sorted(ours), n=1)
            hint = f" — did you mean {close[0]}?" if close else ""
            raise StoreConfigError(
                f"unknown parameter {key!r} in {shown!r}{hint} ({family} stores accept: "
                f"{', '.join(sorted(ours))})"
            )
        else:
            rest.append((key, value))
    return mine, rest


def _count(options: dict[str, str], key: str, default: int) -> int:
    if key not in options:
        return default
    raw = options[key]
    if not raw.isdigit() or not 1 <= int(raw) <= 10_000:
        raise StoreConfigError(
            f"{key}={raw!r} in the store URL must be a whole number from 1 to 10000, e.g. {key}=20"
        )
    return int(raw)


def _seconds(options: dict[str, str], key: str, default: float, *, allow_zero: bool = False) -> float:
    if key not in options:
        return default
    try:
        value = float(options[key])
    except ValueError:
        value = -1.0
    if not (value > 0 or (allow_zero and value == 0)) or value != value or value == float("inf"):
        raise StoreConfigError(
            f"{key}={options[key]!r} in the store URL must be a number of seconds "
            f"({'0 or more' if allow_zero else 'more than 0'}), e.g. {key}=30"
        )
    return value
