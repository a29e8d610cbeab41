"""Typed results: ``Agent.slots_model()`` (a pydantic model of the agent's slots) and ``Session.result()``
(a finished session's status, slots parsed into that model or the caller's own, and its task results)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel

import slotgraph
from slotgraph.models.protocol import ToolSchema
from slotgraph.runtime import (
    Agent,
    ScriptedModel,
    ScriptedStep,
    SessionError,
    SessionNotCompleteError,
    SessionResult,
    SlotsValidationError,
    TaskOutcome,
    Tool,
    call,
)

ROOT = Path(__file__).resolve().parents[2]
BOOKING = [
    "Hi",
    "A table for 4 next Friday",
    "yes",
    "7:30 pm",
    "yes",
    "under Chen",
    "no special requests",
    "yes",
]


def _clock() -> datetime.datetime:
    return datetime.datetime(2026, 7, 10, 18, 0)


@pytest.fixture(scope="module")
def bella() -> Agent:
    return Agent.load(ROOT / "examples" / "bella_notte")  # the offline model


def _session(agent: Agent, texts: list[str]) -> Any:
    session = agent.session(clock=_clock, seed=0)
    for text in texts:
        session.send(text)
    return session


def test_the_slots_model_types_each_slot_from_its_setter_and_describes_it_by_its_hint(bella: Agent) -> None:
    model = bella.slots_model()
    assert model.__name__ == "BellaNotteSlots"
    fields = model.model_fields
    assert "welcome" not in fields  # an announce slot says something; it holds no data
    assert fields["party_size"].annotation is int  # set_reservation_basics(party_size: int | None)
    assert fields["preferred_date"].annotation is str
    assert fields["available_times"].annotation is Any  # filled by a task: no declared type
    assert fields["party_size"].description == "Party size / number of guests"  # the slot's hint
    required = {name for name, info in fields.items() if info.is_required()}
    assert (
        required
        == {  # what every completed booking has: BookReservation's inputs, their sources, its output
            "party_size",
            "preferred_date",
            "available_times",
            "selected_time",
            "guest_name",
            "special_requests",
            "confirmation_number",
        }
    )
    assert fields["large_party_phone"].annotation == str | None  # conditional: only for large parties
    assert bella.slots_model() is model  # one class per agent
    partial = bella.slots_model(partial=True)
    assert not any(info.is_required() for info in partial.model_fields.values())
    assert partial.model_fields["party_size"].annotation == int | None


def test_a_completed_session_gives_its_slots_typed_and_its_task_results(bella: Agent) -> None:
    session = _session(bella, BOOKING)
    result = session.result()
    assert isinstance(result, SessionResult) and isinstance(result.slots, bella.slots_model())
    assert (result.status, result.complete, result.ended, result.agent) == (
        "complete",
        True,
        True,
        "bella_notte",
    )
    assert result.session_id == session.id
    assert result.slots.party_size == 4  # type: ignore[attr-defined]
    assert result.slots.guest_name == "Chen"  # type: ignore[attr-defined]
    assert result.slots.large_party_phone is None  # type: ignore[attr-defined]
    assert result.slots.confirmation_number.startswith("BN-")  # type: ignore[attr-defined]
    assert list(result.tasks) == ["FindAvailableTimes", "BookReservation"]
    booked = result.tasks["BookReservation"]
    assert booked == TaskOutcome(succeeded=True, result=session.state["task_results"]["BookReservation"])
    again = type(result).model_validate_json(result.model_dump_json())  # it travels as JSON
    assert again == result
    schema = type(result).model_json_schema()
    assert "party_size" in json.dumps(schema)  # the slots' schema is part of the result's


def test_your_own_model_gets_the_values_converted_to_its_types(bella: Agent) -> None:
    class Booking(BaseModel):
        party_size: int
        preferred_date: datetime.date
        selected_time: datetime.time
        guest_name: str
        special_requests: str | None = None

    result = _session(bella, BOOKING).result(Booking)
    assert result.slots == Booking(
        party_size=4,
        preferred_date=datetime.date(2026, 7, 17),
        selected_time=datetime.time(19, 30),
        guest_name="Chen",
        special_requests="None",  # the example stores "None" when the guest has none (its none_sub readback)
    )
    assert isinstance(result.slots, Booking)  # result: SessionResult[Booking], for type checkers too


def test_values_that_do_not_fit_are_named_slot_by_slot(bella: Agent) -> None:
    class Wrong(BaseModel):
        party_size: Literal["small", "large"]
        guest_name: str
        loyalty_number: str

    session = _session(bella, BOOKING)
    with pytest.raises(SlotsValidationError) as caught:
        session.result(Wrong)
    message = str(caught.value)
    assert "do not fit Wrong (2 problem(s))" in message
    assert "slot 'party_size': Input should be 'small' or 'large' (the session holds 4)" in message
    assert "slot 'loyalty_number': not filled, but the model requires it" in message
    assert caught.value.code == "slots_invalid" and "optional" in caught.value.fix
    with pytest.raises(TypeError, match="pydantic model class"):
        session.result(dict)  # type: ignore[type-var]


def test_an_unfinished_session_is_refused_unless_partial(bella: Agent) -> None:
    session = _session(bella, BOOKING[:3])
    with pytest.raises(SessionNotCompleteError) as caught:
        session.result()
    assert (
        "is in_progress, not complete: 3 of 8 slots filled (not yet: large_party_phone, selected_time"
        in str(caught.value)
    )
    assert "partial=True" in caught.value.fix and caught.value.code == "session_not_complete"
    result = session.result(partial=True)
    assert (result.status, result.complete, result.ended) == ("in_progress", False, False)
    assert result.slots.party_size == 4 and result.slots.guest_name is None  # type: ignore[attr-defined]
    assert list(result.tasks) == ["FindAvailableTimes"]


def test_a_session_ended_by_a_tool_is_ended_but_not_complete() -> None:
    dag = {"slots": [{"name": "count", "source": "user", "setter": "set_count", "ask": "How many?"}]}

    def set_count(count: int) -> dict[str, Any]:
        """Record the count."""
        return {"stored": True, "value": count}

    model = ScriptedModel([ScriptedStep(tool_calls=(call("escalate", reason="the caller asked"),))])
    session = Agent.from_config(dag, tools=[set_count], model=model, name="counter").session()
    session.send("a human please")
    result = session.result(partial=True)
    assert result.ended and not result.complete and result.slots.count is None  # type: ignore[attr-defined]


def test_slot_names_that_are_not_identifiers_keep_their_names_as_aliases() -> None:
    dag = {
        "slots": [
            {"name": "class", "source": "user", "setter": "set_class", "ask": "Which class?"},
            {"name": "2nd-choice", "source": "user", "setter": "set_second", "ask": "And second?"},
            {"name": "model_config", "source": "user", "setter": "set_config", "ask": "Config?"},
        ]
    }

    def set_class(value: str) -> dict[str, Any]:
        """Record the class."""
        return {"stored": True, "value": value}

    def set_second(value: str) -> dict[str, Any]:
        """Record the second choice."""
        return {"stored": True, "value": value}

    def set_config(value: str) -> dict[str, Any]:
        """Record the config."""
        return {"stored": True, "value": value}

    agent = Agent.from_config(dag, tools=[set_class, set_second, set_config], name="odd names")
    model = agent.slots_model(partial=True)
    assert model.__name__ == "OddNamesPartialSlots"
    assert set(model.model_fields) == {"class_", "slot_2nd_choice", "model_config_"}
    values = model.model_validate({"class": "first", "2nd-choice": "economy", "model_config": "x"})
    assert values.model_dump(by_alias=True) == {
        "class": "first",
        "2nd-choice": "economy",
        "model_config": "x",
    }


def test_a_tool_without_python_annotations_is_typed_from_its_json_schema() -> None:
    parameters = {
        "type": "object",
        "properties": {
            "size": {"type": "integer", "description": "How many"},
            "tier": {"enum": ["gold", "silver"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "when": {"type": ["string", "null"]},
            "extra": {"type": "object"},
        },
    }
    remote = Tool("set_order", None, ToolSchema("set_order", "Record the order (an MCP tool).", parameters))
    dag = {
        "slots": [
            {"name": name, "source": "user", "setter": "set_order", "setter_field": name, "ask": "?"}
            for name in parameters["properties"]
        ]
    }
    fields = Agent.from_config(dag, tools=[remote], name="orders").slots_model(partial=True).model_fields
    assert fields["size"].annotation == int | None and fields["size"].description == "How many"
    assert fields["tier"].annotation == Literal["gold", "silver"] | None
    assert fields["tags"].annotation == list[str] | None
    assert fields["note"].annotation == str | None and fields["when"].annotation == str | None
    assert fields["extra"].annotation == dict[str, Any] | None


def test_in_a_multi_agent_app_you_choose_whose_slots() -> None:
    from slotgraph.apps import load_app

    app = load_app(ROOT / "examples" / "bella_notte_team")
    session = app.session(seed=0)
    for text in ["Hi, I'd like to book a table", "4 guests", "yes"]:
        session.send(text)
    result = session.result(partial=True)  # the agent the conversation is with
    assert result.agent == "reservations" and result.slots.party_size == 4  # type: ignore[attr-defined]
    host = session.result(partial=True, agent="host")
    assert host.agent == "host" and type(host.slots).__name__ == "HostPartialSlots"
    with pytest.raises(SessionError, match="no agent named 'nobody'") as caught:
        session.result(partial=True, agent="nobody")
    assert "reservations" in caught.value.fix


def test_the_names_are_exported_from_slotgraph() -> None:
    assert slotgraph.SessionResult is SessionResult
