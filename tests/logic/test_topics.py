"""Topics (subagents) in the logic layer, from the spec's "Topics" and "Subagents" paragraphs: the active
topic is current_topic; refer pushes the way back and transfer clears it; __return__ and return_when pop;
entry_when fails closed; every move and refusal is a typed TopicEvent; validation with locations."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from slotgraph.config.logic import TopicConfig, VariableDeclaration
from slotgraph.logic.topics import RETURN, TopicManager, compile_topics, transition_parameters
from slotgraph.logic.validation import logic_issues
from slotgraph.logic.variables import VariableStore

_T = TypeVar("_T")

TOPICS = [
    {"id": "returns", "description": "Returning an order.", "return_when": "refund_done"},
    {"id": "billing", "description": "Invoices.", "control": "transfer"},
    {"id": "vip", "description": "VIP desk.", "entry_when": "tier == 'gold'"},
    {"id": "broken", "description": "Broken gate.", "entry_when": "tier + 1"},
]


def _sync(awaitable: Coroutine[Any, Any, _T]) -> _T:
    return asyncio.run(awaitable)


def _manager(**values: Any) -> TopicManager:
    compiled = compile_topics([TopicConfig.model_validate(t) for t in TOPICS])
    declared = [VariableDeclaration(name="tier", type="any", description="tier")]
    store = VariableStore(declared, values)
    return TopicManager({t.id: t for t in compiled}, store)


def test_refer_remembers_the_way_back_and_return_pops_it() -> None:
    topics = _manager()
    assert topics.current == "" and topics.store.get("current_topic") is None
    move = _sync(topics.move("returns", via="model"))
    assert move.ok and move.moved and topics.current == "returns"
    assert topics.store.get("current_topic") == "returns"  # capability-published
    assert topics.stack == [""]
    back = _sync(topics.move(RETURN, via="model"))
    assert (back.event.from_topic, back.event.to_topic) == ("returns", "") and topics.stack == []
    assert not _sync(topics.move(RETURN, via="model")).ok  # nothing to return to


def test_transfer_clears_the_way_back() -> None:
    topics = _manager()
    _sync(topics.move("returns", via="model"))
    _sync(topics.move("billing", via="model"))
    assert topics.current == "billing" and topics.stack == []
    refused = _sync(topics.move(RETURN, via="model"))
    assert not refused.ok and refused.event.message == "there is nothing to return to"


def test_entry_when_gates_entry_and_fails_closed() -> None:
    assert not _sync(_manager(tier="silver").move("vip", via="rule")).ok
    assert _sync(_manager(tier="gold").move("vip", via="rule")).ok
    broken = _sync(_manager(tier="gold").move("broken", via="model"))  # "gold" + 1 fails to evaluate
    assert not broken.ok and "entry condition" in broken.event.message
    unknown = _sync(_manager().move("nowhere", via="model"))
    assert not unknown.ok and "__return__" in unknown.event.message


def test_return_when_is_a_pop_and_needs_somewhere_to_return_to() -> None:
    topics = _manager(refund_done=False)
    assert _sync(topics.return_due()) is None  # the main conversation has no return_when
    _sync(topics.move("returns", via="model"))
    assert _sync(topics.return_due()) is None
    topics.store.set("refund_done", True)
    move = _sync(topics.return_due())
    assert move is not None and move.event.via == "return_when" and topics.current == ""


def test_the_tool_schema_enumerates_the_topics_and_return() -> None:
    compiled = compile_topics([TopicConfig.model_validate(t) for t in TOPICS[:2]])
    prop = transition_parameters(compiled)["properties"]["topic"]  # type: ignore[index]
    assert prop["enum"] == ["returns", "billing", "__return__"]
    assert "- `returns`: Returning an order." in prop["description"]


def test_validation_reports_topic_problems_with_locations() -> None:
    raw = {
        "topics": [
            {"id": "a", "description": "A", "entry_when": "x ==="},
            {"id": "a", "description": "again", "instruction": "{{#when y}}open"},
            {"id": "t", "description": "T", "control": "transfer", "return_when": "done"},
        ],
        "rules": [{"trigger": "turn_start", "actions": [{"transition": "nowhere"}]}],
    }
    issues = {(i.code, i.location, i.severity) for i in logic_issues(raw, None)}
    assert ("bad_expression", "topics[0].entry_when", "error") in issues
    assert ("duplicate_topic", "topics[1].id", "error") in issues
    assert any(code == "unbalanced_when" and loc == "topics[1].instruction" for code, loc, _ in issues)
    assert ("dead_return_when", "topics[2].return_when", "warning") in issues
    assert ("unknown_topic", "rules[0].actions[0].transition", "error") in issues


def test_the_model_cannot_move_topics_by_writing_current_topic() -> None:
    """``current_topic`` is maintained by the topics (entry_when applies to a move): even declared, it is not
    offered to ``set_variables`` and a write of it is rejected in the result."""
    from slotgraph.logic import AgentLogic, LogicSession, apply_set_variables

    declared = [
        VariableDeclaration(name="current_topic", type="string", description="where we are"),
        VariableDeclaration(name="tier", type="string", description="tier"),
    ]
    logic = AgentLogic.build("Hi", declared, topics=[TopicConfig.model_validate(t) for t in TOPICS])
    assert [d.name for d in logic.mutable_variables] == ["tier"]
    session = LogicSession(logic)
    result, _ = apply_set_variables(session.store, {"current_topic": "vip", "tier": "gold"})
    assert result["saved"] == {"tier": "gold"}
    assert "maintained by the runtime" in result["rejected"]["current_topic"]
    assert session.store.get("current_topic") == ""
