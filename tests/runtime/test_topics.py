"""Topics in the turn loop: transition_topic's result carries the resolved (never raw) instructions, the
topic's instructions take over the prompt, rule transitions deliver one instruction worded as a replacement,
return_when returns at turn end, the return stack persists, and the offline model routes by descriptions."""

from __future__ import annotations

import asyncio
import datetime
from typing import Any

from slotgraph.logic import TopicEvent
from slotgraph.models.offline import OfflineModel
from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep, ToolResultEvent, call
from slotgraph.runtime.instructions import SENTINEL
from slotgraph.stores.memory import InMemoryStore

DAG = {"slots": [{"name": "order_id", "source": "user", "setter": "set_order_id", "ask": "Order number?"}]}
VARIABLES = [
    {"name": "customer", "type": "string", "default": "Ada", "description": "the caller's name"},
    {"name": "refund_done", "type": "boolean", "default": False, "description": "the refund was issued"},
]
TOPICS = [
    {
        "id": "returns",
        "description": "Returning an order or asking for a refund.",
        "instruction": "You handle returns for {{customer}}.{{#when refund_done}} Done.{{/when}} {{TOOL:x}}",
        "return_when": "refund_done",
    },
    {"id": "hours", "description": "Opening hours of the shop."},
]


def set_order_id(order_id: str) -> dict[str, Any]:
    """Record the order number."""
    return {"stored": True, "value": order_id}


def issue_refund() -> dict[str, Any]:
    """Issue the refund."""
    return {"refunded": True}


def _clock() -> datetime.datetime:
    return datetime.datetime(2026, 7, 1, 12, 0)


def _base(request: Any) -> str:
    return str(request.system_instruction.split(SENTINEL)[0]).strip()


def _agent(model: Any, rules: list[dict[str, Any]] | None = None) -> Agent:
    return Agent.from_config(
        DAG,
        tools=[set_order_id, issue_refund],
        instruction="Main prompt for {{customer}}.",
        model=model,
        variables=VARIABLES,
        topics=TOPICS,
        rules=rules or [],
    )


def test_a_model_transition_returns_the_resolved_instructions_and_takes_over_the_prompt() -> None:
    model = ScriptedModel(
        [
            ScriptedStep(
                tool_calls=(call("transition_topic", topic="returns"),),
                check=lambda r: "transition_topic" in r.tool_names and _base(r) == "Main prompt for Ada.",
            ),
            ScriptedStep(text="Sure.", check=lambda r: _base(r) == "You handle returns for Ada. {{TOOL:x}}"),
        ]
    )
    result = _agent(model).session(clock=_clock).send("I want to return my order")
    [moved] = [e for e in result.events if isinstance(e, TopicEvent)]
    assert (moved.from_topic, moved.to_topic, moved.via, moved.ok) == ("", "returns", "model", True)
    [answer] = [e.result for e in result.events if isinstance(e, ToolResultEvent)]
    assert answer["instructions"] == "You handle returns for Ada. {{TOOL:x}}"  # resolved: no raw {{customer}}
    assert "automatically" in answer["return"] or "by itself" in answer["return"]
    assert result.variables["current_topic"] == "returns"
    model.assert_complete()


def test_return_when_returns_at_turn_end_with_one_injection_and_the_stack_persists() -> None:
    rules = [
        {
            "trigger": "tool_result",
            "tool": "issue_refund",
            "actions": [{"set_variable": {"variable": "refund_done", "value": "True"}}],
        }
    ]
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("transition_topic", topic="returns"),)),
            ScriptedStep(text="Which order?"),
            ScriptedStep(tool_calls=(call("issue_refund"),)),
            ScriptedStep(text="Refunded."),
            ScriptedStep(
                text="Anything else?",
                check=lambda r: (
                    _base(r).startswith("Main prompt for Ada.")
                    and "The conversation has moved to the main conversation" in r.system_instruction
                ),
            ),
        ]
    )
    store = InMemoryStore()
    agent = _agent(model, rules)
    agent.session(session_id="s", store=store, clock=_clock).send("a refund please")
    stored, _ = asyncio.run(store.load("s")) or ({}, 0)  # type: ignore[misc]
    assert stored["logic"]["topic_stack"] == [""]
    again = agent.session(session_id="s", store=store, clock=_clock)  # a new object: the stack was stored
    result = again.send("order 7, refund it")
    returned = [e for e in result.events if isinstance(e, TopicEvent)]
    assert [(e.to_topic, e.via) for e in returned] == [("", "return_when")]
    assert again.variables["current_topic"] == ""
    again.send("thanks")
    model.assert_complete()


def test_a_rule_transition_delivers_one_replacement_instruction() -> None:
    rules = [
        {"trigger": "user_message", "condition": "customer == 'Ada'", "actions": [{"transition": "hours"}]}
    ]
    model = ScriptedModel(
        [
            ScriptedStep(
                text="We open at nine.",
                check=lambda r: (
                    "The conversation has moved to hours. From now on follow these instructions "
                    "instead of earlier ones:\nMain prompt for Ada." in r.system_instruction
                ),
            )
        ]
    )
    result = _agent(model, rules).session(clock=_clock).send("when do you open?")
    assert [(e.to_topic, e.via) for e in result.events if isinstance(e, TopicEvent)] == [("hours", "rule")]
    model.assert_complete()


def test_the_offline_model_moves_to_a_topic_by_its_description() -> None:
    session = _agent(OfflineModel(clock=_clock)).session(clock=_clock)
    result = session.send("I would like a refund")
    assert [(e.to_topic, e.via) for e in result.events if isinstance(e, TopicEvent)] == [("returns", "model")]


def test_current_topic_is_the_main_conversation_from_the_first_turn(tmp_path: Any) -> None:
    """``current_topic`` is seeded ``""`` before any move, so a ``#when`` section written for "in main"
    holds on the first turn as after a return, and ``{{current_topic}}`` never reaches the model as a tag."""
    (tmp_path / "agent.yaml").write_text(
        "name: shop\n"
        "dag: {slots: [{name: order_id, source: user, setter: set_order_id, ask: 'Order number?'}]}\n"
        "instruction: |\n"
        "  Topic: [{{current_topic}}].\n"
        '  {{#when current_topic == ""}}You are the front desk.{{:else}}You are a specialist.{{/when}}\n'
        "topics:\n"
        "  - {id: returns, description: Returning an order., instruction: Returns desk.}\n",
        encoding="utf-8",
    )
    (tmp_path / "tools.py").write_text(
        "def set_order_id(order_id: str) -> dict:\n    return {'stored': True, 'value': order_id}\n",
        encoding="utf-8",
    )
    main = "Topic: [].\nYou are the front desk."
    model = ScriptedModel(
        [
            ScriptedStep(text="Hello!", check=lambda r: _base(r) == main),
            ScriptedStep(tool_calls=(call("transition_topic", topic="returns"),)),
            ScriptedStep(tool_calls=(call("transition_topic", topic="__return__"),)),
            ScriptedStep(text="Back at the desk.", check=lambda r: _base(r) == main),
        ]
    )
    session = Agent.load(tmp_path, model=model).session(clock=_clock)
    first = session.send("hi")
    assert first.variables["current_topic"] == ""
    session.send("a return, then never mind")
    model.assert_complete()
