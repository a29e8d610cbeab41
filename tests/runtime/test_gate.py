"""The gate slot: the runtime follows the engine's verdict (``gate_open``), never a check of its own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from slotgraph.names import GATE_USER_TEXT
from slotgraph.runtime import Agent, DagEngine, EngineResult, ScriptedModel, ScriptedStep, call

from .toy_agent import Backend, clock, toy_agent, toy_dag


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


class _SpyEngine(DagEngine):
    """The real engine, recording what every invocation was given."""

    def __init__(self) -> None:
        super().__init__(seed=0)
        self.calls: list[tuple[set[str], dict[str, Any]]] = []

    def invoke(self, dag: Any, sm: Mapping[str, Any], **kwargs: Any) -> EngineResult:
        self.calls.append((set(sm), dict(kwargs)))
        return super().invoke(dag, sm, **kwargs)


def test_the_text_kept_at_the_gate_is_an_explicit_input_of_the_engine_call() -> None:
    # The user's words while the gate was closed are the runtime's to keep; the engine gets them as its
    # gate_user_text input on the first invocation after the gate opened (never as a key of its state), and
    # gives them back to the model as <user_context>.
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("set_num_guests", count=4),), label="gate closed"),
            ScriptedStep(
                text="What date works for you?",
                expect_in_instruction=["<user_context>", "4 of us on Friday"],
                label="first call after the gate opened",
            ),
            ScriptedStep(
                text="Which date?", check=lambda request: "<user_context>" not in request.system_instruction
            ),
        ]
    )
    engine = _SpyEngine()
    session = toy_agent(model, Backend(), gate_slot="num_guests").session(clock=clock, engine=engine)
    session.send("4 of us on Friday")
    session.send("hmm")
    model.assert_complete()
    assert all(GATE_USER_TEXT not in keys for keys, _ in engine.calls)
    given = [kwargs.get("gate_user_text") for _, kwargs in engine.calls]
    assert given[0] == "4 of us on Friday" and not any(given[1:])
    assert GATE_USER_TEXT not in session.state
