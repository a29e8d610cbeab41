"""Sessions behind the API: create, read, play a turn — the HTTP-free core of the service.

Every request builds a fresh :class:`~slotgraph.runtime.Session` on the shared store: the runtime is
stateless between turns, so any worker process can serve any session. What the runtime's record does not
hold — which agent the session talks to, its event data and channel — is kept next to it in the same record
under ``"server"``, written when the session is created; the runtime keeps keys that are not its own as it
read them, so every save carries it on. A turn of a session the store no longer holds is refused
(``must_exist``), never started afresh.

Concurrency is the runtime's: a turn holds the store's per-session lock around load → turn → save, so a
second message for a session waits for the first (in this process or, with a durable store, in another).
When the wait passes the store's lock timeout the request fails with :class:`SessionBusyError`; a save that
finds the version moved (a writer without the lock) fails with :class:`SessionConflictError` and is not
saved. Both are recognised by the runtime's stable error codes.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from slotgraph.errors import SlotgraphError
from slotgraph.logic import RECORD_KEY, LogicRecord, variables_snapshot
from slotgraph.models.errors import ModelError
from slotgraph.models.protocol import Message
from slotgraph.runtime import Agent, EventSink, Session, SessionStore, TurnResult
from slotgraph.runtime.agent_team import ACTIVE_KEY, AGENTS_KEY
from slotgraph.runtime.durable_record import DurableRecord
from slotgraph.runtime.errors import ModelOutputError, UnknownSessionError
from slotgraph.runtime.history import message_from_json
from slotgraph.runtime.session import Clock
from slotgraph.server.errors import (
    ModelFailedError,
    ModelUnavailableError,
    SessionBusyError,
    SessionConflictError,
    SessionEndedError,
    SessionNotFoundError,
    SessionUnreadableError,
    UnknownAgentError,
)
from slotgraph.server.hosting import HostedAgent
from slotgraph.stores.errors import StoreConflictError, StoreLockTimeoutError, StorePayloadError

__all__ = ["META_KEY", "SessionRecord", "SessionService", "TurnOutcome"]

logger = logging.getLogger("slotgraph.server")

META_KEY = "server"
META_CACHE_SIZE = 10_000
"""Sessions whose server part a :class:`SessionService` keeps in memory (least recently used dropped)."""


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """A stored session as the API reads it."""

    session_id: str
    hosted: HostedAgent
    record: Mapping[str, Any]
    version: int

    @property
    def state(self) -> Mapping[str, Any]:
        sm = self.record.get("sm")
        return sm if isinstance(sm, Mapping) else {}

    @property
    def ended(self) -> bool:
        return bool(self.record.get("ended", False))

    @property
    def history(self) -> Sequence[Message]:
        """The conversation (the record was checked when it was read)."""
        return [message_from_json(message) for message in self.record.get("history") or []]

    @property
    def topic_states(self) -> Mapping[str, Mapping[str, Any]]:
        """The stored state of each topic with its own DAG (the agent-logic part's ``topic_states``)."""
        logic = self.record.get(RECORD_KEY)
        states = logic.get("topic_states") if isinstance(logic, Mapping) else None
        return states if isinstance(states, Mapping) else {}

    @property
    def agent(self) -> Agent:
        """The agent the conversation is with: in a multi-agent app the stored active one, else the hosted."""
        team = self.hosted.agent.team
        active = self.record.get(ACTIVE_KEY)
        if team is not None and isinstance(active, str) and active in team:
            return team[active]
        return self.hosted.agent

    @property
    def agent_states(self) -> dict[str, Mapping[str, Any]] | None:
        """A multi-agent app: every agent's stored state by name (None for a single agent)."""
        team = self.hosted.agent.team
        if team is None:
            return None
        parked = self.record.get(AGENTS_KEY)
        states: dict[str, Mapping[str, Any]] = {agent.name: {} for agent in team}
        if isinstance(parked, Mapping):
            for name, part in parked.items():
                if name in states and isinstance(part, Mapping) and isinstance(part.get("sm"), Mapping):
                    states[name] = part["sm"]
        states[self.agent.name] = self.state
        return states


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """One turn's :class:`~slotgraph.runtime.TurnResult` and where it was played: the hosted agent, and in a
    multi-agent app the agent the conversation is with and every agent's state (which the session knows and
    the turn's result does not)."""

    hosted: HostedAgent
    result: TurnResult
    agent: Agent | None = None
    """The agent the conversation is with after the turn (None: the hosted agent)."""
    agent_states: Mapping[str, Mapping[str, Any]] | None = None
    """A multi-agent app: every agent's state after the turn, by name."""


class SessionService:
    """Creates sessions and plays their turns against one store, for a fixed set of hosted agents."""

    def __init__(
        self,
        agents: Sequence[HostedAgent],
        store: SessionStore,
        *,
        clock: Clock | None = None,
        seed: int | None = None,
    ) -> None:
        self.agents: dict[str, HostedAgent] = {a.name: a for a in agents}
        self.store = store
        self._clock = clock
        self._seed = seed
        self._running: set[asyncio.Task[TurnOutcome]] = set()
        """Turns being played; each finishes (and saves) even when its request went away."""
        self._meta: OrderedDict[str, dict[str, Any]] = OrderedDict()
        """The server part of recently used sessions (written once, at creation, and never changed), so a
        turn reads the session once — under its lock — instead of once more before it to find the agent."""

    def agent(self, name: str) -> HostedAgent:
        found = self.agents.get(name)
        if found is None:
            known = ", ".join(sorted(self.agents)) or "none"
            raise UnknownAgentError(f"no agent named {name!r} is hosted here", fix=f"use one of: {known}")
        return found

    async def create(
        self,
        agent_name: str,
        *,
        event_data: Mapping[str, Any] | None = None,
        channel: str | None = None,
        variables: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> str:
        """Store a new, empty session for an agent; return its id."""
        self.agent(agent_name)
        session_id = uuid.uuid4().hex
        meta = {"agent": agent_name, "event_data": dict(event_data or {}), "channel": channel}
        if variables:
            meta["variables"] = dict(variables)
        if metadata:
            meta["metadata"] = dict(metadata)
        record = {"sm": {}, "history": [], "ended": False, "turns": 0, META_KEY: meta}
        await self.store.save(session_id, record, 0)
        self._remember(session_id, meta)
        return session_id

    def _remember(self, session_id: str, meta: Mapping[str, Any]) -> None:
        self._meta[session_id] = dict(meta)
        self._meta.move_to_end(session_id)
        while len(self._meta) > META_CACHE_SIZE:
            self._meta.popitem(last=False)

    async def read(self, session_id: str) -> SessionRecord:
        try:
            found = await self.store.load(session_id)
        except StorePayloadError:
            raise _unreadable(session_id) from None
        meta = found[0].get(META_KEY) if found is not None else None
        if found is None or not isinstance(meta, Mapping):
            raise _not_found(session_id)
        name = str(meta.get("agent", ""))
        if name not in self.agents:
            raise SessionNotFoundError(
                f"session {session_id!r} belongs to agent {name!r}, which this server does not host",
                fix="send it to a server hosting that agent, or start a new session",
            )
        try:  # checked as a turn checks it: a record no turn can play on is unreadable for reads too
            DurableRecord.from_stored(session_id, found[0], team=self.agents[name].agent.team)
        except StorePayloadError as err:
            logger.error("%s", err)
            raise _unreadable(session_id) from None
        self._remember(session_id, meta)
        return SessionRecord(session_id, self.agents[name], found[0], found[1])

    def variables(self, stored: SessionRecord) -> dict[str, Any]:
        """A stored session's agent-logic variables (empty when its agent has no logic)."""
        logic = stored.agent.logic
        if logic is None:
            return {}
        meta = stored.record.get(META_KEY) or {}
        try:
            record = LogicRecord.from_json(stored.record.get(RECORD_KEY))
        except ValueError:
            raise _unreadable(stored.session_id) from None
        if not record.started:  # not played yet: the values given at creation beat the defaults
            record = LogicRecord({**dict(meta.get("variables") or {}), **dict(record.variables)})
        facts = {
            **dict(meta.get("metadata") or {}),
            "session_id": stored.session_id,
            "channel": meta.get("channel") or stored.agent.channel,
        }
        return variables_snapshot(logic, record, stored.state, facts)

    async def ensure_open(self, session_id: str) -> SessionRecord:
        """The stored session, if it exists and has not ended (else the error a client can act on)."""
        stored = await self.read(session_id)
        if stored.ended:
            raise SessionEndedError(
                f"session {session_id!r} has ended", fix="start a new session with POST /v1/sessions"
            )
        return stored

    async def turn(self, session_id: str, text: str, *, on_event: EventSink | None = None) -> TurnOutcome:
        """Play one user turn of a stored session; ``on_event`` sees each event as it happens.

        The turn runs as a task of its own, shielded from the caller: a client that goes away (a dropped
        stream, a closed connection) cancels the request, never the turn — its tool calls already had
        side effects, so it plays to the end, saves, and releases the session's lock."""
        task = asyncio.create_task(self._turn(session_id, text, on_event))
        self._running.add(task)
        task.add_done_callback(_forget(self._running))
        return await asyncio.shield(task)

    async def wait_running(self, timeout: float) -> int:
        """Wait (at most ``timeout`` seconds) for the turns still playing; how many were left unfinished."""
        if not self._running:
            return 0
        _, pending = await asyncio.wait(set(self._running), timeout=timeout)
        return len(pending)

    async def _turn(self, session_id: str, text: str, on_event: EventSink | None) -> TurnOutcome:
        meta = self._meta.get(session_id)
        hosted = self.agents.get(str(meta.get("agent"))) if meta is not None else None
        if meta is None or hosted is None:  # not seen by this worker yet: read it to find its agent
            stored = await self.ensure_open(session_id)
            meta, hosted = stored.record[META_KEY], stored.hosted
        session: Session = hosted.agent.session(
            session_id=session_id,
            event_data=meta.get("event_data") or None,
            channel=meta.get("channel"),
            clock=self._clock,
            seed=self._seed,
            store=self.store,
            must_exist=True,
            model=hosted.model,
            variables=meta.get("variables") or None,
            metadata=meta.get("metadata") or None,
        )
        try:
            result = await session.asend(text, on_event=on_event)
        except SlotgraphError as err:
            translated = _translated(session_id, err, ended=session.ended)
            if translated is err:
                raise
            raise translated from err
        return TurnOutcome(
            hosted=hosted,
            result=result,
            agent=session.agent,
            agent_states=session.agent_states if session.team is not None else None,
        )


def _forget(running: set[asyncio.Task[TurnOutcome]]) -> Callable[[asyncio.Task[TurnOutcome]], None]:
    def done(task: asyncio.Task[TurnOutcome]) -> None:
        running.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: a turn whose client left is not an "unretrieved exception"

    return done


def _not_found(session_id: str) -> SessionNotFoundError:
    return SessionNotFoundError(
        f"no session {session_id!r}", fix="create one with POST /v1/sessions and use the id it returns"
    )


def _unreadable(session_id: str) -> SessionUnreadableError:
    return SessionUnreadableError(
        f"session {session_id!r} is stored in a form this server cannot read (corrupted, or written by a "
        "newer version); it was left untouched",
        fix="start a new session with POST /v1/sessions; the operator finds the details in the server log",
    )


def _translated(session_id: str, err: SlotgraphError, *, ended: bool) -> Exception:
    """The server error for a runtime error a client can act on; anything else stays internal."""
    if isinstance(err, StorePayloadError):
        return _unreadable(session_id)
    if isinstance(err, UnknownSessionError):
        return _not_found(session_id)
    if isinstance(err, StoreConflictError):
        return SessionConflictError(
            f"session {session_id!r} was changed by another request while this turn ran; "
            "this turn was not saved",
            fix="read the session (GET /v1/sessions/{id}) and send the message again",
        )
    if isinstance(err, StoreLockTimeoutError):
        return SessionBusyError(
            f"session {session_id!r} is busy: another turn of it is still running",
            fix="wait for the running turn's response, then send the message again",
        )
    if isinstance(err, ModelError) and err.transient:
        wait = f" (its server asked to wait {err.retry_after:g} s)" if err.retry_after is not None else ""
        return ModelUnavailableError(
            f"the agent's model cannot answer right now{wait}; this turn was not played or saved",
            fix="send the message again later (after Retry-After seconds, when given)",
            retry_after=err.retry_after,
        )
    if isinstance(err, ModelError | ModelOutputError):
        return ModelFailedError(
            "the agent's model failed on this turn (see the server log); this turn was not played or saved",
            fix="retrying will not help until the operator fixes the model's configuration",
        )
    if ended:
        return SessionEndedError(
            f"session {session_id!r} has ended", fix="start a new session with POST /v1/sessions"
        )
    return err
