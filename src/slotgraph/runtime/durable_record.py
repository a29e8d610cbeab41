"""The session's durable record as one typed value, read (and checked) and written in one place.

A :class:`~slotgraph.stores.protocol.SessionStore` keeps a plain JSON dict per session; this module is the
only code that reads or writes one. Its keys (stores write them through :mod:`slotgraph.stores.codec`, which
also migrates older payloads):

``sm``
    the engine state (the spec's ``sm``);
``history``
    the conversation, each message a JSON object tagged with its ``kind``
    (:func:`~slotgraph.runtime.history.message_to_json`);
``ended``, ``turns``
    whether the session ended; how many turns were saved;
``ending`` (only when the session ended)
    how: ``ended`` (``end_session``) or ``escalated`` (``end_session`` with ``session_escalated``, the
    ``escalate`` tool, a transfer) — the session's :attr:`~DurableRecord.status` once the engine's says
    nothing more (it stays ``in_progress`` when a conversation ends before its flow did);
``executions`` (only when not empty)
    per task, the executor attempts settled in saved turns (:mod:`slotgraph.runtime.executions`);
``logic`` (agents with agent logic)
    the logic layer's :class:`~slotgraph.logic.LogicRecord` (variables, topics, ...);
``agent``, ``agents`` (multi-agent apps)
    the agent the conversation is with, and every other agent's parked state
    (:class:`~slotgraph.runtime.agent_team.ParkedAgents`).

Any other key (the HTTP service keeps its ``server`` part beside the runtime's) is not the runtime's: it is
kept as it was read (:attr:`DurableRecord.extras`) and written back with every save.

:meth:`DurableRecord.from_stored` is the edge where a stored record is checked — its shape, the engine
state (``validate_state``), the executor counts, the logic and multi-agent parts — so the turn plays only on
a record it can play on; a malformed one is refused with :class:`~slotgraph.stores.errors.StorePayloadError`
(never guessed: a missing ``sm`` read as ``{}`` would restart the conversation and the save would overwrite
it). Inside the runtime nothing is checked again: the record is built by the turn itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from slotgraph.engine.errors import EngineStateError
from slotgraph.engine.state import IN_PROGRESS, validate_state
from slotgraph.logic import RECORD_KEY, LogicRecord
from slotgraph.models.protocol import Message
from slotgraph.runtime.agent_team import ACTIVE_KEY, AGENTS_KEY, AgentTeam, ParkedAgents
from slotgraph.runtime.events import EndSessionEvent, Event, TransferEvent
from slotgraph.runtime.executions import RECORD_FIELD as EXECUTIONS_FIELD
from slotgraph.runtime.executions import executions_from_record
from slotgraph.runtime.history import message_from_json, message_to_json
from slotgraph.stores.errors import StorePayloadError

__all__ = ["ENDINGS", "DurableRecord", "ending_of", "session_status"]

ENDING_FIELD = "ending"
ENDINGS = ("ended", "escalated")
"""How a session ended, when it ended before its flow did (see the module docstring)."""


def ending_of(events: Iterable[Event]) -> str | None:
    """How the events of a turn ended the session: ``escalated`` (an escalated ``end_session``, a transfer),
    ``ended`` (``end_session``), or None (they did not)."""
    ending: str | None = None
    for event in events:
        if isinstance(event, TransferEvent) or (isinstance(event, EndSessionEvent) and event.escalated):
            return "escalated"
        if isinstance(event, EndSessionEvent):
            ending = "ended"
    return ending


def session_status(stored: Mapping[str, Any]) -> str:
    """The status of a stored record (checked or not): the engine's, unless it is still ``in_progress`` in
    a session that ended — then how it ended."""
    sm = stored.get("sm")
    status = str(sm.get("status", IN_PROGRESS)) if isinstance(sm, Mapping) else IN_PROGRESS
    ending = stored.get(ENDING_FIELD)
    if status == IN_PROGRESS and stored.get("ended") is True:
        return ending if ending in ENDINGS else "ended"
    return status


@dataclass(frozen=True, slots=True)
class DurableRecord:
    """What a session keeps between turns (see the module doc for the stored form)."""

    sm: Mapping[str, Any] = field(default_factory=dict)
    """The engine state after the last saved turn (never mutated: every turn builds a new one)."""
    history: tuple[Message, ...] = ()
    ended: bool = False
    turns: int = 0
    ending: str | None = None
    """How the session ended (:data:`ENDINGS`), when it did."""
    executions: Mapping[str, int] = field(default_factory=dict)
    logic: LogicRecord = field(default_factory=LogicRecord)
    """The agent logic's part (an empty record for an agent without logic, and not stored then)."""
    active: str | None = None
    """A multi-agent app: the agent the conversation is with (None: a single agent)."""
    parked: ParkedAgents = field(default_factory=ParkedAgents)
    """A multi-agent app: every other agent's state."""
    extras: Mapping[str, Any] = field(default_factory=dict)
    """The stored keys that are not the runtime's (the HTTP service's ``server`` part), written back as they
    were read."""

    @property
    def status(self) -> str:
        """The session's status: the engine's, or how the session ended (:func:`session_status`)."""
        if self.ended and self.sm.get("status", IN_PROGRESS) == IN_PROGRESS:
            return self.ending or "ended"
        return str(self.sm.get("status", IN_PROGRESS))

    def to_stored(self, *, with_logic: bool) -> dict[str, Any]:
        """The dict a store saves; ``with_logic``: the active agent has agent logic (its part is written)."""
        stored: dict[str, Any] = {
            **self.extras,
            "sm": self.sm,
            "history": [message_to_json(message) for message in self.history],
            "ended": self.ended,
            "turns": self.turns,
        }
        if self.ending is not None:
            stored[ENDING_FIELD] = self.ending
        if self.executions:
            stored[EXECUTIONS_FIELD] = dict(self.executions)
        if with_logic:
            stored[RECORD_KEY] = self.logic.to_json()
        if self.active is not None:
            stored[ACTIVE_KEY] = self.active
            stored[AGENTS_KEY] = self.parked.to_json()
        return stored

    @classmethod
    def from_stored(cls, session_id: str, stored: Any, *, team: AgentTeam | None = None) -> DurableRecord:
        """The record a store returned, checked; :class:`StorePayloadError` saying what is wrong."""
        _check_shape(session_id, stored)
        try:
            validate_state(stored["sm"])
        except EngineStateError as err:
            raise StorePayloadError(
                f"session {session_id!r}: the stored state cannot be played on ({err}); nothing was played "
                "or saved — fix or delete the stored session"
            ) from None
        try:
            logic = LogicRecord.from_json(stored.get(RECORD_KEY))
        except ValueError as err:
            raise _malformed(session_id, "agent-logic part is", err) from None
        for topic, topic_sm in logic.topic_states.items():  # a topic's own DAG's state
            try:
                validate_state(topic_sm)
            except EngineStateError as err:
                raise StorePayloadError(
                    f"session {session_id!r}: the stored state of topic {topic!r} cannot be played on "
                    f"({err}); nothing was played or saved — fix or delete the stored session"
                ) from None
        try:
            executions = executions_from_record(session_id, stored.get(EXECUTIONS_FIELD))
        except ValueError as err:
            raise _malformed(session_id, "executor attempts are", err) from None
        try:
            items = enumerate(stored.get("history") or ())
            history = tuple(_message_at(item, index) for index, item in items)
        except ValueError as err:
            raise _malformed(session_id, "history is", err) from None
        active: str | None = None
        parked = ParkedAgents()
        if team is not None:
            active = stored.get(ACTIVE_KEY, team.root)
            try:
                if not isinstance(active, str) or active not in team:
                    raise ValueError(f"'{ACTIVE_KEY}' is {active!r}, not an agent of the app {team.name!r}")
                parked = ParkedAgents.from_json(stored.get(AGENTS_KEY), team)
            except ValueError as err:
                raise _malformed(session_id, "multi-agent part is", err) from None
        return cls(
            sm=dict(stored["sm"]),
            history=history,
            ended=bool(stored.get("ended", False)),
            turns=int(stored.get("turns", 0)),
            ending=stored.get(ENDING_FIELD),
            executions=executions,
            logic=logic,
            active=active,
            parked=parked,
            extras={key: value for key, value in stored.items() if key not in _OWN_KEYS},
        )


