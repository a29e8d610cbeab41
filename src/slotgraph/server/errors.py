"""Errors of the HTTP service, each with a stable ``code`` (the ``code`` of the problem+json body).

Hierarchy::

    ServerError                     base of everything raised by slotgraph.server
    ├── ServerConfigError           the server cannot start: bad agent, duplicate name, store URL, workers
    ├── UnknownAgentError           a request names an agent this server does not host
    ├── SessionNotFoundError        no session with this id in the store
    ├── SessionBusyError            a turn of this session is already running in this process
    ├── SessionConflictError        another process saved the session first (store version moved)
    ├── SessionEndedError           the session ended; start a new one
    ├── SessionUnreadableError      the stored session cannot be read (corrupted, or from a newer version)
    ├── ModelUnavailableError       the agent's model is rate limited, timed out or down: retry later (503)
    └── ModelFailedError            the agent's model refused the call or answered nonsense (502)

The mapping to HTTP statuses lives in :mod:`slotgraph.server.problems` and nowhere else. Messages are written
for the API's user (what is wrong, how to fix it) and never carry internals.
"""

from __future__ import annotations

from slotgraph.errors import SlotgraphError

__all__ = [
    "ModelFailedError",
    "ModelUnavailableError",
    "ServerConfigError",
    "ServerError",
    "SessionBusyError",
    "SessionConflictError",
    "SessionEndedError",
    "SessionNotFoundError",
    "SessionUnreadableError",
    "UnknownAgentError",
]


class ServerError(SlotgraphError):
    """Base of the server's errors: ``code`` is stable, ``fix`` says what to do about it."""

    code = "server_error"

    def __init__(self, message: str, *, fix: str = "") -> None:
        super().__init__(message, fix=fix)
        self.message = message


class ServerConfigError(ServerError):
    """The server's configuration is unusable (agents, store URL, workers)."""

    code = "server_config"


class UnknownAgentError(ServerError):
    code = "unknown_agent"


class SessionNotFoundError(ServerError):
    code = "session_not_found"


class SessionBusyError(ServerError):
    code = "session_busy"


class SessionConflictError(ServerError):
    code = "conflict"


class SessionEndedError(ServerError):
    code = "session_ended"


class SessionUnreadableError(ServerError):
    """The stored session cannot be read; it is left untouched in the store (a server-side problem whose
    message carries no internals, so it is shown to the client with its own code)."""

    code = "session_unreadable"


class ModelUnavailableError(ServerError):
    """The agent's model cannot answer now (rate limited, timed out, unreachable, a server error): the same
    request may succeed later. ``retry_after`` is the wait in seconds the model's server asked for, if any.
    The turn was not saved."""

    code = "model_unavailable"

    def __init__(self, message: str, *, fix: str = "", retry_after: float | None = None) -> None:
        super().__init__(message, fix=fix)
        self.retry_after = retry_after


class ModelFailedError(ServerError):
    """The agent's model failed in a way retrying will not fix (refused credentials, unknown model, a reply
    that is not the protocol). The turn was not saved; the operator finds the details in the server log."""

    code = "model_failed"
