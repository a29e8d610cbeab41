"""The SGD schema → agent converter: every service validates and compiles; setters carry typed schemas."""

from __future__ import annotations

import asyncio
import datetime
import types
from typing import Any

import pytest
from benchmarks.sgd import GoldBackend, ServiceSchema, convert_service
from benchmarks.sgd.data import IntentSchema, SlotSchema

from slotgraph.config import compile_config, validate_dag
from slotgraph.runtime import Agent, ModelRequest, ModelResponse, ToolCall, ToolContext

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
    assert [t.name for t in terminal] == [tx.name for tx in schemas[service].transactionals]
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
    get_ride = next(fn for fn in converted.tools if fn.__name__ == converted.transactional_tools[0])
    result = get_ride(destination="Mall", number_of_seats=2, ride_type="Pool", context=_context({}))
    assert result["success"] is False
    assert backend.calls[0].parameters == {"destination": "Mall", "number_of_seats": "2", "ride_type": "Pool"}
    assert not backend.calls[0].matched
    assert asyncio.iscoroutinefunction(get_ride) is False


def _slot(name: str, description: str, *values: str) -> SlotSchema:
    return SlotSchema(name, description, bool(values), values)


TRAINS = ServiceSchema(
    "Trains_9",
    "Book train journeys",
    (
        _slot("from", "Departure city"),
        _slot("to", "Arrival city"),
        _slot("class", "Fare class", "Value", "Flexible", "Business"),
        _slot("date", "Date of the journey"),
        _slot("trip_protection", "Whether to add trip protection", "True", "False"),
        _slot("seat_note", "A note for the seat"),
    ),
    (
        IntentSchema("FindTrains", "Find trains between two cities", False, ("from", "to", "date"),
                     {"class": "dontcare"}, ("from", "to", "date", "class")),
        IntentSchema("GetTrainTickets", "Buy train tickets", True, ("from", "to", "date", "trip_protection"),
                     {"class": "Value", "seat_note": "dontcare"}, ("from", "to", "date", "class")),
    ),
)  # fmt: skip


def _run(agent: Agent, *turns: list[tuple[str, dict[str, Any]]]) -> tuple[set[str], list[set[str]]]:
    """Play ``turns`` of tool calls with a scripted model; the tools it was shown on each turn."""

    class Scripted:
        def __init__(self) -> None:
            self.plan: list[tuple[str, dict[str, Any]]] = []
            self.seen: set[str] = set()

        async def generate(self, request: ModelRequest) -> ModelResponse:
            self.seen = set(request.tool_names)
            if self.plan:
                name, args = self.plan.pop(0)
                return ModelResponse(tool_calls=(ToolCall(f"c{len(self.plan)}-{name}", name, args),))
            return ModelResponse(text="ok")

    model = Scripted()
    session = agent.session(model=model, clock=lambda: datetime.datetime(2019, 3, 1, 10), seed=0)
    shown: list[set[str]] = []
    for calls in turns:
        model.plan = list(calls)
        session.send("x")
        shown.append(model.seen)
    return model.seen, shown


def test_any_service_of_the_dataset_converts_and_compiles(schemas: dict[str, ServiceSchema]) -> None:
    # every schema of the train split, including search-only services and two bookings in one service
    for service in schemas.values():
        converted = convert_service(service, GoldBackend(()))
        Agent.from_config(converted.dag, tools=converted.tools, instruction=converted.instruction)
        terminal = [t["name"] for t in converted.dag["tasks"] if t.get("terminal")]
        assert terminal == [tx.name for tx in service.transactionals], service.name
    flights = convert_service(schemas["Flights_1"], GoldBackend(()))
    assert len(flights.transactionals) == 2
    intent = next(s for s in flights.dag["slots"] if s["name"] == "intent")
    assert intent["changeable"] is True  # from the search to the booking the user names
    weather = convert_service(schemas["Weather_1"], GoldBackend(()))
    assert weather.transactionals == () and weather.transactional is None


