"""The one seam between the protocol adapters (A2A, MCP, chat completions) and the server's sessions.

Every adapter starts sessions, plays turns and reads sessions through :class:`Conversations`, which wraps the
server's own :class:`~slotgraph.server.sessions.SessionService` — the same store, locks, metadata and error
translation as ``/v1/sessions`` — and hands back plain snapshots (:class:`Exchange`, :class:`Snapshot`): what
the agent said, the engine's status, the slot asked, the collected slots and the task results, with
exception texts already removed (:func:`~slotgraph.server.views.public_state`). The adapters never touch the
runtime's result types or the stored record, so a change there is absorbed here.

A session started by an adapter is an ordinary server session: ``GET /v1/sessions/{id}`` reads it and the
playground can open it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from slotgraph.runtime import Event
from slotgraph.server.errors import SessionEndedError, SessionNotFoundError
from slotgraph.server.hosting import HostedAgent
from slotgraph.server.sessions import META_KEY, SessionRecord, SessionService
from slotgraph.server.views import dag_in_play, public_event, public_state, session_view, transcript

__all__ = [
    "NEW_CONVERSATION",
    "Conversations",
    "EventListener",
    "Exchange",
    "Outcome",
    "Snapshot",
    "Utterance",
]

NEW_CONVERSATION = "start a new conversation"
"""The fix of a session not found or ended, as this module words it (each protocol says how to start)."""

EventListener = Callable[[Mapping[str, Any]], Awaitable[None]]
"""Sees each event of a turn as it happens, in its wire form (``{"kind": ..., ...}``, as the SSE stream of
``/v1/sessions`` sends it)."""

Outcome = Literal["waiting", "completed", "escalated", "ended"]
"""Where a conversation stands after a turn: ``waiting`` for the user's next message (a slot asked, a
readback to confirm, an answer given), ``completed`` (the agent's terminal task succeeded), ``escalated``
(handed to a human: retries exhausted or the agent escalated), ``ended`` (closed before completing)."""


@dataclass(frozen=True, slots=True)
class Utterance:
    """One message of a conversation: ``role`` is ``user`` or ``agent``."""

    role: Literal["user", "agent"]
    text: str


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A session as the protocols show it."""

    session_id: str
    agent: str
    """The hosted agent's name (a multi-agent app's name)."""
    status: str
    """The engine's status: ``in_progress``, ``complete`` or ``escalated``."""
    ended: bool
    asking: str | None
    """The slot the agent is asking for, if any."""
    slots: Mapping[str, Any]
    """The collected (filled) slots."""
    pending: Mapping[str, Any]
    """Values given but waiting for the user's confirmation (readback)."""
    task_results: Mapping[str, Any]
    metadata: Mapping[str, Any]
    """The metadata the session was started with."""
    utterances: tuple[Utterance, ...] = ()
    """The conversation so far (user and agent texts; a turn's agent texts joined with a space)."""

    @property
    def outcome(self) -> Outcome:
        if self.status == "complete":
            return "completed"
        if self.status == "escalated":
            return "escalated"
        return "ended" if self.ended else "waiting"

    @property
    def finished(self) -> bool:
        """Whether the conversation is over (completed, escalated or ended): no more messages belong to it."""
        return self.outcome != "waiting"

    @property
    def results(self) -> dict[str, Any]:
        """The structured result of the conversation: the collected slots and the task results."""
        return {"slots": dict(self.slots), "task_results": dict(self.task_results)}


@dataclass(frozen=True, slots=True)
class Exchange:
    """One played turn: the agent's text, the turn's public events and the session after it."""

    text: str
    snapshot: Snapshot
    events: tuple[Mapping[str, Any], ...] = ()
    usage: Mapping[str, int] = field(default_factory=dict)
    """``prompt_tokens`` and ``completion_tokens`` the model used on the turn."""


class Conversations:
    """Start, continue, read and end sessions of the hosted agents (see the module docstring)."""

    def __init__(self, service: SessionService) -> None:
        self.service = service

    @property
    def agents(self) -> Sequence[HostedAgent]:
        return tuple(self.service.agents.values())

    def agent(self, name: str) -> HostedAgent:
        """The hosted agent ``name`` (:class:`~slotgraph.server.errors.UnknownAgentError` if none)."""
        return self.service.agent(name)

    async def start(self, agent: str, *, metadata: Mapping[str, Any] | None = None) -> str:
        """A new session with ``agent``; its id."""
        return await self.service.create(agent, metadata=metadata)

    async def say(self, session_id: str, text: str, *, on_event: EventListener | None = None) -> Exchange:
        """Play one user turn; ``on_event`` sees each event (wire form) as it happens."""
        sink = None
        if on_event is not None:
            listener = on_event

            async def sink(event: Event) -> None:
                await listener(public_event(event))

        try:
            result = (await self.service.turn(session_id, text, on_event=sink)).result
        except (SessionNotFoundError, SessionEndedError) as err:
            raise _neutral(err) from None
        usage = {
            "prompt_tokens": result.usage.prompt_tokens,
            "completion_tokens": result.usage.completion_tokens,
        }
        return Exchange(
            text=result.text,
            snapshot=await self.read(session_id),  # as saved: the transcript and metadata included
            events=tuple(public_event(e) for e in result.events),
            usage=usage,
        )

    async def read(self, session_id: str, *, agent: str | None = None) -> Snapshot:
        """The stored session; with ``agent``, a session of another agent is not found either (one agent's
        endpoint never reveals another's sessions)."""
        try:
            stored = await self.service.read(session_id)
        except SessionNotFoundError as err:
            raise _neutral(err) from None
        if agent is not None and stored.hosted.name != agent:
            raise SessionNotFoundError(
                f"no session {session_id!r} with agent {agent!r}",
                fix=NEW_CONVERSATION,
            )
        return self._stored(stored)

    async def end(self, session_id: str, *, agent: str | None = None) -> Snapshot:
        """Close an open session (later messages are refused, it stays readable); the closed session.

        Waits for a turn of the session still running (the store's per-session lock), like a turn does."""
        await self.read(session_id, agent=agent)
        store = self.service.store
        async with store.lock(session_id):
            try:
                await self.service.ensure_open(session_id)
            except SessionEndedError as err:
                raise _neutral(err) from None
            found = await store.load(session_id)
            if found is None:
                raise SessionNotFoundError(f"no session {session_id!r}", fix=NEW_CONVERSATION)
            record, version = found
            await store.save(session_id, {**record, "ended": True}, version)
        return await self.read(session_id)

    def _stored(self, stored: SessionRecord) -> Snapshot:
        variables = self.service.variables(stored)
        dag, state, _ = dag_in_play(stored.agent, stored.state, stored.topic_states, variables)
        view = session_view(dag, state, variables=variables)
        meta = stored.record.get(META_KEY)
        metadata = meta.get("metadata") if isinstance(meta, Mapping) else None
        return Snapshot(
            session_id=stored.session_id,
            agent=stored.hosted.name,
            status=str(stored.state.get("status", "in_progress")),
            ended=stored.ended,
            asking=view["asking"],
            slots=view["filled"],
            pending=view["pending"],
            task_results=public_state(state).get("task_results") or {},
            metadata=dict(metadata) if isinstance(metadata, Mapping) else {},
            utterances=_utterances(transcript(stored.history)),
        )


def _neutral(err: SessionNotFoundError | SessionEndedError) -> SessionNotFoundError | SessionEndedError:
    """The error without the ``/v1/sessions`` advice of its fix: each protocol says how it starts anew."""
    return type(err)(err.message, fix=NEW_CONVERSATION)


def _utterances(entries: Sequence[Mapping[str, Any]]) -> tuple[Utterance, ...]:
    """User and agent texts, an agent's consecutive texts (one turn) joined as the turn's text is."""
    out: list[Utterance] = []
    agent_parts: list[str] = []
    for entry in entries:
        role = entry.get("role")
        if role == "agent":
            if entry.get("text"):
                agent_parts.append(str(entry["text"]))
        elif role == "user":
            if agent_parts:
                out.append(Utterance("agent", " ".join(agent_parts)))
                agent_parts = []
            out.append(Utterance("user", str(entry.get("text") or "")))
    if agent_parts:
        out.append(Utterance("agent", " ".join(agent_parts)))
    return tuple(out)
