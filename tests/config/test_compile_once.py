"""Compiling a config validates its structure once and compiles each distinct condition once."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from slotgraph.config import ConfigValidationError, clear_compile_cache, compile_config
from slotgraph.config import conditions as conditions_module
from slotgraph.config.nodes import DagConfig

BIG = "lambda filled: int(filled.get('party_size', 0)) >= 5"
CONFIG: dict[str, Any] = {
    "slots": [
        {"name": "party_size", "setter": "set_party_size", "ask": "How many?"},
        {"name": "phone", "setter": "set_phone", "ask": "Phone?", "condition": BIG},
        {"name": "note", "setter": "set_note", "ask": "Note?", "condition": BIG},
    ],
    "tasks": [{"name": "Book", "tool": "book", "inputs": ["party_size", "phone"]}],
}


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    counts: Counter[str] = Counter()
    validate = DagConfig.model_validate
    compile_lambda = conditions_module.compile_lambda

    def counted_validate(data: Any, *args: Any, **kwargs: Any) -> DagConfig:
        counts["model_validate"] += 1
        return validate(data, *args, **kwargs)

    def counted_lambda(source: str) -> Any:
        counts[source] += 1
        return compile_lambda(source)

    monkeypatch.setattr(DagConfig, "model_validate", counted_validate)
    monkeypatch.setattr(conditions_module, "compile_lambda", counted_lambda)
    clear_compile_cache()
    return counts


def test_validated_once_and_each_condition_compiled_once(calls: Counter[str]) -> None:
    dag = compile_config(CONFIG)
    assert calls == Counter({"model_validate": 1, BIG: 1})
    assert (
        dag.slot("phone").condition is dag.slot("note").condition
    )  # shared: compiled conditions are immutable
    clear_compile_cache()
    compile_config(CONFIG)
    assert calls[BIG] == 2  # clear_compile_cache empties the condition cache too


def test_a_structural_problem_is_still_reported_with_the_others(calls: Counter[str]) -> None:
    broken = {**CONFIG, "slots": [*CONFIG["slots"], {"name": "x", "ask": 3}], "tasks": [{"name": "T"}]}
    with pytest.raises(ConfigValidationError) as info:
        compile_config(broken)
    wheres = {issue.location for issue in info.value.issues}
    assert any(where.startswith("slots[3]") for where in wheres)
    assert any(where.startswith("tasks[0]") for where in wheres)
