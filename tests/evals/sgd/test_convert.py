"""The SGD schema → agent converter: every service validates and compiles; setters carry typed schemas."""

from __future__ import annotations

import asyncio
import datetime
import types
from typing import Any

import pytest
from benchmarks.sgd import GoldBackend, ServiceSchema, convert_service

from slotgraph.config import compile_config, validate_dag
from slotgraph.runtime import Agent, ToolContext

SERVICES = ["Restaurants_1", "Hotels_2", "Services_1", "RideSharing_2"]


def _schemas(agent: Agent) -> dict[str, dict[str, Any]]:
    return {t.name: dict(t.schema.parameters) for t in agent.tools}


@pytest.mark.parametrize("service", SERVICES)
def test_each_service_converts_validates_and_compiles(
    schemas: dict[str, ServiceSchema], service: str
) -> None:
    converted = convert_service(schemas[service], GoldBackend(()))
    names = [fn.__name__ for fn in converted.tools]
    report = validate_dag(converted.dag, tool_names=[*names, "confirm_pending", "reject_pending"])
    assert report.ok, [str(e) for e in report.errors]
    compiled = compile_config(converted.dag)
    terminal = [t for t in compiled.tasks if t.terminal]
    assert [t.name for t in terminal] == [schemas[service].transactional.name]
    assert terminal[0].readback_inputs
    for name in terminal[0].inputs:
        assert compiled.slot_by_name[name].requires_readback
    Agent.from_config(converted.dag, tools=converted.tools)  # every tool's schema derives


def test_categorical_slots_become_enums(schemas: dict[str, ServiceSchema]) -> None:
    converted = convert_service(schemas["Restaurants_1"], GoldBackend(()))
    tools = _schemas(Agent.from_config(converted.dag, tools=converted.tools))
    party = tools["set_party_size"]["properties"]["party_size"]
    assert party["type"] == "integer" and party["enum"] == [1, 2, 3, 4, 5, 6]
    assert tools["set_time"]["properties"]["time"]["type"] == "string"
    price = tools["set_find_restaurants_price_range"]["properties"]["price_range"]
    assert "moderate" in price["enum"] and "dontcare" in price["enum"]
    assert (
        tools["set_find_restaurants_has_live_music"]["properties"]["has_live_music"]["enum"][-1] == "dontcare"
    )
    assert tools["set_intent"]["properties"]["intent"]["enum"] == ["ReserveRestaurant", "FindRestaurants"]


def test_search_intent_offers_the_choice_slot_and_single_intent_has_no_intent_slot(
    schemas: dict[str, ServiceSchema],
) -> None:
    restaurants = convert_service(schemas["Restaurants_1"], GoldBackend(()))
    assert restaurants.choice_slot == "restaurant_name"
    assert restaurants.has_intent_slot
    assert convert_service(schemas["Services_1"], GoldBackend(())).choice_slot == "stylist_name"
    assert convert_service(schemas["Hotels_2"], GoldBackend(())).choice_slot is None
    ride = convert_service(schemas["RideSharing_2"], GoldBackend(()))
    assert not ride.has_intent_slot
    assert "intent" not in [s["name"] for s in ride.dag["slots"]]


def _context(state: dict[str, Any]) -> ToolContext:
    now = datetime.datetime(2019, 3, 1, 10)
    return ToolContext(now, now.date(), types.MappingProxyType(state), None, "s")


def test_booking_setters_infer_missing_real_defaults_only(schemas: dict[str, ServiceSchema]) -> None:
    converted = convert_service(schemas["Restaurants_1"], GoldBackend(()))
    set_time = next(fn for fn in converted.tools if fn.__name__ == "set_time")
    empty: dict[str, Any] = {"filled": {}, "pending": {}, "deferred": {}}
    assert set_time(time="18:30", context=_context(empty)) == {
        "stored": True, "value": "18:30", "inferred": {"date": "2019-03-01", "party_size": 2},
    }  # fmt: skip
    known = {"filled": {}, "pending": {}, "deferred": {"party_size": 4}}
    assert set_time(time="18:30", context=_context(known))["inferred"] == {"date": "2019-03-01"}
    # search criteria have no defaults to infer
    set_city = next(fn for fn in converted.tools if fn.__name__ == "set_find_restaurants_city")
    assert set_city(city="Palo Alto") == {"stored": True, "value": "Palo Alto"}


def test_executor_calls_the_backend_with_sgd_strings(schemas: dict[str, ServiceSchema]) -> None:
    backend = GoldBackend(())
    converted = convert_service(schemas["RideSharing_2"], backend)
    get_ride = next(fn for fn in converted.tools if fn.__name__ == converted.transactional_tool)
    result = get_ride(destination="Mall", number_of_seats=2, ride_type="Pool")
    assert result["success"] is False
    assert backend.calls[0].parameters == {"destination": "Mall", "number_of_seats": "2", "ride_type": "Pool"}
    assert not backend.calls[0].matched
    assert asyncio.iscoroutinefunction(get_ride) is False
