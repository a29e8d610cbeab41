"""The Gemini mapping against recorded REST payloads: requests out, responses in, the schema subset."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from slotgraph.models.errors import ModelResponseError
from slotgraph.models.gemini_schema import to_gemini_schema
from slotgraph.models.gemini_wire import MalformedFunctionCall, request_body, response_from_body
from slotgraph.models.protocol import (
    AssistantText,
    AssistantToolCalls,
    ModelRequest,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

from .gemini_fixtures import TOOL_TURN, fixture


def test_a_request_maps_to_the_recorded_rest_body() -> None:
    assert request_body(TOOL_TURN) == fixture("request_tool_turn")


def test_text_then_calls_share_one_model_content_and_odd_results_become_strings() -> None:
    request = ModelRequest(
        "",
        (
            UserMessage("hi"),
            AssistantText("Noting that."),
            AssistantToolCalls((ToolCall("c1", "f", {"when": "x"}),)),
            ToolResultMessage("c1", "f", {"at": datetime.date(2026, 7, 17)}),
            UserMessage("thanks"),
        ),
    )
    assert request_body(request) == {
        "contents": [
            {"role": "user", "parts": [{"text": "hi"}]},
            {
                "role": "model",
                "parts": [{"text": "Noting that."}, {"functionCall": {"name": "f", "args": {"when": "x"}}}],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "f", "response": {"at": "2026-07-17"}}},
                    {"text": "thanks"},
                ],
            },
        ]
    }


def test_a_text_response() -> None:
    response = response_from_body(fixture("response_text"), where="gemini")
    assert response.text == "Just to confirm: 4 guests on July 17th, under the name Chen?"
    assert response.tool_calls == () and response.usage == Usage(412, 14)


def test_a_function_call_response_skips_thoughts_and_counts_thinking_tokens() -> None:
    response = response_from_body(fixture("response_function_calls"), where="gemini", call_offset=2)
    assert response.text is None
    assert response.tool_calls == (
        ToolCall(
            "gemini_call_3", "set_reservation_basics", {"party_size": 4, "preferred_date": "2026-07-17"}
        ),
        ToolCall("gemini_call_4", "set_guest_info", {"guest_name": "Chen"}),
    )
    assert response.usage == Usage(388, 51)


def test_call_ids_from_the_api_are_kept() -> None:
    body = fixture("response_function_calls")
    body["candidates"][0]["content"]["parts"][1]["functionCall"]["id"] = "fc-1"
    assert response_from_body(body, where="gemini").tool_calls[0].id == "fc-1"


def test_a_malformed_function_call_is_its_own_error() -> None:
    with pytest.raises(MalformedFunctionCall, match="malformed function call"):
        response_from_body(fixture("response_malformed_call"), where="gemini")


def test_a_blocked_prompt_says_why() -> None:
    with pytest.raises(ModelResponseError, match=r"blocked the prompt \(SAFETY\)"):
        response_from_body(fixture("response_blocked"), where="gemini")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ([], "not a JSON object"),
        ({"candidates": []}, "no candidates"),
        ({"candidates": [{"finishReason": "MAX_TOKENS"}]}, "no content"),
        ({"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]}, "has no name"),
    ],
)
def test_bodies_that_are_not_the_protocol(body: Any, expected: str) -> None:
    with pytest.raises(ModelResponseError, match=expected):
        response_from_body(body, where="gemini model 'm'")


def test_an_empty_stop_is_an_empty_response() -> None:
    response = response_from_body({"candidates": [{"finishReason": "STOP"}]}, where="gemini")
    assert response.text is None and response.tool_calls == ()


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "string", "format": "date-time"}, {"type": "STRING", "format": "date-time"}),
        ({"type": "string", "format": "email"}, {"type": "STRING", "description": "format: email"}),
        ({"type": "integer", "format": "int64"}, {"type": "INTEGER", "format": "int64"}),
        ({"const": "yes"}, {"type": "STRING", "enum": ["yes"]}),
        ({"type": "integer", "enum": [1, 2]}, {"type": "INTEGER", "description": "one of: 1, 2"}),
        (
            {"type": "array", "items": {"type": "string"}, "minItems": 1},
            {"type": "ARRAY", "items": {"type": "STRING"}, "minItems": 1},
        ),
        (
            {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            {"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}]},
        ),
        (
            {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
            {"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}], "nullable": True},
        ),
        ({"type": "object", "additionalProperties": {"type": "string"}}, {"type": "OBJECT"}),
    ],
)
def test_schema_conversion(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    wrapped = {"type": "object", "properties": {"x": schema}}
    converted = to_gemini_schema(wrapped)
    assert converted is not None and converted["properties"]["x"] == expected


def test_refs_are_inlined() -> None:
    schema = {
        "type": "object",
        "properties": {"when": {"$ref": "#/$defs/Slot", "description": "the slot"}},
        "$defs": {"Slot": {"type": "object", "properties": {"time": {"type": "string"}}, "title": "Slot"}},
    }
    assert to_gemini_schema(schema) == {
        "type": "OBJECT",
        "properties": {
            "when": {"type": "OBJECT", "description": "the slot", "properties": {"time": {"type": "STRING"}}}
        },
    }


def test_a_dangling_ref_is_dropped() -> None:
    schema = {"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing", "type": "string"}}}
    assert to_gemini_schema(schema) == {"type": "OBJECT", "properties": {"a": {"type": "STRING"}}}


def test_no_parameters_means_no_schema() -> None:
    assert to_gemini_schema({}) is None
    assert to_gemini_schema({"type": "object", "properties": {}}) is None