def test_keyword_named_slots_become_identifiers_and_the_backend_sees_sgd_names() -> None:
    backend = GoldBackend(())
    converted = convert_service(TRAINS, backend)
    agent = Agent.from_config(converted.dag, tools=converted.tools)
    schemas = _schemas(agent)
    assert set(schemas["set_from_"]["properties"]) == {"from_"}
    assert schemas["set_find_trains_class_"]["properties"]["class_"]["enum"][-1] == "dontcare"
    assert [r.sgd_slot for r in converted.setters["from"]] == ["from", "from"]
    book = next(fn for fn in converted.tools if fn.__name__ == "get_train_tickets")
    filled = {"seat_note": "window", "intent": "GetTrainTickets"}
    book(from_="Boston", to="New York", date="2019-03-04", trip_protection=False, class_="dontcare",
         context=_context({"filled": filled}))  # fmt: skip
    assert backend.calls[-1].parameters == {
        "from": "Boston", "to": "New York", "date": "2019-03-04", "trip_protection": "False",
        "seat_note": "window",
    }  # fmt: skip


def test_search_criteria_are_early_answers_and_booking_values_stay_settable() -> None:
    agent = Agent.from_config(convert_service(TRAINS, GoldBackend(())).dag, tools=convert_service(
        TRAINS, GoldBackend(())).tools)  # fmt: skip
    # before the intent is known, the search's criteria are offered (kept until the intent is the search)
    _, (first,) = _run(agent, [])
    assert {"set_intent", "set_find_trains_from_", "set_from_", "set_trip_protection"} <= first
    # a booking value given during the search, and after being given, can still be set (changed)
    _, shown = _run(agent, [("set_intent", {"intent": "FindTrains"})], [("set_trip_protection", {
        "trip_protection": True})], [])  # fmt: skip
    assert "set_trip_protection" in shown[1] and "set_trip_protection" in shown[2]
    assert "set_find_trains_from_" in shown[2]
    # "don't care" optional of the booking is a preference never asked; the search's filter too
    names = [s["name"] for s in convert_service(TRAINS, GoldBackend(())).dag["slots"]]
    assert names.index("seat_note") > names.index("trip_protection")


DINING = ServiceSchema(
    "Dining_9",
    "Find and book tables",
    (_slot("restaurant_name", "Name of the restaurant"), _slot("city", "City of the restaurant"),
     _slot("time", "Time of the reservation")),
    (
        IntentSchema("FindPlaces", "Find a restaurant", False, ("city",), {}, ("restaurant_name", "city")),
        IntentSchema("BookTable", "Book a table", True, ("restaurant_name", "city", "time"), {},
                     ("restaurant_name", "city", "time")),
    ),
)  # fmt: skip


def test_the_offered_business_is_looked_up_by_the_name_said() -> None:
    rows = (
        {"restaurant_name": "Kampai Bar And Grill", "city": "San Jose"},
        {"restaurant_name": "Kampai Sushi", "city": "Fresno"},
    )
    converted = convert_service(DINING, GoldBackend((), rows))
    assert converted.choice_slot == "restaurant_name"
    setter = next(fn for fn in converted.tools if fn.__name__ == "set_restaurant_name")
    in_san_jose = _context({"filled": {"intent": "BookTable"}, "pending": {"city": "San Jose"}})
    assert setter(restaurant_name="Kampai", context=in_san_jose)["value"] == "Kampai Bar And Grill"
    assert setter(restaurant_name="Kampai", context=_context({}))["value"] == "Kampai"  # two: kept as said
    assert setter(restaurant_name="Zazie", context=in_san_jose)["value"] == "Zazie"  # unknown: as said
    # only the business a search offers is looked up
    set_city = next(fn for fn in converted.tools if fn.__name__ == "set_city")
    assert set_city(city="San", context=in_san_jose)["value"] == "San"
