"""Simulated users: an LLM plays a persona pursuing a goal; runs are scored by the final state and tasks.

The user model gets a :class:`~slotgraph.runtime.ModelRequest` whose system instruction describes the persona,
the goal and the rules, and whose conversation is the agent's view flipped (the agent's words are the user
model's "user" messages). It answers with the user's next message, or :data:`DONE` when the goal is met or
cannot be met. The conversation stops at ``DONE``, when the session ends or reaches a terminal status
(``complete``/``escalated``), or after ``max_turns``. The scenario's whole-conversation ``expect`` (status,
tasks with args, state) scores the run.

pass^k (τ-bench): a task is run k times; :func:`pass_hat_k` is the fraction of tasks that passed all k runs.
Any :class:`~slotgraph.runtime.Model` can play the user — a ScriptedModel in CI, a live LLM in runs marked
``llm``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from slotgraph.evals.expectations import check_conversation
from slotgraph.evals.format import Scenario, UserSimulation
from slotgraph.evals.harness import Clock, conversation_facts, open_session
from slotgraph.evals.results import Outcome, ScenarioResult, TurnRecord, UnmetExpectation
from slotgraph.runtime import Agent, AssistantText, Message, Model, ModelRequest, UserMessage

__all__ = ["DONE", "pass_hat_k", "simulate", "user_instruction"]

DONE = "<done>"


def user_instruction(sim: UserSimulation) -> str:
    """The system instruction of the model playing the user."""
    return (
        "You are playing a person talking to a customer-service agent. Stay in character.\n"
        f"Persona: {sim.persona}\nYour goal: {sim.goal}\n"
        "Rules: write only what the person says next, one short message; give information when asked, as "
        f"the persona would; when the goal is achieved, or clearly cannot be achieved, reply exactly {DONE}."
    )


def _user_turn(model: Model, sim: UserSimulation, transcript: Sequence[tuple[str, str]]) -> str:
    messages: list[Message] = []
    for speaker, text in transcript:
        messages.append(UserMessage(text) if speaker == "agent" else AssistantText(text))
    request = ModelRequest(user_instruction(sim), tuple(messages), (), {"role": "simulated_user"})
    response = asyncio.run(model.generate(request))
    return (response.text or "").strip()


def _one_run(
    agent: Agent, agent_model: Model, user_model: Model, scenario: Scenario, clock: Clock | None
) -> tuple[list[TurnRecord], list[UnmetExpectation]]:
    sim = scenario.user_sim
    assert sim is not None
    session = open_session(agent, scenario, agent_model, clock)
    transcript: list[tuple[str, str]] = []
    records: list[TurnRecord] = []
    for index in range(sim.max_turns):
        text = sim.opening if index == 0 and sim.opening else _user_turn(user_model, sim, transcript)
        if not text or text == DONE:
            break
        started = time.perf_counter()
        result = session.send(text)
        latency = time.perf_counter() - started
        records.append(TurnRecord(index + 1, "user", text, result, latency))
        transcript += [("user", text), ("agent", result.text)]
        if session.ended or session.status != "in_progress":
            break
    return records, check_conversation(scenario.expect, conversation_facts(agent, session, records))


def simulate(
    name: str,
    source: Path,
    scenario: Scenario,
    agent: Agent,
    *,
    agent_model: Callable[[], Model],
    user_model: Callable[[], Model],
    clock: Clock | None = None,
) -> ScenarioResult:
    """Run a simulated-user scenario k times; it passes when every run passes (pass^k for this task).

    ``agent_model`` and ``user_model`` build a fresh model per run (scripted models are single-use).
    """
    sim = scenario.user_sim
    if sim is None:
        raise ValueError(f"{source}: the scenario has no user_sim")
    failures: list[UnmetExpectation] = []
    shown: list[TurnRecord] = []
    for run in range(1, sim.k + 1):
        try:
            records, problems = _one_run(agent, agent_model(), user_model(), scenario, clock)
        except Exception as err:  # a model or session error fails this run
            records, problems = (
                [],
                [UnmetExpectation(None, "user_sim", "the run completes", f"{type(err).__name__}: {err}")],
            )
        prefix = f"run {run}/{sim.k}: " if sim.k > 1 else ""
        failures += [UnmetExpectation(f.turn, prefix + f.expectation, f.expected, f.actual) for f in problems]
        if not shown and (problems or run == sim.k):
            shown = records
    outcome: Outcome = "failed" if failures else "passed"
    return ScenarioResult(name, source, outcome, tuple(shown), tuple(failures), kind="simulation")


def pass_hat_k(runs: Mapping[str, Sequence[bool]]) -> float:
    """τ-bench's pass^k: the fraction of tasks whose every one of its k runs passed."""
    if not runs:
        return 0.0
    return sum(1 for outcomes in runs.values() if outcomes and all(outcomes)) / len(runs)