_OWN_KEYS = frozenset(
    {"sm", "history", "ended", "turns", ENDING_FIELD, EXECUTIONS_FIELD, RECORD_KEY, ACTIVE_KEY, AGENTS_KEY}
)


def _message_at(item: Any, index: int) -> Message:
    try:
        return message_from_json(item)
    except ValueError as problem:
        raise ValueError(f"history[{index}]: {problem}") from None


def _malformed(session_id: str, part: str, err: ValueError) -> StorePayloadError:
    return StorePayloadError(
        f"session {session_id!r}: the stored record's {part} malformed ({err}); nothing was played or "
        "saved — fix or delete the stored session"
    )


def _check_shape(session_id: str, stored: Any) -> None:
    problem = None
    if not isinstance(stored, Mapping):
        problem = f"the record is a {type(stored).__name__}, not a mapping"
    elif not isinstance(stored.get("sm"), Mapping):
        problem = "'sm' is missing" if "sm" not in stored else "'sm' is not a mapping"
    elif not isinstance(stored.get("history", []), list | tuple):
        problem = "'history' is not a list"
    elif not isinstance(stored.get("ended", False), bool):
        problem = "'ended' is not a boolean"
    elif type(stored.get("turns", 0)) is not int or stored.get("turns", 0) < 0:
        problem = "'turns' is not a count (an integer, 0 or more)"
    elif stored.get(ENDING_FIELD) not in (None, *ENDINGS):
        problem = f"'{ENDING_FIELD}' is {stored.get(ENDING_FIELD)!r}, not one of {', '.join(ENDINGS)}"
    if problem is not None:
        raise StorePayloadError(
            f"session {session_id!r}: the store returned a record this turn cannot play on ({problem}); "
            "nothing was played or saved — fix or delete the stored session"
        )
