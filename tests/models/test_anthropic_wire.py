"""The Anthropic Messages wire mapping on plain data: turns alternate, ids are valid, blocks map back."""

from __future__ import annotations

from typing import Any

import pytest

from slotgraph.models.anthropic_wire import (
    DEFAULT_MAX_TOKENS,
    request_body,
    response_from_body,
    wire_id,
)
from slotgraph.models.errors import ModelResponseError
from slotgraph.models.protocol import (
    AssistantText,
    AssistantToolCalls,
    ModelRequest,
    ToolCall,
    ToolResultMessage,
    ToolSchema,
    Usage,
    UserMessage,
)
from slotgraph.models.tool_arguments import is_unparsable

from .payloads import payloads

fixture = payloads("anthropic")
WHERE = "anthropic model 'm' at http://x/v1/messages"


def test_system_tools_and_max_tokens() -> None:
    tool = ToolSchema("set_party_size", "Record the party size.", {})
    body = request_body(ModelRequest("Be brief.", (UserMessage("hi"),), (tool,)), "claude-x")
    assert body == {
        "model": "claude-x",
        "max_tokens": DEFAULT_MAX_TOKENS,
        "system": "Be brief.",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        "tools": [
            {
                "name": "set_party_size",
                "description": "Record the party size.",
                "input_schema": {"type": "object", "properties": {}},
            }
        ],
    }


def test_extra_body_overrides_defaults() -> None:
    body = request_body(ModelRequest("", (UserMessage("hi"),)), "m", {"max_tokens": 50, "temperature": 0})
    assert (body["max_tokens"], body["temperature"]) == (50, 0)
    assert "system" not in body and "tools" not in body


def test_a_tool_round_trip_alternates_and_merges_turns() -> None:
    messages = (
        UserMessage("", event="welcome"),
        AssistantText("Welcome! How many guests?"),
        UserMessage("four, on friday"),
        AssistantText("Noting that."),
        AssistantToolCalls((ToolCall("c1", "set_party_size", {"party_size": 4}),)),
        AssistantToolCalls((ToolCall("engine:2", "set_date", {"date": "2026-07-17"}),)),
        ToolResultMessage("c1", "set_party_size", {"ok": True}),
        ToolResultMessage("engine:2", "set_date", {"error": True, "refused": "hidden_tool", "message": "no"}),
        UserMessage("thanks"),
    )
    body = request_body(ModelRequest("sys", messages), "m")
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "[event: welcome]"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Welcome! How many guests?"}]},
        {"role": "user", "content": [{"type": "text", "text": "four, on friday"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Noting that."},
                {"type": "tool_use", "id": "c1", "name": "set_party_size", "input": {"party_size": 4}},
                {"type": "tool_use", "id": "engine_2", "name": "set_date", "input": {"date": "2026-07-17"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": '{"ok": true}'},
                {
                    "type": "tool_result",
                    "tool_use_id": "engine_2",
                    "content": '{"error": true, "refused": "hidden_tool", "message": "no"}',
                    "is_error": True,
                },
                {"type": "text", "text": "thanks"},
            ],
        },
    ]


def test_a_conversation_that_starts_with_the_agent_gets_a_leading_user_turn() -> None:
    body = request_body(ModelRequest("", (AssistantText("Hello!"), UserMessage("hi"))), "m")
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][0]["content"] == [{"type": "text", "text": "[conversation start]"}]


@pytest.mark.parametrize(("raw", "wire"), [("toolu_01A", "toolu_01A"), ("a.b c", "a_b_c"), ("", "call")])
def test_wire_ids(raw: str, wire: str) -> None:
    assert wire_id(raw) == wire


def test_text_response_and_usage() -> None:
    response = response_from_body(fixture("response_text"), where=WHERE)
    assert response.text == "Four it is. What date would you like?"
    assert response.tool_calls == () and response.usage == Usage(412, 12)


def test_tool_use_response_counts_cached_input_tokens() -> None:
    response = response_from_body(fixture("response_tool_use"), where=WHERE)
    assert response.text == "Let me note that."
    assert response.tool_calls == (
        ToolCall("toolu_01A09q90qw90lq917835lq9", "set_party_size", {"party_size": 4}),
        ToolCall("toolu_01B7hz92Kp3sX1", "set_date", {"date": "2026-07-17"}),
    )
    assert response.usage == Usage(530 + 20 + 100, 61)


def test_thinking_blocks_are_skipped() -> None:
    response = response_from_body(fixture("response_thinking_then_tool"), where=WHERE)
    assert response.text is None
    assert [c.name for c in response.tool_calls] == ["set_party_size"]


def test_an_input_that_is_not_an_object_becomes_a_refusable_call() -> None:
    body = {"content": [{"type": "tool_use", "id": "t", "name": "f", "input": [1, 2]}]}
    (call,) = response_from_body(body, where=WHERE).tool_calls
    assert is_unparsable(call.args)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ([], "not a JSON object"),
        ({"type": "message"}, "no 'content' list"),
        ({"content": ["x"]}, "content block is not an object"),
        ({"content": [{"type": "tool_use", "id": "t", "input": {}}]}, "tool_use block #1 has no name"),
    ],
)
def test_bodies_that_are_not_the_protocol(body: Any, expected: str) -> None:
    with pytest.raises(ModelResponseError, match=expected) as info:
        response_from_body(body, where=WHERE)
    assert WHERE in str(info.value)
