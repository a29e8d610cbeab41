"""Configs with thousands of slots: a deep ``requires`` chain declared in any order compiles and runs.

Cycle detection walks the dependency graph with an explicit stack, so no depth meets the interpreter's
recursion limit. (Compile time stays linear in the config's size: ``benchmarks/engine.py`` reports the
growth exponent; timing is never asserted in tests.)
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from slotgraph.adapters.cxas import slot_filling_engine
from slotgraph.config import ConfigValidationError, compile_config

DEPTH = max(2000, sys.getrecursionlimit() + 500)


def _chain(depth: int, *, reverse: bool = False, cycle: bool = False) -> dict[str, Any]:
    slots: list[dict[str, Any]] = []
    for i in range(depth):
        slot: dict[str, Any] = {"name": f"s{i}", "setter": f"set_s{i}", "ask": f"S{i}?"}
        if i or cycle:
            slot["requires"] = [f"s{(i - 1) % depth}"]
        slots.append(slot)
    if reverse:
        slots.reverse()
    return {"slots": slots, "tasks": [{"name": "Finish", "tool": "finish", "inputs": [f"s{depth - 1}"]}]}


@pytest.mark.parametrize("reverse", [False, True], ids=["declared in order", "declared in reverse"])
def test_a_deep_chain_compiles_and_asks_its_root_first(reverse: bool) -> None:
    config = _chain(DEPTH, reverse=reverse)
    dag = compile_config(config)
    assert len(dag.slots) == DEPTH
    out = slot_filling_engine({"raw_config": config, "sm": {}, "last_user_text": ""})
    assert out["action"]["message"] == "S0?"
    visible = {tool for tool in dag.setter_slots if tool not in out["action"]["hide_tools"]}
    assert visible == {"set_s0"}


def test_a_deep_cycle_is_reported_once() -> None:
    with pytest.raises(ConfigValidationError) as info:
        compile_config(_chain(DEPTH, reverse=True, cycle=True))
    cycles = [issue for issue in info.value.issues if issue.code == "requires_cycle"]
    assert len(cycles) == 1
    assert cycles[0].message.count("→") == DEPTH
