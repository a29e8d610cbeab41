"""The offline model's routing: it picks a routing tool's target by the words of the targets' descriptions,
and never routes on a tie or on no shared word."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from slotgraph.models.offline import OfflineModel
from slotgraph.models.offline.routing import route, routing_targets
from slotgraph.models.protocol import ModelRequest, ToolSchema, UserMessage
from slotgraph.runtime.agent_team import routing_schema

TARGETS = {
    "reservations": "Book a table, a reservation for dinner at the restaurant (party size, date, time).",
    "takeout": "Order takeout food to pick up (dishes, pickup time).",
}


def _tool(targets: dict[str, str] = TARGETS, name: str = "transfer_to_agent") -> dict[str, Any]:
    base = ToolSchema(name, "Hand the conversation over.", {"type": "object", "properties": {}})
    return routing_schema(base, "agent", targets).as_json()


@pytest.mark.parametrize(
    ("text", "target"),
    [
        ("I'd like to book a table for Friday", "reservations"),
        ("Can I order some takeout?", "takeout"),
        ("Do you have reservations tonight?", "reservations"),
        ("I want to pick up two pizzas", "takeout"),
    ],
)
def test_the_target_sharing_words_with_the_message_is_chosen(text: str, target: str) -> None:
    assert route([_tool()], text) == ("transfer_to_agent", {"agent": target})


@pytest.mark.parametrize("text", ["Hello there", "What are your opening hours?", ""])
def test_no_shared_word_is_no_routing(text: str) -> None:
    assert route([_tool()], text) is None


def test_a_tie_is_no_routing() -> None:
    tied = {"a": "pasta dishes", "b": "pasta sauces"}
    assert route([_tool(tied)], "pasta please") is None


def test_suffixes_match_but_other_prefixes_do_not() -> None:
    targets = {"booking": "appointments", "billing": "invoices"}
    assert route([_tool(targets, "set_active_flow")], "a question about a bill") == (
        "set_active_flow",
        {"agent": "billing"},
    )
    assert route([_tool(targets)], "I need an appointment") == ("transfer_to_agent", {"agent": "booking"})
    assert route([_tool({"takeout": "food to go"})], "I'll take the window table") is None


def test_only_tools_that_describe_every_value_are_routing_tools() -> None:
    plain = {
        "name": "set_size",
        "parameters": {"type": "object", "properties": {"size": {"type": "integer"}}},
    }
    half = _tool()
    half["parameters"]["properties"]["agent"]["enum"].append("bar")
    assert routing_targets(plain) is None and routing_targets(half) is None
    assert routing_targets(_tool()) == ("agent", TARGETS)


def test_the_offline_model_makes_the_routing_call_alone() -> None:
    request = ModelRequest(
        system_instruction="You are the front desk.",
        messages=(UserMessage("Could I order takeout for tonight?"),),
        tools=(ToolSchema(**{k: v for k, v in _tool().items()}),),
    )
    response = asyncio.run(OfflineModel().generate(request))
    assert [(c.name, dict(c.args)) for c in response.tool_calls] == [
        ("transfer_to_agent", {"agent": "takeout"})
    ]
    assert not response.text
