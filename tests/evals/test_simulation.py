"""Simulated users: a model plays the user until done; runs are scored; pass^k over k runs."""

from __future__ import annotations

import datetime
import os
from pathlib import Path
from typing import Any

import pytest

from slotgraph.evals import Case, CaseRunner, RunOptions, Scenario, load_cases
from slotgraph.evals.simulation import DONE, pass_hat_k, simulate, user_instruction
from slotgraph.models.offline import OfflineModel
from slotgraph.runtime import (
    Agent,
    AssistantText,
    Model,
    ModelRequest,
    ScriptedModel,
    ScriptedStep,
    UserMessage,
)

from .conftest import BELLA, EXAMPLES, TOY_NO_READBACK, WriteScenario

NOW = datetime.datetime(2026, 7, 11, 12, 0)
CLINIC = EXAMPLES / "clinic"


def _clock() -> datetime.datetime:
    return NOW


def _scenario(**sim: Any) -> Scenario:
    return Scenario.model_validate(
        {
            "agent": str(TOY_NO_READBACK),
            "user_sim": {"persona": "Ada, brief", "goal": "a table for 2 on July 20th at 9 PM", **sim},
            "expect": {"status": "complete", "tasks": [{"task": "MakeReservation", "args": {"name": "Ada"}}]},
        }
    )


def _user(lines: list[str]) -> ScriptedModel:
    return ScriptedModel([ScriptedStep(text=line) for line in lines])


def _run(scenario: Scenario, users: list[list[str]]) -> Any:
    scripts = iter(users)
    return simulate(
        "sim",
        Path("sim.yaml"),
        scenario,
        Agent.load(TOY_NO_READBACK),
        agent_model=lambda: OfflineModel(clock=_clock),
        user_model=lambda: _user(next(scripts)),
        clock=_clock,
    )


GOOD = ["2 people on July 20th", "9 PM", "Ada", DONE]


class Recorder:
    """A model that keeps every request in ``seen`` and passes it on to ``inner``."""

    def __init__(self, inner: Model, seen: list[ModelRequest]) -> None:
        self.inner = inner
        self.seen = seen

    async def generate(self, request: ModelRequest) -> Any:
        self.seen.append(request)
        return await self.inner.generate(request)


@pytest.mark.scripted_leftover("a scripted user's lines are an upper bound: the agent may finish first")
def test_a_scripted_user_reaches_the_goal() -> None:
    result = _run(_scenario(), [GOOD])
    assert result.outcome == "passed", result.all_failures
    assert [t.user_text for t in result.turns] == GOOD[:3]
    assert result.turns[-1].status == "complete"
    assert result.kind == "simulation"


@pytest.mark.scripted_leftover("a scripted user's lines are an upper bound: the agent may finish first")
def test_the_tools_of_each_model_call_are_read_from_the_turns_steps() -> None:
    # one entry per model call of the turn (TurnResult.steps), not per request a wrapped model saw
    result = _run(_scenario(), [GOOD])
    assert [len(turn.visible_tools) for turn in result.turns] == [turn.model_calls for turn in result.turns]
    first, second, _third = result.turns
    assert {"set_num_guests", "set_date"} <= set(first.visible_tools[0])
    # "9 PM": the time's setter is offered, then hidden once the time is filled and the task fired
    assert "set_chosen_time" in second.visible_tools[0] and "set_chosen_time" not in second.visible_tools[1]


def test_a_user_who_gives_up_fails_the_scoring() -> None:
    result = _run(_scenario(), [[DONE]])
    assert result.outcome == "failed"
    assert {f.expectation for f in result.failures} == {"expect.status", "expect.tasks[0]"}


@pytest.mark.scripted_leftover("a scripted user's lines are an upper bound: the agent may finish first")
def test_pass_k_needs_every_run_to_pass() -> None:
    assert _run(_scenario(k=2), [GOOD, GOOD]).outcome == "passed"
    flaky = _run(_scenario(k=2), [GOOD, [DONE]])
    assert flaky.outcome == "failed"
    assert all(f.expectation.startswith("run 2/2: ") for f in flaky.failures)


@pytest.mark.scripted_leftover("a scripted user's lines are an upper bound: the agent may finish first")
def test_max_turns_and_opening() -> None:
    result = _run(_scenario(max_turns=2, opening="2 people on July 20th"), [["9 PM", "never asked"]])
    assert [t.user_text for t in result.turns] == ["2 people on July 20th", "9 PM"]
    assert result.outcome == "failed"


