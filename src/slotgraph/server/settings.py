"""The server's settings, and their handoff to worker processes through one environment variable.

With ``--workers N`` uvicorn starts N processes that each build the app from an import string
(:func:`slotgraph.server.factory.app_from_env`); the parent writes the settings as JSON into
``SLOTGRAPH_SERVER_CONFIG`` and each worker reads them back. The API key travels separately in
``SLOTGRAPH_API_KEY`` (the variable users set anyway), never in the JSON.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from slotgraph.redaction import redact_logs
from slotgraph.server.errors import ServerConfigError
from slotgraph.server.store_factory import DEFAULT_STORE_URL

__all__ = [
    "API_KEY_ENV",
    "CONFIG_ENV",
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_MAX_BODY_BYTES",
    "LOOPBACK_HOSTS",
    "ServerSettings",
    "WorkerConfig",
    "configure_logging",
    "default_allowed_hosts",
]

CONFIG_ENV = "SLOTGRAPH_SERVER_CONFIG"
API_KEY_ENV = "SLOTGRAPH_API_KEY"
DEFAULT_MAX_BODY_BYTES = 64 * 1024
DEFAULT_BODY_TIMEOUT = 10.0
"""Seconds a request body may take to arrive in full (``408 request_timeout`` after)."""
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
"""The host names a server listening on loopback answers to by default."""


def configure_logging() -> None:
    """The log of a ``slotgraph serve`` process (and of each of its workers): Slotgraph's warnings and errors
    on stderr, one record a line (``WARNING:  message``, as uvicorn writes its own), redacted
    (:func:`slotgraph.redaction.redact_logs`). Set before the app is built, so a library that configures
    the root logger when it finds none (the MCP SDK installs a rich handler that wraps lines in columns)
    leaves it alone; a program that configured logging itself keeps its own."""
    redact_logs()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s:  %(message)s")


def default_allowed_hosts(bind: str) -> tuple[str, ...]:
    """The ``Host`` names a server bound to ``bind`` answers by default: on loopback only the loopback names
    (a page on another domain resolving to 127.0.0.1 — DNS rebinding — is refused); on any other interface
    any name (the operator knows the public names: ``--allowed-hosts``)."""
    name = bind.strip().strip("[]").lower()
    if name in LOOPBACK_HOSTS or name.startswith("127."):
        return LOOPBACK_HOSTS
    return ("*",)


@dataclass(frozen=True)
class ServerSettings:
    """How the app treats requests. ``api_key=None`` leaves the API open (loopback use)."""

    api_key: str | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    allowed_hosts: tuple[str, ...] = ("*",)
    """The ``Host`` names answered (``*``: any; ``*.example.com``: a domain and its subdomains); others are
    ``400 host_not_allowed``. ``slotgraph serve`` sets it from ``--host`` (:func:`default_allowed_hosts`)."""
    body_timeout: float = DEFAULT_BODY_TIMEOUT

    def __post_init__(self) -> None:
        if not self.allowed_hosts or any(not host.strip() for host in self.allowed_hosts):
            raise ServerConfigError(
                f"allowed hosts {list(self.allowed_hosts)!r} has an empty name",
                fix="name each host (e.g. --allowed-hosts example.com,*.example.com), or '*' for any",
            )
        if self.body_timeout <= 0:
            raise ServerConfigError(f"body_timeout must be positive, got {self.body_timeout}", fix="raise it")
        if self.max_body_bytes < 1024:
            raise ServerConfigError(
                f"max_body_bytes must be at least 1024, got {self.max_body_bytes}", fix="raise the limit"
            )
        if self.api_key is not None and not self.api_key.strip():
            raise ServerConfigError(
                "the API key is empty", fix="pass a non-empty key, or none to disable auth"
            )


@dataclass(frozen=True)
class WorkerConfig:
    """Everything a worker process needs to build the same app as its siblings."""

    agent_paths: tuple[str, ...]
    store_url: str = DEFAULT_STORE_URL
    model: str | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    extra: Mapping[str, Any] = field(default_factory=dict)
    workflow_paths: tuple[str, ...] = ()
    """Hosted workflow files (``/v1/runs``); runs live in ``store_url`` too (their own table/keys)."""
    queue_url: str | None = None
    base_url: str | None = None
    allowed_hosts: tuple[str, ...] = ("*",)

    def to_env(self) -> dict[str, str]:
        data = {
            "agent_paths": list(self.agent_paths),
            "store_url": self.store_url,
            "model": self.model,
            "max_body_bytes": self.max_body_bytes,
            "workflow_paths": list(self.workflow_paths),
            "queue_url": self.queue_url,
            "base_url": self.base_url,
            "allowed_hosts": list(self.allowed_hosts),
        }
        return {CONFIG_ENV: json.dumps(data)}

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> WorkerConfig:
        env = os.environ if environ is None else environ
        raw = env.get(CONFIG_ENV)
        if not raw:
            raise ServerConfigError(
                f"{CONFIG_ENV} is not set", fix="start workers with `slotgraph serve PATH... --workers N`"
            )
        try:
            data = json.loads(raw)
            return cls(
                agent_paths=tuple(str(p) for p in data["agent_paths"]),
                store_url=str(data.get("store_url") or DEFAULT_STORE_URL),
                model=data.get("model"),
                max_body_bytes=int(data.get("max_body_bytes") or DEFAULT_MAX_BODY_BYTES),
                workflow_paths=tuple(str(p) for p in data.get("workflow_paths") or ()),
                queue_url=data.get("queue_url"),
                base_url=data.get("base_url"),
                allowed_hosts=tuple(str(h) for h in data.get("allowed_hosts") or ("*",)),
            )
        except (ValueError, KeyError, TypeError) as err:
            raise ServerConfigError(f"{CONFIG_ENV} is not valid ({err})") from None
