"""``OfflineModel`` on the runtime's model protocol, and end to end with the Bella Notte example."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

from slotgraph.models.offline import OfflineModel
from slotgraph.models.protocol import (
    AssistantText,
    AssistantToolCalls,
    Model,
    ModelRequest,
    ToolCall,
    ToolResultMessage,
    ToolSchema,
    UserMessage,
)

NOW = dt.datetime(2026, 7, 13, 18, 0)
BASICS = ToolSchema(
    "set_reservation_basics",
    "Record the party size and/or the preferred date.",
    {
        "type": "object",
        "properties": {
            "party_size": {"type": ["integer", "null"], "description": "Number of guests."},
            "preferred_date": {"type": ["string", "null"], "description": "Date in YYYY-MM-DD format."},
        },
    },
)
SI = (
    "Be warm.\n<!-- slot-framework -->\n"
    "<system_directive>\nHow many guests, and on what date?\n</system_directive>"
)
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "bella_notte"


def _generate(model: OfflineModel, request: ModelRequest):  # type: ignore[no-untyped-def]
    return asyncio.run(model.generate(request))


def test_it_is_a_model() -> None:
    assert isinstance(OfflineModel(), Model)


def test_a_user_message_becomes_tool_calls_with_unique_ids() -> None:
    earlier = AssistantToolCalls((ToolCall("x", "set_reservation_basics", {"party_size": 2}),))
    request = ModelRequest(SI, (UserMessage("hi"), earlier, UserMessage("4 people tomorrow")), (BASICS,))
    response = _generate(OfflineModel(clock=lambda: NOW), request)
    assert response.text is None
    assert response.tool_calls == (
        ToolCall("offline-2", "set_reservation_basics", {"party_size": 4, "preferred_date": "2026-07-14"}),
    )


def test_after_a_tool_result_it_only_relays_the_directive() -> None:
    call = ToolCall("offline-1", "set_reservation_basics", {"party_size": 4})
    messages = (
        UserMessage("4 people"),
        AssistantToolCalls((call,)),
        ToolResultMessage("offline-1", call.name, {}),
    )
    response = _generate(OfflineModel(clock=lambda: NOW), ModelRequest(SI, messages, (BASICS,)))
    assert response.tool_calls == ()
    assert response.text == "How many guests, and on what date?"


def test_an_event_turn_or_empty_conversation_relays_too() -> None:
    model = OfflineModel(clock=lambda: NOW)
    assert _generate(model, ModelRequest(SI, (UserMessage("", event="welcome"),), (BASICS,))).tool_calls == ()
    assert _generate(model, ModelRequest("no directive", (), (BASICS,))).text == "How can I help you?"
    assert _generate(model, ModelRequest(SI, (AssistantText("Hello"),), (BASICS,))).tool_calls == ()


def test_the_session_clock_in_metadata_wins_over_the_model_clock() -> None:
    later = dt.datetime(2026, 12, 30, 9, 0)
    request = ModelRequest(SI, (UserMessage("tomorrow"),), (BASICS,), metadata={"now": later.isoformat()})
    response = _generate(OfflineModel(clock=lambda: NOW), request)
    assert response.tool_calls[0].args == {"preferred_date": "2026-12-31"}
    request = ModelRequest(SI, (UserMessage("tomorrow"),), (BASICS,), metadata={"now": later})
    assert _generate(OfflineModel(clock=lambda: NOW), request).tool_calls[0].args == {
        "preferred_date": "2026-12-31"
    }


def test_bella_notte_books_a_table_end_to_end() -> None:
    from slotgraph.runtime import Agent

    agent = Agent.load(EXAMPLE, model=OfflineModel(clock=lambda: NOW))
    session = agent.session(clock=lambda: NOW)
    session.send("")
    for text in [
        "Hi, a table for 4 next Friday please",
        "yes",
        "7:30",
        "yes",
        "under Chen, no allergies",
        "yes",
    ]:
        result = session.send(text)
    assert "confirmation number" in (result.text or "").lower()


STAY = ToolSchema(
    "set_stay",
    "Record the stay's dates.",
    {
        "type": "object",
        "properties": {
            "check_in_date": {"type": "string", "format": "date", "description": "Start of the stay"},
            "check_out_date": {"type": "string", "format": "date", "description": "End of the stay"},
        },
    },
)
CHECK_IN, CHECK_OUT = (
    ToolSchema(f"set_{name}", "Record a date.", {"type": "object", "properties": {name: prop}})
    for name, prop in STAY.parameters["properties"].items()
)


def test_what_was_said_on_earlier_messages_is_what_the_person_already_gave() -> None:
    instruction = "<system_directive>\nAnything else?\n</system_directive>"
    earlier = AssistantToolCalls(
        (ToolCall("offline-1", "set_check_in_date", {"check_in_date": "2026-07-20"}),)
    )
    messages = (UserMessage("arriving the 20th"), earlier, UserMessage("July 24th"))
    request = ModelRequest(instruction, messages, (CHECK_IN, CHECK_OUT))
    response = _generate(OfflineModel(clock=lambda: NOW), request)
    assert [(c.name, dict(c.args)) for c in response.tool_calls] == [
        ("set_check_out_date", {"check_out_date": "2026-07-24"})
    ]
    first = ModelRequest(instruction, (UserMessage("July 24th"),), (CHECK_IN, CHECK_OUT))
    assert [c.name for c in _generate(OfflineModel(clock=lambda: NOW), first).tool_calls] == [
        "set_check_in_date"
    ]
