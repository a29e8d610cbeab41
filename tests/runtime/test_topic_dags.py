"""A topic with its own DAG (isolated slot state): entering it runs that DAG's engine on the topic's own
state within the same turn (the words that moved it reach its model as <user_context>); the agent's DAG
and its setters are out of sight meanwhile; __return__ leaves it with its data kept for a later
re-entry; the state is persisted with the session in the logic record and checked when loaded."""

from __future__ import annotations

import asyncio
import datetime
from typing import Any

import pytest

from slotgraph.models.protocol import ModelRequest
from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep, call
from slotgraph.runtime.errors import AgentLoadError, StorePayloadError
from slotgraph.runtime.events import ErrorEvent
from slotgraph.runtime.store import InMemoryStore

MAIN = {"slots": [{"name": "guests", "source": "user", "setter": "set_guests", "ask": "How many guests?"}]}
GIFT = {
    "slots": [
        {"name": "amount", "source": "user", "setter": "set_amount", "ask": "How much should it be?"},
        {"name": "recipient", "source": "user", "setter": "set_recipient", "ask": "Who is it for?"},
    ]
}
TOPICS = [{"id": "gift_card", "description": "Buying a gift card.", "dag": GIFT}]
MAIN_TOOLS = {"set_guests", "transition_topic", "escalate"}  # mid-flow end_session is hidden


def set_guests(guests: int) -> dict[str, Any]:
    """Record the number of guests."""
    return {"stored": True, "value": guests}


def set_amount(amount: int) -> dict[str, Any]:
    """Record the gift card's amount."""
    return {"stored": True, "value": amount}


def set_recipient(recipient: str) -> dict[str, Any]:
    """Record who the gift card is for."""
    return {"stored": True, "value": recipient}


def _clock() -> datetime.datetime:
    return datetime.datetime(2026, 7, 1, 12, 0)


def _agent(model: Any, topics: list[dict[str, Any]] | None = None) -> Agent:
    return Agent.from_config(
        MAIN,
        tools=[set_guests, set_amount, set_recipient],
        instruction="Take reservations.",
        model=model,
        topics=topics if topics is not None else TOPICS,
    )


def _on_gift_dag(request: ModelRequest) -> bool:
    names = set(request.tool_names)
    return bool({"set_amount", "set_recipient"} & names) and "set_guests" not in names


def _on_main_dag(request: ModelRequest) -> bool:
    names = set(request.tool_names)
    return not {"set_amount", "set_recipient"} & names


def test_entering_a_topic_with_a_dag_runs_its_engine_on_its_own_state_and_return_keeps_it() -> None:
    model = ScriptedModel(
        [
            # turn 1: the main DAG's model moves to the topic; the topic's DAG takes over the same turn
            ScriptedStep(tool_calls=(call("transition_topic", topic="gift_card"),), expect_tools=MAIN_TOOLS),
            ScriptedStep(
                tool_calls=(call("set_amount", amount=50),),
                check=_on_gift_dag,
                expect_in_instruction=("<user_context>", "a 50 dollar gift card", "How much should it be?"),
            ),
            ScriptedStep(text="Who is it for?", check=_on_gift_dag),
            # turn 2: back to the reservation before finishing the card
            ScriptedStep(tool_calls=(call("transition_topic", topic="__return__"),), check=_on_gift_dag),
            ScriptedStep(text="How many guests?", check=_on_main_dag),
            # turn 3: the reservation goes on with its own slots
            ScriptedStep(tool_calls=(call("set_guests", guests=4),), expect_tools=MAIN_TOOLS),
            ScriptedStep(text="Four guests.", check=_on_main_dag),
            # turn 4: the card again: the amount is still there, the recipient is asked
            ScriptedStep(tool_calls=(call("transition_topic", topic="gift_card"),)),
            ScriptedStep(
                text="Who is it for?", expect_in_instruction=("Who is it for?",), check=_on_gift_dag
            ),
        ]
    )
    store = InMemoryStore()
    agent = _agent(model)
    session = agent.session(session_id="s", store=store, clock=_clock)
    first = session.send("I'd like a 50 dollar gift card")
    assert first.topic_states["gift_card"]["filled"] == {"amount": 50}
    assert first.state["filled"] == {}  # the agent's own DAG did not get the amount
    assert first.variables["current_topic"] == "gift_card"

    second = session.send("actually, the table first")
    assert second.variables["current_topic"] == ""
    third = agent.session(session_id="s", store=store, clock=_clock).send("four of us")  # reloaded
    assert third.state["filled"] == {"guests": 4}
    assert third.topic_states["gift_card"]["filled"] == {"amount": 50}  # kept while away

    again = agent.session(session_id="s", store=store, clock=_clock)
    fourth = again.send("and now the gift card")
    assert fourth.topic_states["gift_card"]["filled"] == {"amount": 50}
    assert again.topic_states["gift_card"]["filled"] == {"amount": 50}
    assert fourth.state["filled"] == {"guests": 4}
    model.assert_complete()