@pytest.mark.scripted_leftover("a scripted user's lines are an upper bound: the agent may finish first")
def test_the_user_model_sees_the_conversation_from_its_side() -> None:
    seen: list[ModelRequest] = []
    scripts = iter([GOOD])
    simulate(
        "sim",
        Path("sim.yaml"),
        _scenario(),
        Agent.load(TOY_NO_READBACK),
        agent_model=lambda: OfflineModel(clock=_clock),
        user_model=lambda: Recorder(_user(next(scripts)), seen),
        clock=_clock,
    )
    assert seen[0].messages == () and seen[0].tools == ()
    assert "Ada, brief" in seen[0].system_instruction and DONE in seen[0].system_instruction
    second = seen[1].messages
    assert isinstance(second[0], AssistantText) and second[0].text == "2 people on July 20th"
    assert isinstance(second[1], UserMessage) and "Which time" in second[1].text


def test_a_simulated_session_starts_with_the_scenarios_metadata_and_variables() -> None:
    """A simulated user talks to a session set up like a scripted scenario's: the clinic's caller phone
    (metadata) finds the returning patient, and a variable the scenario sets beats its default."""
    seen: list[ModelRequest] = []
    scenario = Scenario.model_validate(
        {
            "agent": str(CLINIC),
            "metadata": {"caller_phone": "+15550100"},
            "variables": {"needs_fasting": True},
            "user_sim": {"persona": "Ada", "goal": "book a visit", "max_turns": 1, "opening": "Hello"},
        }
    )
    result = simulate(
        "sim",
        Path("sim.yaml"),
        scenario,
        Agent.load(CLINIC),
        agent_model=lambda: Recorder(OfflineModel(clock=_clock), seen),
        user_model=lambda: _user([]),
        clock=_clock,
    )
    assert result.outcome == "passed", result.all_failures
    assert "returning patient, Ada Lovelace (4 earlier visits)" in seen[0].system_instruction
    assert "remind them to fast for 12 hours" in seen[0].system_instruction


def test_pass_hat_k() -> None:
    assert pass_hat_k({"a": [True, True], "b": [True, False], "c": [False, False], "d": [True, True]}) == 0.5
    assert pass_hat_k({}) == 0.0
    assert pass_hat_k({"a": []}) == 0.0


def test_user_instruction_names_persona_goal_and_the_stop_word() -> None:
    text = user_instruction(_scenario().user_sim)  # type: ignore[arg-type]
    assert "Persona: Ada, brief" in text and "Your goal: a table" in text and DONE in text


def test_the_runner_resolves_a_scripted_user_next_to_the_scenario(write_scenario: WriteScenario) -> None:
    path = write_scenario(
        {
            "agent": str(TOY_NO_READBACK),
            "model": "offline",
            "now": "2026-07-11T12:00:00",
            "user_sim": {"persona": "Ada", "goal": "book", "model": "scripted:user.json"},
            "expect": {"status": "complete"},
        }
    )
    (path.parent / "user.json").write_text(
        '[{"text": "2 people on July 20th"}, {"text": "9 PM"}, {"text": "Ada"}]'
    )
    (case,) = load_cases([path])
    assert isinstance(case, Case)
    assert CaseRunner().run(case).outcome == "passed"
    override = CaseRunner(RunOptions(user_model="scripted:" + str(path.parent / "missing.json"))).run(case)
    assert override.outcome == "failed" and "cannot read the model script" in override.failures[0].actual


@pytest.mark.llm
def test_a_live_llm_plays_the_user_of_the_example_simulation() -> None:
    spec = os.environ.get("SLOTGRAPH_LIVE_MODEL")
    if not spec:
        pytest.skip("set SLOTGRAPH_LIVE_MODEL to a 'provider:model' spec to run the live simulation")
    files = sorted((BELLA / "scenarios" / "simulated").glob("*.yaml"))
    runner = CaseRunner(RunOptions(user_model=spec))
    outcomes = {}
    for case in load_cases(files):
        assert isinstance(case, Case)
        outcomes[case.name] = [runner.run(case).outcome == "passed"]
    assert pass_hat_k(outcomes) >= 0.5
