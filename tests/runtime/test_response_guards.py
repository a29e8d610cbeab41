"""Response guards in the turn loop: the model's text is guarded before it becomes an event, the history only
holds what the person saw, a regeneration is a tool-less call with the guard's feedback, the judge is a
tool-less call, guard events are typed and persisted with the turn."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from slotgraph.models.protocol import AssistantText
from slotgraph.models.scripted import estimate_prompt_tokens
from slotgraph.runtime import (
    Agent,
    GuardEvent,
    ScriptedModel,
    ScriptedStep,
    TextEvent,
    call,
)
from slotgraph.runtime.events import event_to_json

from .toy_agent import Backend, clock, toy_dag

NO_DISCOUNTS = {"name": "no_discounts", "check": {"pattern": "(?i)discount"}, "message": "Prices are fixed."}


def _agent(model: ScriptedModel, *guards: dict[str, Any]) -> Agent:
    return Agent.from_config(
        toy_dag(), tools=Backend().tools(), model=model, response_guards=list(guards) or [NO_DISCOUNTS]
    )


def _texts(history: Any) -> list[str]:
    return [m.text for m in history if isinstance(m, AssistantText)]


def test_the_person_and_the_history_see_only_the_guarded_text() -> None:
    model = ScriptedModel(
        [
            ScriptedStep(text="How many guests? Members get a discount."),
            ScriptedStep(
                text="Noted.",
                check=lambda r: "discount" not in json.dumps([getattr(m, "text", "") for m in r.messages]),
            ),
        ]
    )
    session = _agent(model).session(clock=clock)
    streamed: list[Any] = []

    async def sink(event: Any) -> None:
        streamed.append(event)

    result = asyncio.run(session.asend("Hi", on_event=sink))
    assert result.text == "How many guests? Prices are fixed."
    guards = [e for e in streamed if isinstance(e, GuardEvent)]
    texts = [e.text for e in streamed if isinstance(e, TextEvent)]
    assert texts == ["How many guests? Prices are fixed."]  # the sink never got the draft
    assert streamed.index(guards[0]) < streamed.index(next(e for e in streamed if isinstance(e, TextEvent)))
    assert event_to_json(guards[0]) == {
        "kind": "guard",
        "guard": "no_discounts",
        "check": "pattern",
        "action": "replace",
        "sentence": 1,
        "detail": "",
    }
    session.send("two")  # the second model call checks the history it gets
    assert _texts(session.history)[0] == "How many guests? Prices are fixed."
    model.assert_complete()


def test_regeneration_is_a_toolless_call_with_feedback_and_the_draft_never_enters_history() -> None:
    guard = {"name": "no_promises", "check": {"pattern": "guarantee"}, "on_violation": "regenerate"}
    model = ScriptedModel(
        [
            ScriptedStep(text="I guarantee a table.", tool_calls=(call("set_num_guests", count=2),)),
            ScriptedStep(
                text="Two guests noted.",
                check=lambda r: (
                    not r.tools and "no_promises" in r.system_instruction.split("<response_guard>")[1]
                ),
            ),
            ScriptedStep(text="What date?"),
        ]
    )
    session = _agent(model, guard).session(clock=clock)
    result = session.send("two of us")
    assert result.text == "Two guests noted. What date?"
    assert result.model_calls == 3  # the regeneration is a model call
    assert session.state["filled"]["num_guests"] == 2  # the original response's tool call still ran
    assert "guarantee" not in json.dumps(_texts(session.history))
    assert [(e.guard, e.action) for e in result.events if isinstance(e, GuardEvent)] == [
        ("no_promises", "regenerate")
    ]
    regeneration = model.requests[1]
    assert all(getattr(m, "text", "") != "I guarantee a table." for m in regeneration.messages)
    model.assert_complete()


def test_the_judge_is_a_toolless_call_of_the_agents_model_and_its_usage_counts() -> None:
    guard = {"name": "polite", "check": {"llm": "Deny rude sentences."}, "on_violation": "suppress"}
    model = ScriptedModel(
        [
            ScriptedStep(text="How many guests? Hurry up."),
            ScriptedStep(
                text="ALLOW", check=lambda r: not r.tools and r.messages[-1].text == "How many guests?"
            ),
            ScriptedStep(text="DENY", check=lambda r: "Deny rude sentences." in r.system_instruction),
        ]
    )
    result = _agent(model, guard).session(clock=clock).send("Hi")
    assert result.text == "How many guests?"
    assert result.model_calls == 1  # judge calls are not turns of the conversation...
    first = estimate_prompt_tokens(model.requests[0])
    assert result.usage.prompt_tokens > first  # ...but their tokens count
    model.assert_complete()


def test_a_fully_suppressed_reply_is_silence_not_an_error() -> None:
    guard = {"check": {"pattern": r"^\s*VOICE_ONLY[.!]?\s*$"}, "on_violation": "suppress"}
    model = ScriptedModel([ScriptedStep(text="VOICE_ONLY")])
    session = _agent(model, guard).session(clock=clock)
    result = session.send("Hi")
    assert result.text == "" and not result.errors
    assert [e.action for e in result.events if isinstance(e, GuardEvent)] == ["suppress"]
    assert _texts(session.history) == []


def test_guards_from_agent_yaml(tmp_path: Any) -> None:
    (tmp_path / "agent.yaml").write_text(
        "name: guarded\n"
        "dag: {slots: [{name: a, source: user, setter: set_a, ask: 'A?'}], tasks: []}\n"
        "response_guards:\n"
        "  - {name: no_discounts, check: {pattern: '(?i)discount'}, message: Prices are fixed.}\n",
        encoding="utf-8",
    )
    (tmp_path / "tools.py").write_text("def set_a(value: str) -> dict:\n    return {'value': value}\n")
    model = ScriptedModel([ScriptedStep(text="A discount!")])
    agent = Agent.load(tmp_path, model=model)
    assert agent.logic is not None and [g.name for g in agent.logic.guards] == ["no_discounts"]
    assert agent.session(clock=clock).send("hi").text == "Prices are fixed."


def test_the_engines_own_text_is_guarded_too_and_never_regenerated() -> None:
    """A preempted reply (the engine speaks, the model is not called) goes through the guards as well; a
    regenerate guard cannot ask the engine again, so it falls back on its message."""
    guard = {"name": "no_dates", "check": {"pattern": "date"}, "on_violation": "regenerate", "message": "Ok."}
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("set_num_guests", count=2),)),
            ScriptedStep(text="Noted."),
        ]
    )
    agent = Agent.from_config(
        toy_dag(readback=True), tools=Backend().tools(), model=model, response_guards=[guard]
    )
    session = agent.session(clock=clock)
    session.send("two")  # pending: the model reads it back
    result = session.send("yes")  # the engine confirms and asks the next question itself (preempted)
    assert result.preempted
    assert "date" not in result.text and result.text.endswith("Ok.")
    events = [(e.guard, e.action, e.detail) for e in result.events if isinstance(e, GuardEvent)]
    assert events == [("no_dates", "replace", "the host cannot regenerate")]
    assert "date" not in _texts(session.history)[-1]
    assert model.remaining == 0
