"""The replay model: expected calls not yet made and visible, each once; otherwise the directive."""

from __future__ import annotations

import asyncio

from slotgraph.evals import ReplayCall, ReplayModel
from slotgraph.evals.replay import NEUTRAL_TEXT, directive_text
from slotgraph.runtime import (
    AssistantToolCalls,
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolSchema,
    UserMessage,
)


def _request(tools: list[str], messages: tuple[object, ...] = (), instruction: str = "") -> ModelRequest:
    schemas = tuple(ToolSchema(name, "", {"type": "object"}) for name in tools)
    return ModelRequest(instruction, (UserMessage("hi"), *messages), schemas)  # type: ignore[arg-type]


def _generate(model: ReplayModel, request: ModelRequest) -> ModelResponse:
    return asyncio.run(model.generate(request))


def test_visible_expected_calls_are_made_together_and_once() -> None:
    model = ReplayModel()
    model.begin_turn([ReplayCall("set_a", {"a": 1}), ReplayCall("set_b", {"b": 2}), ReplayCall("hidden", {})])
    first = _generate(model, _request(["set_a", "set_b"]))
    assert [(c.name, dict(c.args)) for c in first.tool_calls] == [("set_a", {"a": 1}), ("set_b", {"b": 2})]
    assert first.text is None
    again = _generate(
        model, _request(["set_a", "set_b"], instruction="<system_directive>\nNext?\n</system_directive>")
    )
    assert again.tool_calls == () and again.text == "Next?"


def test_a_call_that_already_happened_this_turn_is_not_repeated() -> None:
    model = ReplayModel()
    model.begin_turn([ReplayCall("confirm_pending", {})])
    engine_call = AssistantToolCalls((ToolCall("e1", "confirm_pending", {}),))
    response = _generate(model, _request(["confirm_pending"], (engine_call,)))
    assert response.tool_calls == () and response.text == NEUTRAL_TEXT


def test_calls_before_the_turn_do_not_count() -> None:
    model = ReplayModel()
    model.begin_turn([ReplayCall("set_a", {"a": 1})])
    old = AssistantToolCalls((ToolCall("c0", "set_a", {"a": 1}),))
    request = ModelRequest(
        "", (UserMessage("earlier"), old, UserMessage("now")), (ToolSchema("set_a", "", {}),)
    )
    assert [c.name for c in _generate(model, request).tool_calls] == ["set_a"]


def test_a_hidden_call_waits_until_it_is_visible() -> None:
    model = ReplayModel()
    model.begin_turn([ReplayCall("set_b", {"b": 1})])
    assert _generate(model, _request(["set_a"])).tool_calls == ()
    assert [c.name for c in _generate(model, _request(["set_b"])).tool_calls] == ["set_b"]


def test_directive_text_reads_the_last_block_not_the_prose() -> None:
    instruction = (
        "When a <system_directive> is present, relay it.\n"
        "<system_directive>\nHow many guests?\n</system_directive>"
    )
    assert directive_text(instruction) == "How many guests?"
    assert directive_text("no directive") is None
    assert directive_text("<system_directive>\n\n</system_directive>") is None
