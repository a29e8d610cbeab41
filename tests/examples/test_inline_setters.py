"""The examples' setters run on the event loop (``@inline``: they do no I/O), their executors in a thread.

A sync tool's hop to a worker thread costs 100–200 µs of CPU inside a turn (docs/tools.md, "Sync or
async"); the examples are what users copy, so they show the recommended split.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from slotgraph.runtime import Agent

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("name", ["bella_notte", "clinic", "toy_reservation", "trip_quote"])
def test_setters_are_inline_and_executors_are_not(name: str) -> None:
    agent = Agent.load(EXAMPLES / name, model="offline")
    setters = [tool for tool in agent.dag.setter_slots if tool not in agent.dag.executor_tasks]
    assert setters
    for tool_name in setters:
        tool = agent.tools.get(tool_name)
        assert tool is not None and tool.inline, f"{name}: setter {tool_name} is not @inline"
    for tool_name in agent.dag.executor_tasks:
        tool = agent.tools.get(tool_name)
        assert tool is not None and not tool.inline, f"{name}: executor {tool_name} runs on the event loop"
