"""The session's durable record: one typed value, checked where it comes from a store, written once."""

from __future__ import annotations

from typing import Any

import pytest

from slotgraph.logic import LogicRecord
from slotgraph.models.protocol import AssistantText, UserMessage
from slotgraph.runtime import Agent, ScriptedModel
from slotgraph.runtime.agent_team import AgentTeam, ParkedAgent, ParkedAgents
from slotgraph.runtime.durable_record import DurableRecord
from slotgraph.runtime.history import message_to_json
from slotgraph.stores.codec import decode_payload
from slotgraph.stores.errors import StorePayloadError
from stores.fixtures import FIXTURES, expected_record

from .toy_agent import Backend, toy_dag


def two_agent_team() -> AgentTeam:
    team = AgentTeam("desk", root="front")
    for name in ("front", "billing"):
        team.add(
            Agent.from_config(
                toy_dag(), tools=Backend().tools(), instruction="Help.", model=ScriptedModel([]), name=name
            )
        )
    return team


def test_a_single_agent_record_is_stored_with_only_the_parts_it_has() -> None:
    record = DurableRecord(sm={"filled": {"n": 2}}, history=(UserMessage("hi"),), turns=1)
    assert record.to_stored(with_logic=False) == {
        "sm": {"filled": {"n": 2}},
        "history": [{"kind": "user", "text": "hi", "event": None}],
        "ended": False,
        "turns": 1,
    }


def test_every_part_round_trips_through_the_stored_form() -> None:
    team = two_agent_team()
    record = DurableRecord(
        sm={"filled": {"n": 2}, "status": "in_progress"},
        history=(UserMessage("hi"), AssistantText("Hello")),
        ended=True,
        turns=3,
        executions={"Book": 2},
        logic=LogicRecord({"tier": "gold"}, started=True, topic_stack=("",)),
        active="billing",
        parked=ParkedAgents({"front": ParkedAgent({"filled": {"x": 1}}, LogicRecord({"v": 1}))}),
    )
    stored = record.to_stored(with_logic=True)
    assert set(stored) == {"sm", "history", "ended", "turns", "executions", "logic", "agent", "agents"}
    assert DurableRecord.from_stored("s", stored, team=team) == record


def test_keys_that_are_not_the_runtimes_are_written_back_as_they_were_read() -> None:
    stored: dict[str, Any] = {**expected_record(), "server": {"agent": "bella"}}
    record = DurableRecord.from_stored("s", stored)
    assert record.extras == {"server": {"agent": "bella"}}
    assert record.to_stored(with_logic=False) == stored


@pytest.mark.parametrize("schema", sorted(FIXTURES))
def test_records_stored_by_every_earlier_version_load(schema: int) -> None:
    """The frozen payloads of each schema (written by earlier versions) still become a record."""
    stored = decode_payload(FIXTURES[schema], session_id="s", where="fixture")
    record = DurableRecord.from_stored("s", stored)
    expected = expected_record()
    assert dict(record.sm) == expected["sm"]
    assert [message_to_json(message) for message in record.history] == expected["history"]
    assert (record.turns, record.ended, record.active) == (2, False, None)
    assert record.to_stored(with_logic=False) == expected


@pytest.mark.parametrize(
    ("stored", "says"),
    [
        ([], "the record is a list, not a mapping"),
        ({"history": []}, "'sm' is missing"),
        ({"sm": {"status": "lost"}}, "the stored state cannot be played on"),
        ({"sm": {}, "executions": {"Book": -1}}, "executor attempts are malformed"),
        ({"sm": {}, "logic": {"started": "yes"}}, "agent-logic part is malformed"),
    ],
)
def test_a_record_the_turn_cannot_play_on_is_refused_saying_what_is_wrong(stored: Any, says: str) -> None:
    with pytest.raises(StorePayloadError, match=says):
        DurableRecord.from_stored("s", stored)


def test_a_multi_agent_record_naming_an_unknown_agent_is_refused() -> None:
    with pytest.raises(StorePayloadError, match=r"multi-agent part is malformed.*'nobody'"):
        DurableRecord.from_stored("s", {"sm": {}, "agent": "nobody"}, team=two_agent_team())


def test_a_multi_agent_record_without_an_active_agent_is_with_the_root() -> None:
    team = two_agent_team()
    assert DurableRecord.from_stored("s", {"sm": {}}, team=team).active == team.root
