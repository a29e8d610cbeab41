"""Lifecycle rules (spec: "Rules run in the LogicRulesProcessor ... Actions: set_variable, run_tool, ...")."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from slotgraph.config.logic import RuleConfig, VariableDeclaration
from slotgraph.logic import (
    AgentLogic,
    LogicRecord,
    LogicSession,
    RuleEngine,
    RuleEvent,
    ToolRun,
    VariableStore,
    compile_rules,
)
from slotgraph.logic.rules import MAX_CASCADE


class Tools:
    def __init__(self, results: Mapping[str, Any] | None = None, failing: frozenset[str] = frozenset()):
        self.results = dict(results or {})
        self.failing = failing
        self.calls: list[tuple[str, dict[str, Any], str]] = []

    async def __call__(self, tool: str, args: Mapping[str, Any], *, origin: str) -> ToolRun:
        self.calls.append((tool, dict(args), origin))
        if tool in self.failing:
            return ToolRun(False, error=f"{tool} is down")
        return ToolRun(True, self.results.get(tool, {"ok": True}))


def _rules(*raw: dict[str, Any]) -> list[RuleConfig]:
    return [RuleConfig.model_validate(r) for r in raw]


def _engine(rules: list[RuleConfig], store: VariableStore | None = None, tools: Tools | None = None):
    store = store or VariableStore()
    return RuleEngine(compile_rules(rules), store, tools or Tools()), store


def test_trigger_condition_and_ordered_actions() -> None:
    """ "rules[] (trigger → optional condition → ordered actions)"."""
    engine, store = _engine(
        _rules(
            {
                "name": "count",
                "trigger": "turn_start",
                "condition": "counting",
                "actions": [
                    {"set_variable": {"variable": "n", "value": "1"}},
                    {"set_variable": {"variable": "m", "value": "n + 1"}},
                ],
            }
        ),
        VariableStore([], {"counting": False}),
    )
    effects = asyncio.run(engine.fire("turn_start"))
    assert effects.events == [] and store.get("n") is None
    store.set("counting", True)
    effects = asyncio.run(engine.fire("turn_start"))
    assert store.get("m") == 2  # the second action sees the first one's write
    assert effects.events == [RuleEvent("count", "turn_start", ("set_variable", "set_variable"))]
    assert asyncio.run(engine.fire("turn_end")).events == []


def test_tool_result_rules_capture_output_paths_and_filter_by_tool() -> None:
    """ "tool_result (with output_path captures)"."""
    engine, store = _engine(
        _rules(
            {
                "trigger": "tool_result",
                "tool": "lookup",
                "condition": "result.found",
                "actions": [{"set_variable": {"variable": "code", "output_path": "$.data.code"}}],
            }
        )
    )
    asyncio.run(engine.fire("tool_result", tool="other", result={"found": True, "data": {"code": "X"}}))
    assert store.get("code") is None
    effects = asyncio.run(
        engine.fire("tool_result", tool="lookup", result={"found": True, "data": {"code": "Y"}})
    )
    assert store.get("code") == "Y" and effects.events[0].rule == "rules[0]"


def test_run_tool_goes_through_the_invoker_and_captures() -> None:
    tools = Tools({"lookup": {"tier": "gold"}})
    engine, store = _engine(
        _rules(
            {
                "trigger": "session_start",
                "actions": [
                    {
                        "run_tool": {
                            "tool": "lookup",
                            "args": {"phone": "caller"},
                            "capture": {"tier": "$.tier"},
                        }
                    }
                ],
            }
        ),
        VariableStore([], metadata={"caller": "+49"}),
        tools,
    )
    asyncio.run(engine.fire("session_start"))
    assert tools.calls == [("lookup", {"phone": "+49"}, "rule")]
    assert store.get("tier") == "gold"


def test_a_failing_rule_never_breaks_the_turn_and_is_reported() -> None:
    """A failing action stops its rule, is recorded in its event, and the next rule still fires."""
    tools = Tools(failing=frozenset({"lookup"}))
    engine, store = _engine(
        _rules(
            {
                "name": "a",
                "trigger": "turn_end",
                "actions": [
                    {"run_tool": {"tool": "lookup"}},
                    {"set_variable": {"variable": "x", "value": "1"}},
                ],
            },
            {"name": "b", "trigger": "turn_end", "condition": "'a' + 1", "actions": [{"transition": "t"}]},
            {
                "name": "c",
                "trigger": "turn_end",
                "actions": [{"set_variable": {"variable": "y", "value": "2"}}],
            },
        ),
        tools=tools,
    )
    effects = asyncio.run(engine.fire("turn_end"))
    assert [(e.rule, e.ok) for e in effects.events] == [("a", False), ("b", False), ("c", True)]
    assert "lookup is down" in (effects.events[0].error or "")
    assert store.get("x") is None and store.get("y") == 2 and store.get("current_topic") is None


def test_variable_changed_rules_fire_after_a_write_and_cascade_within_a_bound() -> None:
    """variable_changed "from the store": a write fires the rules watching that variable; rules that keep
    changing each other stop at MAX_CASCADE levels instead of looping forever."""
    engine, store = _engine(
        _rules(
            {"trigger": "turn_start", "actions": [{"set_variable": {"variable": "tier", "value": "'gold'"}}]},
            {
                "name": "on_tier",
                "trigger": "variable_changed",
                "variable": "tier",
                "actions": [{"inject_instruction": "Tier is now {{tier}}."}],
            },
            {"trigger": "turn_end", "actions": [{"set_variable": {"variable": "n", "value": "0"}}]},
            {
                "name": "ping",
                "trigger": "variable_changed",
                "variable": "n",
                "actions": [{"set_variable": {"variable": "n", "value": "n + 1"}}],
            },
            {
                "name": "pong",
                "trigger": "variable_changed",
                "variable": "n",
                "actions": [{"set_variable": {"variable": "n", "value": "n + 1"}}],
            },
        )
    )
    effects = asyncio.run(engine.fire("turn_start"))
    assert effects.instructions == ["Tier is now gold."]
    assert [e.rule for e in effects.events] == ["rules[0]", "on_tier"]
    effects = asyncio.run(engine.fire("turn_end"))
    assert 0 < store.get("n") <= 2 ** (MAX_CASCADE + 1)
    assert len(effects.events) < 40


def test_end_session_escalate_and_transition() -> None:
    tools = Tools()
    engine, store = _engine(
        _rules(
            {"trigger": "user_message", "condition": "angry", "actions": [{"escalate": "upset caller"}]},
            {"trigger": "turn_end", "condition": "done", "actions": [{"end_session": None}]},
            {"trigger": "turn_start", "actions": [{"transition": "billing"}]},
        ),
        VariableStore([], {"angry": True, "done": True}),
        tools,
    )
    assert asyncio.run(engine.fire("user_message")).ended
    assert asyncio.run(engine.fire("turn_end")).ended
    asyncio.run(engine.fire("turn_start"))
    assert store.get("current_topic") == "billing"
    assert [c[0] for c in tools.calls] == ["escalate", "end_session"]
    assert tools.calls[0][1] == {"reason": "upset caller"}


def test_logic_session_fires_lifecycle_triggers_and_injects_until_delivered() -> None:
    rules = _rules(
        {"trigger": "session_start", "actions": [{"inject_instruction": "Greet warmly."}]},
        {"trigger": "user_message", "actions": [{"set_variable": {"variable": "said", "value": "True"}}]},
        {"trigger": "turn_end", "actions": [{"inject_instruction": "Next turn: be brief."}]},
    )
    logic = AgentLogic.build(
        "Base.", [VariableDeclaration(name="said", type="boolean", description="d")], rules
    )
    session = LogicSession(logic)
    started = asyncio.run(session.start_turn("hi", {}))
    assert [e.trigger for e in started.events] == ["session_start", "user_message"]
    text = asyncio.run(session.instruction({}))
    assert text.startswith("Base.") and "Greet warmly." in text
    asyncio.run(session.end_turn({}))
    record = session.record()
    assert record.injected == ("Next turn: be brief.",) and record.started
    # the next turn resumes from the persisted record: no second session_start
    again = LogicSession(logic, LogicRecord.from_json(record.to_json()))
    assert [e.trigger for e in asyncio.run(again.start_turn("", {})).events] == []
    assert "be brief" in asyncio.run(again.instruction({})) and "Greet" not in asyncio.run(
        again.instruction({})
    )
