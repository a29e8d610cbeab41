"""The replay model: expected calls not yet made and visible, each once; otherwise the directive."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime

from slotgraph.evals import ReplayCall, ReplayModel
from slotgraph.evals.replay import NEUTRAL_TEXT, AppRoutes, Route, directive_text, said_words
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


# --- completing what a golden leaves out, as the platform's model would ----------------------------------

_NOW = datetime.datetime(2030, 4, 1, 12, 0)


def _optional(name: str, description: str, **params: str) -> ToolSchema:
    """A platform tool's schema: every parameter optional (defaults in the Python signature)."""
    properties = {p: {"type": "string", "description": d, "default": ""} for p, d in params.items()}
    return ToolSchema(name, description, {"type": "object", "properties": properties})


_VISIT = _optional(
    "set_visit_basics",
    "Record the reason for the visit and/or the preferred date.",
    visit_reason="One of cleaning, checkup, toothache, broken_tooth, whitening. Empty to omit.",
    preferred_date="Date in YYYY-MM-DD format. Empty to omit.",
)
_GUEST = _optional(
    "set_guest_info",
    "Record the guest's name and/or special requests.",
    guest_name="Name for the reservation. Empty to omit.",
    special_requests="Seating wishes, allergies, occasions, or 'none'. Empty to omit.",
)


def _said(text: str, *tools: ToolSchema, directive: str = "") -> ModelRequest:
    instruction = f"<system_directive>\n{directive}\n</system_directive>" if directive else ""
    return ModelRequest(instruction, (UserMessage(text),), tools, metadata={"now": _NOW})


def test_every_left_out_argument_the_text_gives_is_completed_with_its_words() -> None:
    model = ReplayModel()
    model.begin_turn([ReplayCall("set_visit_basics", {"visit_reason": "cleaning"})])
    (call,) = _generate(model, _said("Hi, I'd like a cleaning on April 15th", _VISIT)).tool_calls
    assert dict(call.args) == {"visit_reason": "cleaning", "preferred_date": "2030-04-15"}
    assert model.guesses == ["set_visit_basics.preferred_date = '2030-04-15' from 'April 15th'"]


def test_what_the_text_does_not_give_is_left_out_and_given_values_are_kept() -> None:
    model = ReplayModel()
    model.begin_turn([ReplayCall("set_visit_basics", {"visit_reason": "checkup"})])
    (call,) = _generate(model, _said("I'd like a cleaning", _VISIT)).tool_calls
    assert dict(call.args) == {"visit_reason": "checkup"}  # the golden's value wins; no date was said
    assert model.completions == []


def test_two_values_in_one_sentence_are_both_given() -> None:
    model = ReplayModel()
    model.begin_turn([ReplayCall("set_guest_info", {"guest_name": "Johnson"})])
    request = _said(
        "It's under Johnson, and we'd love a window table", _GUEST, directive="What name should I use?"
    )
    (call,) = _generate(model, request).tool_calls
    assert dict(call.args) == {"guest_name": "Johnson", "special_requests": "we'd love a window table"}
    assert model.guesses == [
        'set_guest_info.special_requests = "we\'d love a window table" from "we\'d love a window table"'
    ]


def test_a_required_argument_the_text_does_not_give_comes_from_the_expected_state() -> None:
    schema = ToolSchema(
        "set_pain_level",
        "",
        {"type": "object", "properties": {"level": {"type": "integer"}}, "required": ["level"]},
    )
    model = ReplayModel()
    model.begin_turn([ReplayCall("set_pain_level")], {"pain_level": 8})
    (call,) = _generate(model, _said("it hurts a lot", schema)).tool_calls
    assert dict(call.args) == {"level": 8}
    assert model.guesses == ["set_pain_level.level = 8 from the expected pain_level"]
    model.begin_turn([ReplayCall("set_pain_level")], {"pain_level": 8})
    (call,) = _generate(model, _said("about a seven", schema)).tool_calls
    assert dict(call.args) == {"level": 7}  # the user's words first, as the platform's model reads them
    assert model.guesses == ["set_pain_level.level = 7 from 'seven'"]


