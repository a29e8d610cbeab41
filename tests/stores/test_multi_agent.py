"""A multi-agent session persists in every store (memory, SQLite, Redis, PostgreSQL): the active agent and
every other agent's parked state survive a new session object, so a switch back finds its data."""

from __future__ import annotations

import datetime
from pathlib import Path

from slotgraph.apps import load_app

from .conftest import Backend

TEAM = Path(__file__).resolve().parents[2] / "examples" / "bella_notte_team"


def _clock() -> datetime.datetime:
    return datetime.datetime(2026, 7, 10, 18, 0)


def test_the_active_agent_and_the_parked_states_survive_on_every_store(backend: Backend) -> None:
    async def scenario() -> None:
        store = backend.open()
        root = load_app(TEAM)
        first = root.session(session_id="s", store=store, clock=_clock)
        await first.asend("I'd like to book a table")
        await first.asend("4 guests")
        await first.asend("yes")
        switched = await first.asend("Actually, could I order takeout first?")
        assert switched.agent == "takeout"
        second = root.session(session_id="s", store=backend.again(store), clock=_clock)  # a fresh object
        back = await second.asend("Now back to my reservation please")
        assert back.agent == "reservations" and back.state["filled"]["party_size"] == 4
        stored, _ = await store.load("s") or ({}, 0)
        assert stored["agent"] == "reservations"
        assert set(stored["agents"]) == {"host", "takeout"}
        assert stored["agents"]["takeout"]["sm"]["status"] == "in_progress"

    backend.run(scenario)


def test_a_topics_own_dag_state_survives_on_every_store_and_is_parked_with_its_agent(
    backend: Backend,
) -> None:
    async def scenario() -> None:
        store = backend.open()
        root = load_app(TEAM)
        first = root.session(session_id="s", store=store, clock=_clock)
        entered = await first.asend("Hi, I'd like to buy a gift card")  # the offline host enters the topic
        assert entered.variables["current_topic"] == "gift_cards"
        await first.asend("50 dollars")
        second = root.session(session_id="s", store=backend.again(store), clock=_clock)
        assert second.topic_states == {}  # nothing loaded before the first turn of this object
        routed = await second.asend("Now I'd like to book a table")  # the host, in its topic, hands over
        assert routed.agent == "reservations"
        stored, _ = await store.load("s") or ({}, 0)
        parked = stored["agents"]["host"]["logic"]
        assert parked["topic_states"]["gift_cards"]["filled"] == {"amount": 50}
        assert parked["variables"]["current_topic"] == "gift_cards"

    backend.run(scenario)
