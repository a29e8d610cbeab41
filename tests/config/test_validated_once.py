"""Loading an agent validates its DAG once: the compilation that follows trusts the loader's verdict for that
very content (issue 13: one ``Agent.load`` validated the config twice)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import slotgraph.config.agent as agent_module
import slotgraph.config.validation as validation_module
from slotgraph.config import ConfigValidationError, clear_compile_cache, compile_config
from slotgraph.config.compile import note_validated
from slotgraph.runtime import Agent

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every validate_raw call, by who made it; a cold compile cache before and after."""
    seen: list[str] = []
    # the compiler imports validate_raw from the validation package when it validates
    for module, who in ((agent_module, "loader"), (validation_module, "compile")):
        real = module.validate_raw

        def counted(*args: Any, _real: Any = real, _who: str = who, **kwargs: Any) -> Any:
            seen.append(_who)
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, "validate_raw", counted)
    clear_compile_cache()
    yield seen
    clear_compile_cache()


def test_agent_load_validates_the_dag_once(calls: list[str]) -> None:
    Agent.load(ROOT / "examples" / "bella_notte")
    assert calls == ["loader"]


def test_the_verdict_is_for_the_content_not_the_object(calls: list[str]) -> None:
    raw: dict[str, Any] = {
        "slots": [{"name": "topic", "source": "user", "setter": "set_topic", "ask": "About?"}],
        "tasks": [],
    }
    note_validated(raw)
    compile_config(copy.deepcopy(raw))  # equal content: trusted
    assert calls == []
    raw["slots"][0]["setter"] = ""  # changed after the verdict: validated again, and refused
    with pytest.raises(ConfigValidationError):
        compile_config(raw)
    assert calls == ["compile"]
