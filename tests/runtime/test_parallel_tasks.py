"""Parallel tasks through the runtime: one engine step fires both, the calls run concurrently, each result is
routed back and judged on its own (docs/engine.md "Parallel tasks")."""

from __future__ import annotations

import asyncio
import datetime
from pathlib import Path
from typing import Any

from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep, call

TRIP_QUOTE = Path(__file__).parents[2] / "examples" / "trip_quote"
NOW = datetime.datetime(2026, 7, 10, 12, 0)
QUOTES = {"slots": [
    {"name": "city", "setter": "set_city", "ask": "Where to?"},
    {"name": "flight", "source": "task:Flight"},
    {"name": "hotel", "source": "task:Hotel"},
], "tasks": [
    {"name": "Flight", "tool": "quote_flight", "inputs": ["city"], "outputs": {"price": "flight"},
     "success_check": "ok", "parallel": True},
    {"name": "Hotel", "tool": "quote_hotel", "inputs": ["city"], "outputs": {"total": "hotel"},
     "success_check": "ok", "parallel": True, "then_say": "Flight {flight}, hotel {hotel}."},
]}  # fmt: skip


def _barrier_tools() -> list[Any]:
    """Two executors that each wait until the other has started: they finish only when run concurrently (run
    one after the other, the first one gives up after its bound and reports a failure)."""
    started = {"flight": asyncio.Event(), "hotel": asyncio.Event()}

    async def meet(mine: str, other: str) -> bool:
        started[mine].set()
        try:
            await asyncio.wait_for(started[other].wait(), timeout=10)
        except TimeoutError:
            return False
        return True

    def set_city(city: str) -> dict[str, Any]:
        """Record the city."""
        return {"stored": True, "value": city}

    async def quote_flight(city: str) -> dict[str, Any]:
        """Quote a flight."""
        return {"ok": await meet("flight", "hotel"), "price": "€90"}

    async def quote_hotel(city: str) -> dict[str, Any]:
        """Quote a hotel."""
        return {"ok": await meet("hotel", "flight"), "total": "€300"}

    return [set_city, quote_flight, quote_hotel]


def test_parallel_calls_run_concurrently_in_one_step() -> None:
    model = ScriptedModel([ScriptedStep(tool_calls=(call("set_city", city="Lisbon"),))])
    session = Agent.from_config(QUOTES, tools=_barrier_tools(), model=model).session(clock=lambda: NOW)
    result = session.send("Lisbon please")
    model.assert_complete()
    state = session.state
    assert state["task_results"] == {
        "Flight": {"ok": True, "price": "€90"},
        "Hotel": {"ok": True, "total": "€300"},
    }
    engine_steps = [step for step in result.steps if step.kind == "engine" and step.reason == "fire"]
    assert len(engine_steps) == 1
    calls = [e.name for e in engine_steps[0].events if e.kind == "tool_call"]
    assert calls == ["quote_flight", "quote_hotel"]
    assert "Flight €90, hotel €300." in result.text


def test_the_trip_quote_example_fires_both_quotes_in_one_step() -> None:
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("set_trip", destination="Lisbon", nights=3),)),
            ScriptedStep(text="Just to confirm: Lisbon, 3 nights?"),
            ScriptedStep(text="The flight is €91 and the hotel €462. Whose name should I book it under?"),
        ]
    )
    session = Agent.load(TRIP_QUOTE, model=model).session(clock=lambda: NOW, seed=0)
    session.send("Lisbon for 3 nights")
    result = session.send("yes")
    model.assert_complete()
    fires = [step for step in result.steps if step.reason == "fire"]
    assert len(fires) == 1
    assert [e.name for e in fires[0].events if e.kind == "tool_call"] == ["quote_flight", "quote_hotel"]
    assert set(session.state["task_results"]) == {"FlightQuote", "HotelQuote"}
    assert "Whose name" in result.text
