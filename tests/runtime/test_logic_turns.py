"""The logic layer in the turn loop: instructions rebuilt before every model call, rules at each trigger,
rule events in TurnResult.events, variables persisted with the session."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from slotgraph.logic import RuleEvent
from slotgraph.runtime import Agent, AgentLoadError, ScriptedModel, ScriptedStep, call
from slotgraph.runtime.events import ToolCallEvent, event_to_json
from slotgraph.runtime.instructions import SENTINEL
from slotgraph.stores.memory import InMemoryStore

from .toy_agent import Backend, clock, toy_dag

INSTRUCTION = (
    "You are the host.\n"
    "{{#when is_member}}Greet {{guest}} as a returning member.{{:else}}Offer the membership.{{/when}}\n"
    "{{#when filled.num_guests >= 6}}Mention the large-group menu.{{/when}}\n"
    "{{run lookup_member with phone = caller_phone set tier = $.tier}}Tier: {{tier}}."
)

VARIABLES = [
    {"name": "is_member", "type": "boolean", "default": False, "description": "a returning member"},
    {"name": "guest", "type": "string", "description": "the guest's first name"},
    {"name": "tier", "type": "string", "description": "loyalty tier"},
    {"name": "guests", "type": "integer", "description": "party size", "linked_to": "filled.num_guests"},
    {"name": "big_party", "type": "boolean", "default": False, "description": "six or more"},
]

RULES = [
    {
        "name": "flag_big",
        "trigger": "tool_result",
        "tool": "set_num_guests",
        "condition": "result.value >= 6",
        "actions": [{"set_variable": {"variable": "big_party", "value": "True"}}],
    },
    {
        "name": "remind",
        "trigger": "variable_changed",
        "variable": "big_party",
        "actions": [{"inject_instruction": "Ask whether they need a high chair."}],
    },
    {
        "name": "count",
        "trigger": "turn_end",
        "actions": [{"set_variable": {"variable": "turns_seen", "value": "(turns_seen or 0) + 1"}}],
    },
]


def _tools(lookups: list[dict[str, Any]]) -> list[Any]:
    def lookup_member(phone: str) -> dict[str, Any]:
        """Look a caller up by phone."""
        lookups.append({"phone": phone})
        return {"tier": "gold" if phone == "+49" else "none"}

    return [*Backend().tools(), lookup_member]


def _agent(model: ScriptedModel, lookups: list[dict[str, Any]], **kw: Any) -> Agent:
    return Agent.from_config(
        toy_dag(),
        tools=_tools(lookups),
        instruction=INSTRUCTION,
        model=model,
        variables=VARIABLES,
        rules=kw.pop("rules", RULES),
        **kw,
    )


def _base(request: Any) -> str:
    return str(request.system_instruction.split(SENTINEL)[0])


def test_instruction_is_rebuilt_before_every_model_call_from_live_state() -> None:
    """ "#when sections re-rendered against live state" — per turn, and per model call within a turn."""
    lookups: list[dict[str, Any]] = []
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("set_num_guests", count=7),)),
            ScriptedStep(text="What date?"),
        ]
    )
    agent = _agent(model, lookups)
    session = agent.session(
        clock=clock, variables={"is_member": True, "guest": "Ada"}, metadata={"caller_phone": "+49"}
    )
    result = session.send("Seven of us")
    first, second = (_base(r) for r in model.requests)
    assert "Greet Ada as a returning member." in first and "Tier: gold." in first
    assert "large-group" not in first and "high chair" not in first
    assert "Mention the large-group menu." in second  # filled.num_guests changed between the two calls
    assert "Ask whether they need a high chair." in second  # injected by a variable_changed rule
    assert "{{" not in first + second  # statements never reach the model
    assert lookups == [{"phone": "+49"}]  # the second build reused the cached lookup
    rules = [e for e in result.events if isinstance(e, RuleEvent)]
    assert [(e.rule, e.trigger) for e in rules] == [
        ("flag_big", "tool_result"),
        ("remind", "variable_changed"),
        ("count", "turn_end"),
    ]
    assert json.loads(json.dumps(event_to_json(rules[0]))) == {
        "kind": "rule",
        "rule": "flag_big",
        "trigger": "tool_result",
        "actions": ["set_variable"],
        "ok": True,
        "error": None,
    }
    assert session.variables["guests"] == 7 and session.variables["big_party"] is True
    assert any(isinstance(e, ToolCallEvent) and e.origin == "logic" for e in result.events)


def test_variables_persist_with_the_session_in_the_store() -> None:
    store = InMemoryStore()
    lookups: list[dict[str, Any]] = []
    model = ScriptedModel([ScriptedStep(text="Hi"), ScriptedStep(text="Again")])
    agent = _agent(model, lookups)
    first = agent.session(session_id="s1", store=store, clock=clock, variables={"guest": "Bo"})
    first.send("hello")
    record, _ = asyncio.run(store.load("s1"))  # type: ignore[misc]
    assert record["logic"]["variables"]["turns_seen"] == 1
    assert record["logic"]["variables"]["guest"] == "Bo"
    again = agent.session(session_id="s1", store=store, clock=clock, variables={"guest": "ignored"})
    again.send("still there?")
    assert again.variables["turns_seen"] == 2 and again.variables["guest"] == "Bo"
    assert "Offer the membership." in _base(model.requests[1])


def test_a_rule_can_end_the_session_through_the_registered_tool() -> None:
    lookups: list[dict[str, Any]] = []
    rules = [
        {
            "trigger": "user_message",
            "condition": "is_member == False",
            "actions": [{"escalate": "not a member"}],
        }
    ]
    agent = _agent(ScriptedModel([]), lookups, rules=rules)
    session = agent.session(clock=clock)
    result = session.send("hi")
    assert result.ended and result.model_calls == 0
    assert [e.kind for e in result.events][:3] == ["tool_call", "tool_result", "state_snapshot"]


def test_a_rule_that_runs_an_executor_is_refused_and_the_turn_goes_on() -> None:
    rules = [
        {
            "name": "bad",
            "trigger": "turn_start",
            "actions": [{"run_tool": {"tool": "check_availability", "args": {"num_guests": "2"}}}],
        }
    ]
    model = ScriptedModel([ScriptedStep(text="How many guests?")])
    session = _agent(model, [], rules=rules).session(clock=clock)
    result = session.send("hi")
    (event,) = [e for e in result.events if isinstance(e, RuleEvent)]
    assert not event.ok and "executor" in (event.error or "")
    assert result.text == "How many guests?"


def test_python_given_logic_is_checked_like_agent_yaml() -> None:
    with pytest.raises(AgentLoadError, match="linked"):
        Agent.from_config(
            toy_dag(), tools=Backend().tools(), instruction="{{set guests = 1}}", variables=VARIABLES
        )
    with pytest.raises(AgentLoadError, match=r"never closed"):
        Agent.from_config(toy_dag(), tools=Backend().tools(), instruction="{{#when x}}")


def test_dag_conditions_read_session_variables() -> None:
    """ "DAG conditions can read variables (e.g. a slot asked only for callers whose is_member is false)"."""
    dag = {
        "slots": [
            {"name": "name", "source": "user", "setter": "set_name", "ask": "Your name?"},
            {
                "name": "card",
                "source": "user",
                "setter": "set_card",
                "ask": "Your card number?",
                "condition": "not is_member",
            },
            {"name": "booking", "source": "task:Book"},
        ],
        "tasks": [
            {
                "name": "Book",
                "tool": "book",
                "inputs": ["name", "card"],
                "terminal": True,
                "outputs": {"booking": "booking"},
                "success_check": "success",
                "then_say": "Booked.",
            }
        ],
    }

    def set_name(name: str) -> dict[str, Any]:
        """Record the name."""
        return {"stored": True, "value": name}

    def set_card(card: str) -> dict[str, Any]:
        """Record the card."""
        return {"stored": True, "value": card}

    def book(name: str, card: str | None = None) -> dict[str, Any]:
        """Book."""
        return {"success": True, "booking": "B-1"}

    variables = [{"name": "is_member", "type": "boolean", "default": False, "description": "a member"}]
    for member in (True, False):
        model = ScriptedModel(
            [ScriptedStep(tool_calls=(call("set_name", name="Ada"),)), ScriptedStep(text="(relayed)")][
                : 1 if member else 2
            ]
        )
        agent = Agent.from_config(dag, tools=[set_name, set_card, book], model=model, variables=variables)
        result = agent.session(clock=clock, variables={"is_member": member}).send("I'm Ada")
        booked = [e.name for e in result.tool_calls if e.name == "book"]
        if member:  # the card slot is inactive: the booking fires right after the name
            assert booked == ["book"] and "Booked." in result.text
        else:
            assert booked == [] and "Your card number?" in model.requests[-1].system_instruction
