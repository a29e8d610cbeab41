"""The turn loop's mechanics with a stand-in engine: refusals, failures, step cap, suffix, preemption."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep, call
from slotgraph.runtime.events import (
    EndSessionEvent,
    PayloadEvent,
    RefusalEvent,
    StateSnapshotEvent,
    TextEvent,
    ToolResultEvent,
)
from slotgraph.runtime.instructions import SENTINEL

from .fakes import FakeEngine
from .toy_agent import Backend, clock, toy_dag

HIDE_ALL_BUT_NAME = ["set_num_guests", "set_date", "set_chosen_time", "confirm_pending", "reject_pending"]


def _session(model: ScriptedModel, engine: FakeEngine, tools: list[Any] | None = None, **kwargs: Any) -> Any:
    agent = Agent.from_config(
        toy_dag(), tools=tools or Backend().tools(), instruction="Be kind.", model=model
    )
    return agent.session(engine=engine, clock=clock, **kwargs)


def _tools_with(**overrides: Any) -> list[Any]:
    tools = {fn.__name__: fn for fn in Backend().tools()}
    tools.update(overrides)
    return list(tools.values())


@pytest.mark.parametrize(
    ("tool_call", "reason"),
    [
        (call("set_num_guests", count=4), "hidden_tool"),
        (call("book_spaceship"), "unknown_tool"),
        (call("check_availability", num_guests=4, date="2026-07-18"), "executor"),
        (call("set_name", name=42), "bad_arguments"),
        (call("set_name"), "bad_arguments"),
        (call("set_name", name="Chen", nickname="C"), "bad_arguments"),
    ],
)
def test_refused_calls_are_not_executed_and_the_model_reads_why(
    tool_call: Any, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    engine = FakeEngine([{"hide_tools": HIDE_ALL_BUT_NAME}, {"hide_tools": HIDE_ALL_BUT_NAME}])
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(tool_call,)),
            ScriptedStep(
                text="Sorry about that.",
                check=lambda r: r.messages[-1].result["refused"] == reason,  # type: ignore[union-attr]
            ),
        ]
    )
    with caplog.at_level(logging.WARNING, logger="slotgraph.runtime"):
        result = _session(model, engine).send("hello")
    assert result.refusals == 1
    refusal = next(e for e in result.events if isinstance(e, RefusalEvent))
    assert refusal.refused == reason and refusal.name == tool_call.name
    assert engine.routed == []  # never executed, never routed
    assert result.text == "Sorry about that."
    assert any(reason in record.getMessage() for record in caplog.records)
    model.assert_complete()


def test_a_setter_that_raises_is_a_failed_result_and_the_state_is_untouched() -> None:
    def set_name(name: str) -> dict[str, Any]:
        """Record the name."""
        raise ValueError("name service down")

    engine = FakeEngine()
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("set_name", name="Chen"),)),
            ScriptedStep(text="Sorry, could you repeat the name?"),
        ]
    )
    session = _session(model, engine, tools=_tools_with(set_name=set_name))
    result = session.send("Chen")
    failed = next(e for e in result.events if isinstance(e, ToolResultEvent))
    assert failed.failed and "ValueError: name service down" in failed.result["message"]
    assert engine.routed == []
    assert "routed" not in session.state
    assert result.text == "Sorry, could you repeat the name?"


def test_an_executor_that_raises_is_routed_as_a_task_failure() -> None:
    def check_availability(num_guests: int, date: str) -> dict[str, Any]:
        """Look up free tables."""
        raise ConnectionError("backend unreachable")

    engine = FakeEngine(
        [
            {},
            {
                "preempt": True,
                "function_call": {"name": "check_availability", "args": {"num_guests": 4, "date": "x"}},
            },
        ]
    )
    model = ScriptedModel(
        [ScriptedStep(tool_calls=(call("set_name", name="Chen"),)), ScriptedStep(text="Hm.")]
    )
    result = _session(model, engine, tools=_tools_with(check_availability=check_availability)).send("Chen")
    assert engine.routed[-1] == (
        "check_availability",
        {"num_guests": 4, "date": "x"},
        {"success": False, "error": "ConnectionError: backend unreachable"},
    )
    assert not result.errors


def test_the_step_cap_ends_a_turn_whose_model_calls_tools_forever_and_keeps_the_state() -> None:
    engine = FakeEngine()
    model = ScriptedModel([ScriptedStep(tool_calls=(call("set_name", name=f"n{i}"),)) for i in range(3)])
    session = _session(model, engine, step_cap=3)
    result = session.send("loop")
    assert [e.code for e in result.errors] == ["step_cap"]
    assert "3 steps" in result.errors[0].message
    assert result.model_calls == 3
    assert session.state["routed"] == ["set_name"] * 3  # routed results are kept
    model.assert_complete()


def test_the_suffix_is_replaced_not_accumulated_across_model_calls() -> None:
    engine = FakeEngine(
        [
            {
                "message": "FIRST directive",
                "si_suffix": "<deferred_collection>\nnoted\n</deferred_collection>",
            },
            {"message": "SECOND directive"},
        ]
    )

    def only_second(request: Any) -> bool:
        instruction: str = request.system_instruction
        return (
            instruction.count(SENTINEL) == 1
            and "SECOND directive" in instruction
            and "FIRST directive" not in instruction
            and "<deferred_collection>" not in instruction
            and instruction.startswith("Be kind.")
        )

    model = ScriptedModel(
        [
            ScriptedStep(
                tool_calls=(call("set_name", name="Chen"),), expect_in_instruction=["FIRST directive"]
            ),
            ScriptedStep(text="ok", check=only_second),
        ]
    )
    _session(model, engine).send("Chen")
    model.assert_complete()


def test_the_engine_gets_the_user_text_once_per_turn() -> None:
    engine = FakeEngine()
    model = ScriptedModel(
        [ScriptedStep(tool_calls=(call("set_name", name="Chen"),)), ScriptedStep(text="ok")]
    )
    _session(model, engine).send("I am Chen")
    assert [i["last_user_text"] for i in engine.invocations] == ["I am Chen", ""]
    assert engine.begun == 1


def test_no_preemption_on_the_first_call_of_a_session() -> None:
    engine = FakeEngine([{"preempt": True, "message": "How many guests?"}])
    model = ScriptedModel(
        [ScriptedStep(text="Welcome! How many of you?", expect_in_instruction=["How many guests?"])]
    )
    result = _session(model, engine).send("Hi")
    assert result.text == "Welcome! How many of you?" and result.model_calls == 1


def test_force_preempt_skips_the_model_even_on_the_first_call() -> None:
    engine = FakeEngine([{"preempt": True, "force_preempt": True, "message": "Welcome to Bella Notte!"}])
    model = ScriptedModel([])
    result = _session(model, engine).send("Hi")
    assert result.preempted and result.text == "Welcome to Bella Notte!"
    assert [e.origin for e in result.events if isinstance(e, TextEvent)] == ["engine"]


def test_preemption_after_the_first_turn() -> None:
    engine = FakeEngine([{}, {"preempt": True, "message": "What date works for you?"}])
    model = ScriptedModel([ScriptedStep(text="Hello!")])
    session = _session(model, engine)
    session.send("Hi")
    second = session.send("hmm")
    assert second.preempted and second.text == "What date works for you?"


def test_response_parts_of_a_preempted_reply_become_events() -> None:
    parts = [
        {"type": "text", "text": "Confirmed!"},
        {"type": "payload", "data": {"card": 1}},
        {"type": "end_session", "reason": "completed"},
    ]
    engine = FakeEngine(
        [{"preempt": True, "force_preempt": True, "message": "Confirmed!", "response": parts}]
    )
    session = _session(ScriptedModel([]), engine)
    result = session.send("ok")
    assert [e.kind for e in result.events] == ["text", "payload", "end_session"]
    assert session.ended


def test_after_model_payloads_follow_the_models_last_reply_once_per_turn() -> None:
    card = {"type": "payload", "data": {"chips": ["2", "4"]}}
    engine = FakeEngine([{"stash": [card]}, {"stash": [card]}])
    model = ScriptedModel(
        [
            ScriptedStep(text="Let me note that.", tool_calls=(call("set_name", name="Chen"),)),
            ScriptedStep(text="Done"),
        ]
    )
    session = _session(model, engine)
    result = session.send("Chen")
    kinds = [e.kind for e in result.events if e.kind in ("text", "payload")]
    assert kinds == ["text", "text", "payload"]  # after the reply that ends the turn, never after tool calls
    assert next(e for e in result.events if isinstance(e, PayloadEvent)).part == card
    assert "_pending_payloads" not in session.state  # the stash travels in the action, not the state


def test_a_stashed_text_the_directive_carries_is_said_once() -> None:
    # A welcome whose response repeats its message beside a card (an imported platform announce): the model
    # relays the directive, so only the card follows; a text the directive does not carry is delivered.
    welcome = {"type": "text", "text": "Welcome  to Bella Notte!"}
    card = {"type": "payload", "data": {"card": "info"}}
    other = {"type": "text", "text": "Please pick one:"}
    engine = FakeEngine(
        [{"message": "Welcome to Bella Notte! How many guests?", "stash": [welcome, card, other]}]
    )
    model = ScriptedModel([ScriptedStep(text="Welcome to Bella Notte! How many guests?")])
    result = _session(model, engine).send("hi")
    said = [(e.kind, getattr(e, "text", None)) for e in result.events if e.kind in ("text", "payload")]
    assert said == [
        ("text", "Welcome to Bella Notte! How many guests?"),
        ("payload", None),
        ("text", "Please pick one:"),
    ]
    model.assert_complete()


def test_the_card_of_a_question_just_answered_is_not_shown() -> None:
    # The stash prepared for the first call is the party-size chips; the model answers it with a tool call
    # only, the engine then stashes the date chips for the next question: only those follow the reply.
    party = {"type": "payload", "data": {"chips": ["2", "4"]}}
    dates = {"type": "payload", "data": {"chips": ["today", "tomorrow"]}}
    engine = FakeEngine([{"stash": [party]}, {"stash": [dates]}])
    model = ScriptedModel(
        [ScriptedStep(tool_calls=(call("set_name", name="Chen"),)), ScriptedStep(text="Which day?")]
    )
    result = _session(model, engine).send("4 of us")
    assert [e.part for e in result.events if isinstance(e, PayloadEvent)] == [dates]
    model.assert_complete()


def test_state_snapshot_after_each_tool() -> None:
    engine = FakeEngine()
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("set_name", name="A"), call("set_name", name="B"))),
            ScriptedStep(text="ok"),
        ]
    )
    result = _session(model, engine).send("x")
    snapshots = [e for e in result.events if isinstance(e, StateSnapshotEvent)]
    assert [s.state["routed"] for s in snapshots] == [["set_name"], ["set_name", "set_name"]]


def test_terminal_status_runs_the_model_freely_without_the_engine() -> None:
    engine = FakeEngine(sm_updates=[{"status": "complete"}])
    model = ScriptedModel(
        [
            ScriptedStep(text="Booked."),
            ScriptedStep(
                text="You're welcome!",
                expect_tools={"end_session", "escalate"},
                check=lambda r: SENTINEL not in r.system_instruction,
            ),
        ]
    )
    session = _session(model, engine)
    session.send("book")
    session.send("thanks")
    assert len(engine.invocations) == 1  # not invoked in the terminal state
    model.assert_complete()


def test_end_session_tool_ends_the_session_of_an_agent_without_a_flow() -> None:
    model = ScriptedModel([ScriptedStep(tool_calls=(call("end_session", reason="user_request"),))])
    agent = Agent.from_config({"slots": [], "tasks": []}, tools=[], instruction="Chat.", model=model)
    session = agent.session(clock=clock)
    result = session.send("bye")
    assert any(isinstance(e, EndSessionEvent) and e.reason == "user_request" for e in result.events)
    assert session.ended


def test_end_session_is_hidden_while_the_flow_is_active_and_escalate_is_not() -> None:
    """As on the platform: mid-flow, only the engine's on_exhaust ends a conversation; a person who asks for
    a human can still be handed over."""
    engine = FakeEngine()
    model = ScriptedModel(
        [
            ScriptedStep(
                expect_hidden=frozenset({"end_session"}),
                tool_calls=(call("end_session", reason="user_request"),),
            ),
            ScriptedStep(text="What date works for you?"),
        ]
    )
    session = _session(model, engine)
    result = session.send("bye")
    assert result.refusals == 1 and not session.ended
    assert "escalate" in result.steps[0].visible_tools
