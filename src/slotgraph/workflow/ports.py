"""The two ports a workflow run calls out through, provided by whoever runs it.

- :class:`HttpClient`: sends one JSON body and returns the answer. :class:`HttpxClient` is the real one
  (``httpx``, imported lazily; ``pip install 'slotgraph[workflow]'``); tests may pass their own.
- :class:`AgentPort`: runs a conversational agent as a child run. The workflow package does not import the
  agent runtime (it sits below it); the edges — ``slotgraph run``, the service, queue workers — provide
  :class:`slotgraph.adapters.runtime_agents.RuntimeAgentPort`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from slotgraph.errors import SlotgraphError

__all__ = [
    "AgentOutcome",
    "AgentPort",
    "AgentRequest",
    "HttpAnswer",
    "HttpClient",
    "HttpUnavailable",
    "HttpxClient",
]


@dataclass(frozen=True, slots=True)
class HttpAnswer:
    status: int
    body: Any
    """The decoded JSON body, or None when the body is empty or not JSON (see ``text``)."""
    text: str = ""


class HttpUnavailable(SlotgraphError):
    """The endpoint could not be reached (connection refused, timeout, TLS failure)."""

    code = "http_unavailable"


@runtime_checkable
class HttpClient(Protocol):
    async def send(
        self, method: str, url: str, body: Mapping[str, Any], headers: Mapping[str, str], timeout: float
    ) -> HttpAnswer:
        """Send ``body`` as JSON; raise :class:`HttpUnavailable` when no answer came."""
        ...


class HttpxClient:
    """:class:`HttpClient` on ``httpx`` (one short-lived connection pool per call)."""

    async def send(
        self, method: str, url: str, body: Mapping[str, Any], headers: Mapping[str, str], timeout: float
    ) -> HttpAnswer:
        try:
            import httpx
        except ImportError:
            raise HttpUnavailable(
                "HTTP stages need the httpx package: pip install 'slotgraph[workflow]'"
            ) from None
        try:
            async with httpx.AsyncClient(timeout=timeout) as client:
                response = await client.request(method, url, json=dict(body), headers=dict(headers))
        except httpx.HTTPError as err:
            raise HttpUnavailable(f"{type(err).__name__}: {err}") from None
        try:
            decoded: Any = response.json()
        except ValueError:
            decoded = None
        return HttpAnswer(response.status_code, decoded, response.text[:2000])


@dataclass(frozen=True, slots=True)
class AgentRequest:
    """A child run of a conversational agent: its path, the slots it is given, an optional first message."""

    agent: Path
    slots: Mapping[str, Any]
    utterance: str | None
    run_id: str
    stage_id: str
    model: str | None = None


@dataclass(frozen=True, slots=True)
class AgentOutcome:
    """What the child run ended with: its filled slots, its final text and whether the session ended."""

    filled: Mapping[str, Any]
    text: str = ""
    ended: bool = False
    detail: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class AgentPort(Protocol):
    async def run_agent(self, request: AgentRequest) -> AgentOutcome: ...
