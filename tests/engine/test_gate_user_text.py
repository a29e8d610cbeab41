"""The text a host kept while the gate slot was closed is an explicit input of the engine call
(``gate_user_text``), given back to the model as ``<user_context>`` (docs/engine.md#gate-slot)."""

from __future__ import annotations

import pytest

from slotgraph.engine import EngineInputError, run_engine

from .toy import toy_dag


def test_the_gate_text_comes_back_as_a_user_context_block() -> None:
    dag = toy_dag()
    result = run_engine(dag, {}, last_user_text="", gate_user_text="4 of us on Friday")
    assert "<user_context>\n" in result.action.si_suffix
    assert "4 of us on Friday\n</user_context>" in result.action.si_suffix
    assert not any("gate" in key for key in result.sm)  # an input, not state


def test_without_gate_text_there_is_no_user_context() -> None:
    dag = toy_dag()
    for text in ("", "   "):
        assert "<user_context>" not in run_engine(dag, {}, gate_user_text=text).action.si_suffix


def test_a_gate_text_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(EngineInputError, match="gate_user_text must be a string") as caught:
        run_engine(toy_dag(), {}, gate_user_text=4)  # type: ignore[arg-type]
    assert caught.value.fix