def test_moves_between_dags_in_one_turn_are_bounded() -> None:
    bounce = [
        ScriptedStep(tool_calls=(call("transition_topic", topic=topic),))
        for topic in ("gift_card", "__return__", "gift_card", "__return__")
    ]
    model = ScriptedModel(bounce)
    result = _agent(model).session(clock=_clock).send("go")
    assert [e.code for e in result.events if isinstance(e, ErrorEvent)] == ["topic_loop"]
    model.assert_complete()


def test_a_malformed_stored_topic_state_is_refused() -> None:
    store = InMemoryStore()
    model = ScriptedModel([ScriptedStep(text="Hello.")])
    agent = _agent(model)
    agent.session(session_id="s", store=store, clock=_clock).send("hi")
    found = asyncio.run(store.load("s"))
    assert found is not None
    record, version = found
    record["logic"]["topic_states"] = {"gift_card": {"filled": []}}  # as a bad writer would leave it
    asyncio.run(store.save("s", record, version))
    with pytest.raises(StorePayloadError, match="topic 'gift_card'"):
        agent.session(session_id="s", store=store, clock=_clock).send("hello again")


def test_a_python_topic_dag_file_needs_an_agent_directory() -> None:
    with pytest.raises(AgentLoadError, match="needs an agent directory"):
        _agent(None, [{"id": "gift_card", "description": "Gift cards.", "dag": "gift.yaml"}])


def test_a_hand_over_back_to_an_agent_in_a_dag_topic_hands_the_words_to_that_dag() -> None:
    from slotgraph.apps import Member, build_app

    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("transition_topic", topic="gift_card"),)),
            ScriptedStep(text="How much should it be?", check=_on_gift_dag),
            ScriptedStep(tool_calls=(call("transfer_to_agent", agent="desk"),), check=_on_gift_dag),
            ScriptedStep(text="How many?"),
            ScriptedStep(tool_calls=(call("transfer_to_agent", agent="agent"),)),  # the host's name
            ScriptedStep(  # the host is still in its topic: its DAG's model gets the words
                tool_calls=(call("set_amount", amount=50),),
                check=_on_gift_dag,
                expect_in_instruction=("<user_context>", "back to the card: 50 dollars"),
            ),
            ScriptedStep(text="Who is it for?", check=_on_gift_dag),
        ]
    )
    host = _agent(model)
    desk = Agent.from_config({"slots": [], "tasks": []}, name="desk", model=model)
    root = build_app(
        "shop",
        host.name,
        [Member(host, handoffs=("desk",)), Member(desk, "Counts guests.", handoffs=(host.name,))],
    )
    session = root.session(clock=_clock)
    session.send("a gift card please")
    session.send("let me count first")
    result = session.send("back to the card: 50 dollars")
    assert result.agent == host.name and result.topic_states["gift_card"]["filled"] == {"amount": 50}
    assert result.state["filled"] == {}
    model.assert_complete()
