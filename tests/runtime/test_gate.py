"""The gate slot: the runtime follows the engine's verdict (``gate_open``), never a check of its own."""

from __future__ import annotations

from typing import Any

from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep

from .toy_agent import Backend, clock, toy_dag


def _agent(model: ScriptedModel, condition: str) -> Agent:
    dag: dict[str, Any] = toy_dag(gate_slot="num_guests")
    dag["slots"][0]["condition"] = condition
    return Agent.from_config(
        dag, tools=Backend().tools(), instruction="You are the host.", model=model, name="gated"
    )


def test_an_inactive_gate_slot_does_not_block_the_session() -> None:
    # The gate slot's condition is false: the engine reports the gate open, so the engine runs and the
    # session asks its first question instead of waiting for a slot that can never be collected.
    model = ScriptedModel(
        [
            ScriptedStep(
                text="What date works for you?",
                expect_in_instruction=["What date works for you?"],
                expect_hidden=("set_num_guests",),
            )
        ]
    )
    session = _agent(model, "lambda filled: False").session(clock=clock)
    session.send("hi")
    model.assert_complete()
    assert session.state["_invocation_count"] == 1  # the engine ran on the first turn


def test_an_active_uncollected_gate_slot_still_skips_the_engine() -> None:
    model = ScriptedModel([ScriptedStep(text="How many guests?", expect_tools=None)])
    session = _agent(model, "lambda filled: True").session(clock=clock)
    session.send("hi")
    model.assert_complete()
    assert "_invocation_count" not in session.state
    assert "_gate_user_text" in session.state
