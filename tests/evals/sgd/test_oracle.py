"""The oracle model: gold user acts → the tool calls an ideal LLM would make with the tools it is shown."""

from __future__ import annotations

import asyncio

from benchmarks.sgd import GoldBackend, Op, OracleModel, ServiceSchema, convert_service, plan_ops
from benchmarks.sgd.data import Act, UserTurn

from slotgraph.runtime import ModelRequest, ToolResultMessage, ToolSchema, UserMessage


def _turn(*acts: Act, state: dict[str, tuple[str, ...]] | None = None, index: int = 0) -> UserTurn:
    return UserTurn(index, "text", acts, "X", state or {})


def _act(act: str, slot: str = "", *values: str) -> Act:
    return Act(act, slot, values, values)


def _request(*tools: str, messages: tuple[object, ...] = ()) -> ModelRequest:
    schemas = tuple(ToolSchema(t, "", {}) for t in tools)
    sys = "x\n<!-- slot-framework -->\n<system_directive>\nWhat time?\n</system_directive>"
    return ModelRequest(sys, (*messages, UserMessage("text")), schemas)  # type: ignore[arg-type]


def test_plan_maps_each_act(schemas: dict[str, ServiceSchema]) -> None:
    agent = convert_service(schemas["Restaurants_1"], GoldBackend(()))
    turn = _turn(
        _act("INFORM_INTENT", "intent", "ReserveRestaurant"),
        Act("INFORM", "time", ("half past 6",), ("18:30",)),
        _act("SELECT"),
        _act("REQUEST_ALTS"),
        _act("AFFIRM"),
        _act("THANK_YOU"),
        state={"restaurant_name": ("Odori",)},
    )
    assert plan_ops(turn, agent) == [
        Op("intent", value="ReserveRestaurant"),
        Op("inform", "time", "18:30"),
        Op("select", "restaurant_name", "Odori"),
        Op("alts"),
        Op("affirm"),
    ]
    assert plan_ops(_turn(_act("NEGATE")), agent) == [Op("negate")]
    assert plan_ops(_turn(_act("NEGATE"), _act("INFORM", "time", "19:00")), agent) == [
        Op("inform", "time", "19:00")
    ]
    assert plan_ops(_turn(_act("THANK_YOU"), _act("GOODBYE"), _act("REQUEST", "phone_number")), agent) == []


def test_inform_calls_every_visible_setter_typed_and_waits_for_hidden_ones(
    schemas: dict[str, ServiceSchema],
) -> None:
    agent = convert_service(schemas["Restaurants_1"], GoldBackend(()))
    oracle = OracleModel(
        [_turn(_act("INFORM", "city", "Palo Alto"), _act("INFORM", "party_size", "4"))], agent
    )
    oracle.start_turn(0)
    first = asyncio.run(oracle.generate(_request("set_city", "set_party_size")))
    assert [(c.name, dict(c.args)) for c in first.tool_calls] == [
        ("set_city", {"city": "Palo Alto"}), ("set_party_size", {"party_size": 4}),
    ]  # fmt: skip
    second = asyncio.run(oracle.generate(_request("set_find_restaurants_city")))
    assert [c.name for c in second.tool_calls] == ["set_find_restaurants_city"]
    third = asyncio.run(oracle.generate(_request()))
    assert third.text == "What time?" and not third.tool_calls
    assert oracle.end_turn() == []


def test_unplaceable_inform_is_left_for_the_replay_to_judge(schemas: dict[str, ServiceSchema]) -> None:
    agent = convert_service(schemas["RideSharing_2"], GoldBackend(()))
    oracle = OracleModel([_turn(_act("INFORM", "ride_type", "Pool"))], agent)
    oracle.start_turn(0)
    assert asyncio.run(oracle.generate(_request("set_destination"))).tool_calls == ()
    assert oracle.end_turn() == [Op("inform", "ride_type", "Pool")]


def test_affirm_negate_and_alternatives(schemas: dict[str, ServiceSchema]) -> None:
    agent = convert_service(schemas["Restaurants_1"], GoldBackend(()))
    turns = [_turn(_act("AFFIRM")), _turn(_act("NEGATE"), index=1), _turn(_act("REQUEST_ALTS"), index=2)]
    oracle = OracleModel(turns, agent)
    oracle.start_turn(0)
    assert asyncio.run(oracle.generate(_request("set_time"))).tool_calls == ()  # nothing to confirm
    oracle.start_turn(0)
    assert [c.name for c in asyncio.run(oracle.generate(_request("confirm_pending"))).tool_calls] == [
        "confirm_pending"
    ]
    oracle.start_turn(1)
    assert [c.name for c in asyncio.run(oracle.generate(_request("reject_pending"))).tool_calls] == [
        "reject_pending"
    ]
    oracle.start_turn(2)
    shown = ToolResultMessage("c1", "find_restaurants", {"success": True, "offer": "Odori"})
    reply = asyncio.run(oracle.generate(_request("request_alternatives", messages=(shown,))))
    assert [(c.name, dict(c.args)) for c in reply.tool_calls] == [
        ("request_alternatives", {"exclude": ["Odori"]})
    ]


def test_failed_booking_alternative_is_accepted_only_by_the_next_affirm(
    schemas: dict[str, ServiceSchema],
) -> None:
    agent = convert_service(schemas["Restaurants_1"], GoldBackend(()))
    oracle = OracleModel([_turn(_act("AFFIRM")), _turn(_act("AFFIRM"), index=1)], agent)
    oracle.start_turn(0)
    oracle.observe_tool_result(
        "c", "reserve_restaurant", {"success": False, "alternative": {"time": "12:00"}}
    )
    oracle.end_turn()
    assert oracle.accepted_alternative(1) == {"time": "12:00"}
    assert oracle.given["time"] == "12:00"
    assert oracle.accepted_alternative(1) is None


def test_event_turns_get_text_only(schemas: dict[str, ServiceSchema]) -> None:
    agent = convert_service(schemas["RideSharing_2"], GoldBackend(()))
    oracle = OracleModel([_turn(_act("INFORM", "ride_type", "Pool"))], agent)
    request = ModelRequest("", (UserMessage("", event="resume"),), (ToolSchema("set_ride_type", "", {}),))
    oracle.start_turn(0)
    assert asyncio.run(oracle.generate(request)).tool_calls == ()
