"""The chat-completions mapping on plain data: requests out, responses in, malformed bodies."""

from __future__ import annotations

import json

import pytest

from slotgraph.models.errors import ModelResponseError
from slotgraph.models.openai_wire import request_body, response_from_body
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
from slotgraph.models.tool_arguments import INVALID_ARGUMENTS_PREFIX, is_unparsable, parse_arguments

from .openai_bodies import completion, tool_call

SETTER = ToolSchema(
    "set_party",
    "Record the party size.",
    {"type": "object", "properties": {"party_size": {"type": "integer"}}, "additionalProperties": False},
)


def test_a_request_maps_every_message_kind() -> None:
    request = ModelRequest(
        system_instruction="You are a host.",
        messages=(
            UserMessage("", event="welcome"),
            AssistantText("Welcome!"),
            UserMessage("four of us"),
            AssistantText("Let me note that."),
            AssistantToolCalls((ToolCall("c1", "set_party", {"party_size": 4}), ToolCall("c2", "noop", {}))),
            ToolResultMessage("c1", "set_party", {"ok": True, "note": "Ünïcode"}),
            ToolResultMessage("c2", "noop", "done"),
        ),
        tools=(SETTER,),
    )
    body = request_body(request, "m-1", {"temperature": 0})
    assert body["model"] == "m-1" and body["temperature"] == 0
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "set_party",
                "description": "Record the party size.",
                "parameters": SETTER.parameters,
            },
        }
    ]
    assert body["messages"] == [
        {"role": "system", "content": "You are a host."},
        {"role": "user", "content": "[event: welcome]"},
        {"role": "assistant", "content": "Welcome!"},
        {"role": "user", "content": "four of us"},
        {
            "role": "assistant",
            "content": "Let me note that.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "set_party", "arguments": '{"party_size": 4}'},
                },
                {"id": "c2", "type": "function", "function": {"name": "noop", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true, "note": "Ünïcode"}'},
        {"role": "tool", "tool_call_id": "c2", "content": '"done"'},
    ]


def test_no_tools_and_no_instruction_leave_the_keys_out() -> None:
    body = request_body(ModelRequest("", (UserMessage("hi"),)), "m")
    assert body == {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def test_a_parameterless_tool_still_gets_an_object_schema() -> None:
    body = request_body(ModelRequest("", (UserMessage("hi"),), (ToolSchema("ping", "Ping.", {}),)), "m")
    assert body["tools"][0]["function"]["parameters"] == {"type": "object", "properties": {}}


def test_a_response_with_text_and_usage() -> None:
    response = response_from_body(completion("Hello!", prompt=5, completion=2), where="srv")
    assert response.text == "Hello!" and response.tool_calls == () and response.usage == Usage(5, 2)


def test_a_response_with_several_tool_calls_keeps_their_ids_and_order() -> None:
    body = completion(None, [tool_call("a", {"x": 1}, "id-a"), tool_call("b", {"y": [1, 2]}, "id-b")])
    response = response_from_body(body, where="srv")
    assert response.text is None
    assert response.tool_calls == (ToolCall("id-a", "a", {"x": 1}), ToolCall("id-b", "b", {"y": [1, 2]}))


def test_calls_without_ids_get_ids_after_the_earlier_calls() -> None:
    body = completion(None, [tool_call("a", {}), tool_call("b", {})])
    response = response_from_body(body, where="srv", call_offset=3)
    assert [c.id for c in response.tool_calls] == ["call_4", "call_5"]


def test_malformed_arguments_become_a_marker_the_runtime_refuses() -> None:
    raw = '{"party_size": 4,'
    response = response_from_body(completion(None, [tool_call("set_party", raw, "c1")]), where="srv")
    (call,) = response.tool_calls
    assert is_unparsable(call.args)
    ((key, value),) = call.args.items()
    assert key.startswith(f"{INVALID_ARGUMENTS_PREFIX} (Expecting") and value == raw


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, {}),
        ("", {}),
        ({"a": 1}, {"a": 1}),
        ('{"a": 1}', {"a": 1}),
    ],
)
def test_arguments_that_parse(raw: object, expected: dict[str, object]) -> None:
    assert parse_arguments(raw) == expected


@pytest.mark.parametrize("raw", ["[1, 2]", "42", 42, "{'a': 1}", '{"a": 1} trailing'])
def test_arguments_that_are_not_a_json_object(raw: object) -> None:
    assert is_unparsable(parse_arguments(raw))


def test_a_long_malformed_argument_text_is_cut() -> None:
    (value,) = parse_arguments("{" + "x" * 5000).values()
    assert len(value) == 501 and value.endswith("…")


def test_a_refusal_field_is_the_text_when_there_is_no_content() -> None:
    body = completion(None)
    body["choices"][0]["message"]["refusal"] = "I can't help with that."
    assert response_from_body(body, where="srv").text == "I can't help with that."


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ([], "not a JSON object"),
        ({"choices": []}, "no 'choices'"),
        ({"choices": [{"index": 0}]}, "no 'message'"),
        (completion(None, [{"type": "function", "function": {"arguments": "{}"}}]), "no function name"),
        ({"choices": [{"message": {"content": None, "tool_calls": {"x": 1}}}]}, "'tool_calls' is not a list"),
    ],
)
def test_a_body_that_is_not_the_protocol_is_a_clear_error(body: object, expected: str) -> None:
    with pytest.raises(ModelResponseError, match=expected) as info:
        response_from_body(body, where="openai model 'm' at http://x/v1/chat/completions")
    assert "http://x/v1/chat/completions" in str(info.value)


def test_usage_ignores_missing_or_odd_counts() -> None:
    body = completion("hi")
    body["usage"] = {"prompt_tokens": "many"}
    assert response_from_body(body, where="srv").usage == Usage(0, 0)
    del body["usage"]
    assert response_from_body(body, where="srv").usage == Usage()
    assert json.dumps(body)
