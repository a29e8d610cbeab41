"""Open the session store a server uses, from a URL.

Durable stores come from :func:`slotgraph.stores.open_store` (``memory://``, ``sqlite:///path``,
``redis://…``, ``postgresql://…``). Where that package is not installed yet only ``memory://`` works, with the
runtime's :class:`~slotgraph.runtime.InMemoryStore`.
"""

from __future__ import annotations

import importlib
from typing import Any, cast

from slotgraph.runtime import InMemoryStore, SessionStore
from slotgraph.server.errors import ServerConfigError

__all__ = ["DEFAULT_STORE_URL", "is_memory_url", "open_session_store"]

DEFAULT_STORE_URL = "memory://"


def is_memory_url(url: str) -> bool:
    """True for a store that lives inside one process (cannot be shared by several workers)."""
    return url.strip().lower().startswith("memory:")


def _open_store_function() -> Any:
    try:
        module = importlib.import_module("slotgraph.stores")
    except ImportError:
        return None
    return getattr(module, "open_store", None)


def open_session_store(url: str) -> SessionStore:
    """The store a URL names; :class:`ServerConfigError` with a fix when it cannot be opened."""
    open_store = _open_store_function()
    if open_store is None:
        if is_memory_url(url):
            return InMemoryStore()
        raise ServerConfigError(
            f"store {url!r} needs slotgraph.stores, which this installation does not have",
            fix="use --store memory:// or install a Slotgraph release with durable stores",
        )
    try:
        return cast(SessionStore, open_store(url))
    except Exception as err:  # the stores package's own errors carry a message written for the user
        raise ServerConfigError(f"cannot open store {url!r}: {err}", fix="check the --store URL") from None