def test_said_words_finds_dates_times_counts_and_phones() -> None:
    text = "Tuesday April 9th at 1 PM for four, call 617-555-0142"
    assert said_words(text, "2030-04-09", _NOW) == "April 9th"
    assert said_words(text, "13:00", _NOW) == "1 PM"
    assert said_words(text, 4, _NOW) == "four"
    assert said_words(text, "+16175550142", _NOW) == "617-555-0142"
    assert said_words(text, "none", _NOW) == ""


# --- routing to the agent of the next expectations -------------------------------------------------------

_ROUTES = AppRoutes(
    tools={
        "Host": frozenset({"set_active_flow"}),
        "Booking": frozenset({"set_active_flow", "set_visit_basics"}),
        "Billing": frozenset({"set_active_flow", "set_invoice_number"}),
    },
    routes=(
        Route("set_active_flow", "flow", "booking", "Booking"),
        Route("set_active_flow", "flow", "billing", "Billing"),
    ),
)


def _router(*values: str) -> ToolSchema:
    flow = {"type": "string", "enum": list(values)}
    parameters = {"type": "object", "properties": {"flow": flow}}
    return ToolSchema("set_active_flow", "Route the caller.", parameters)


def test_the_host_calls_its_routing_tool_for_the_agent_of_the_expected_call() -> None:
    model = ReplayModel(_ROUTES)
    model.begin_turn([ReplayCall("set_visit_basics", {"visit_reason": "checkup"})])
    request = _said("Hi, I'd like to book a checkup", _router("booking", "billing"))
    (call,) = _generate(model, request).tool_calls
    assert (call.name, dict(call.args)) == ("set_active_flow", {"flow": "booking"})
    assert model.routes_taken == ["set_active_flow(flow='booking') → Booking"]
    again = _generate(model, request)  # a route is taken once a turn: no loop if the hand-over fails
    assert again.tool_calls == ()


def test_an_expected_transfer_is_routed_to_and_a_tool_hidden_here_is_not() -> None:
    model = ReplayModel(_ROUTES)
    model.begin_turn([], transfer_to="Billing")
    (call,) = _generate(model, _said("my invoice", _router("booking", "billing"))).tool_calls
    assert dict(call.args) == {"flow": "billing"}
    model = ReplayModel(_ROUTES)
    model.begin_turn([ReplayCall("set_visit_basics")])  # the booking desk's engine hides its setter now
    assert _generate(model, _said("yes", _router("billing"))).tool_calls == ()


def test_without_an_app_nothing_is_routed() -> None:
    model = ReplayModel()
    model.begin_turn([ReplayCall("set_visit_basics")], transfer_to="Booking")
    response = _generate(model, _said("a checkup", _router("booking")))
    assert response.tool_calls == () and response.text == NEUTRAL_TEXT


def test_what_the_replay_filled_in_is_in_every_report() -> None:
    from pathlib import Path

    from slotgraph.evals import RunSummary, ScenarioResult, TurnRecord
    from slotgraph.evals.html_report import html_report
    from slotgraph.evals.junit import junit_xml
    from slotgraph.runtime import TurnResult, Usage

    note = "completed set_visit_basics.preferred_date = '2025-03-12' from 'March 12th'"
    turn = TurnRecord(1, "user", "a cleaning on March 12th", TurnResult((), 1, Usage(), 0, "in_progress"))
    turn = dataclasses.replace(turn, replay_notes=(note,))
    result = ScenarioResult("G", Path("G.json"), "passed", (turn,), kind="golden")
    summary = RunSummary((result,))
    assert result.replay_notes == ((1, note),)
    assert summary.to_json()["results"][0]["turns"][0]["replay"] == [note]
    assert "turn 1: " + note in junit_xml(summary)
    assert "replay completed set_visit_basics.preferred_date" in html_report(summary).replace("&#x27;", "'")
