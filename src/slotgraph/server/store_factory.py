"""Open the session store a server uses, from a URL.

Stores come from :func:`slotgraph.stores.open_store`: ``sqlite://`` (the default: ``.slotgraph/sessions.db``
in the working directory), ``sqlite:///abs/path.db``, ``redis://…``, ``postgresql://…`` and ``memory://``.
"""

from __future__ import annotations

from slotgraph.runtime import SessionStore
from slotgraph.server.errors import ServerConfigError
from slotgraph.stores import DEFAULT_STORE_URL, open_store
from slotgraph.stores.errors import StoreError

__all__ = ["DEFAULT_STORE_URL", "is_memory_url", "open_session_store"]


def is_memory_url(url: str) -> bool:
    """True for a store that lives inside one process (cannot be shared by several workers)."""
    return url.strip().lower().startswith("memory:")


def open_session_store(url: str) -> SessionStore:
    """The store a URL names; :class:`ServerConfigError` with a fix when it cannot be opened."""
    try:
        return open_store(url)
    except StoreError as err:  # the stores' errors carry a message written for the user
        raise ServerConfigError(f"cannot open store {url!r}: {err}", fix="check the --store URL") from None
