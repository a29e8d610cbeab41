"""Running a case: load its agent, build the model that plays the LLM, play the turns, check expectations.

The model for a case is, in order: the run's ``--model`` override, the scenario's ``model``, ``scripted``
when a turn has scripted steps, else the agent's own model. A turn with scripted steps in a scenario whose
model is not ``scripted`` plays those steps for that turn only (without a ``--model`` override).
``scripted`` plays each turn's steps, ``replay`` the turn's expected model tool calls
(:mod:`slotgraph.evals.replay`), ``offline`` the embedded offline model on the session clock; any other
spec goes to :func:`slotgraph.runtime.resolve_model` (:func:`~slotgraph.evals.harness.build_model`; the
session, as for simulated users, is :func:`~slotgraph.evals.harness.open_session`). Expectations read what
a turn decided — the tools visible in each model call — from its ``TurnResult.steps``. The model is wrapped
in a :class:`~slotgraph.evals.turn_models.RecordingModel` only for a turn that raises (it has no result): its
record then shows the calls made before the failure.

A turn that raises (a scripted step not met, a turn after the session ended, a model error) is a failure of
that turn and ends the case; the turns before it keep their records.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from slotgraph.apps import load_agent
from slotgraph.evals.clock import moment_of, wall_clock_at
from slotgraph.evals.expectations import check_conversation, check_turn
from slotgraph.evals.format import Scenario, Turn
from slotgraph.evals.harness import (
    Clock,
    build_model,
    conversation_facts,
    fixed_clock,
    open_session,
)
from slotgraph.evals.loader import Case, LoadFailure
from slotgraph.evals.replay import ReplayCall, ReplayModel, app_routes
from slotgraph.evals.results import Outcome, ScenarioResult, TurnRecord, UnmetExpectation
from slotgraph.evals.simulation import simulate
from slotgraph.evals.tool_tests import ToolTestCase, run_tool_test
from slotgraph.evals.turn_models import RecordingModel, TurnScriptModel
from slotgraph.runtime import Agent, Model, ScriptedStep, Session, ToolCall, TurnResult, Usage

__all__ = ["CaseRunner", "RunOptions"]


@dataclass(frozen=True, slots=True)
class RunOptions:
    """Settings of one run that apply to every case."""

    model: str | None = None
    """Overrides every case's model (scripted steps are then ignored)."""
    today: datetime.date | None = None
    """The session date for cases without a fixed ``now`` (goldens get it at load)."""
    user_model: str | None = None
    """The model playing simulated users (overrides ``user_sim.model``)."""


def _set_env(values: Mapping[str, str]) -> None:
    for key, value in values.items():
        if value:
            os.environ[key] = value
        else:
            os.environ.pop(key, None)


@contextmanager
def _environment(scenario: Scenario) -> Iterator[None]:
    """Set the scenario's environment variables (tool knobs) for the case, then restore every one touched."""
    keys = set(scenario.env).union(*(turn.env for turn in scenario.turns))
    saved = {key: os.environ.get(key) for key in keys}
    _set_env(scenario.env)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


def _relocate(result: ScenarioResult, locations: Mapping[str, str]) -> ScenarioResult:
    """Point failures of an imported golden at the place in the golden file where they are written."""
    if not locations:
        return result

    def moved(failure: UnmetExpectation) -> UnmetExpectation:
        where = locations.get(failure.expectation, failure.expectation)
        return dataclasses.replace(failure, expectation=where)

    turns = tuple(dataclasses.replace(t, failures=tuple(moved(f) for f in t.failures)) for t in result.turns)
    return dataclasses.replace(result, turns=turns, failures=tuple(moved(f) for f in result.failures))


def _steps(turn: Turn, index: int) -> list[ScriptedStep]:
    steps = []
    for n, step in enumerate(turn.model or []):
        calls = tuple(
            ToolCall(f"t{index}s{n}c{c}", tc.name, dict(tc.args)) for c, tc in enumerate(step.tool_calls)
        )
        steps.append(
            ScriptedStep(
                text=step.text,
                tool_calls=calls,
                expect_tools=frozenset(step.expect_tools) if step.expect_tools is not None else None,
                expect_hidden=frozenset(step.expect_hidden),
                expect_in_instruction=tuple(step.expect_in_instruction),
                label=step.label or f"turn {index + 1} step {n + 1}",
            )
        )
    return steps


def _replay_hints(turn: Turn) -> dict[str, Any]:
    """Slot values the turn's state expectations name (``pending``/``filled``/``deferred``), for completing
    the arguments a golden leaves out."""
    hints: dict[str, Any] = {}
    for wanted in (turn.expect.state, turn.expect.state_during):
        for section in ("deferred", "filled", "pending"):
            values = wanted.get(section)
            if isinstance(values, dict):
                hints.update(values)
            for path, value in wanted.items():
                if path.startswith(f"{section}.") and path.count(".") == 1:
                    hints[path.split(".", 1)[1]] = value
    return hints


def _replay_calls(turn: Turn) -> list[ReplayCall]:
    return [ReplayCall(c.name, dict(c.args or {})) for c in turn.expect.tool_calls if c.origin != "engine"]


@dataclass
class CaseRunner:
    """Runs cases; loaded agents are kept for the runner's lifetime (one per resolved path)."""

    options: RunOptions = field(default_factory=RunOptions)
    _agents: dict[Path, Agent] = field(default_factory=dict)

    def agent(self, path: Path) -> Agent:
        if path not in self._agents:
            self._agents[path] = load_agent(path)
        return self._agents[path]

    def moment(self, case: Case | LoadFailure | ToolTestCase) -> datetime.datetime | None:
        """When a case runs: its scenario's ``now``, else noon of ``--today``; None for the real clock."""
        if isinstance(case, Case) and case.scenario.now is not None:
            return case.scenario.now
        if isinstance(case, LoadFailure) or self.options.today is None:
            return None
        return moment_of(self.options.today)

    def clock(self, case: Case) -> Clock | None:
        """The session clock of a case: fixed at its moment, or None for the real clock."""
        moment = self.moment(case)
        return fixed_clock(moment) if moment is not None else None

    def model_spec(self, scenario: Scenario, agent: Agent) -> str:
        spec = self.options.model or scenario.model
        if spec is None:
            spec = "scripted" if scenario.has_script else agent.model_spec
        if not spec:
            raise ValueError(
                "no model for this scenario: set 'model:' (scripted, replay, offline) or give the agent one"
            )
        return spec

    def run(self, case: Case | LoadFailure | ToolTestCase) -> ScenarioResult:
        """Play one case (a simulated-user case is played by :mod:`slotgraph.evals.simulation`, a tool test
        by :mod:`slotgraph.evals.tool_tests`).

        A case with a fixed moment (its ``now``, or the run's ``today``) runs with the wall clock moved
        there (:func:`~slotgraph.evals.clock.wall_clock_at`), so tool code calling
        ``datetime.date.today()`` itself sees the test's day too."""
        with wall_clock_at(self.moment(case)):
            return self._run(case)

    def _run(self, case: Case | LoadFailure | ToolTestCase) -> ScenarioResult:
        if isinstance(case, ToolTestCase):
            return run_tool_test(case, self.agent, self.options.today)
        if isinstance(case, LoadFailure):
            err = case.error
            failure = UnmetExpectation(None, err.location or "<file>", err.fix or "a valid file", err.message)
            return ScenarioResult(case.name, case.source, "failed", failures=(failure,), error=str(err))
        with _environment(case.scenario):
            try:
                agent = self.agent(case.agent_path)
                spec = self.model_spec(case.scenario, agent)
                clock = self.clock(case)
                model = build_model(spec, clock, app_routes(agent, case.agent_path))
            except Exception as err:  # an agent or model that cannot be built fails this case only
                failure = UnmetExpectation(
                    None, "agent", f"{case.agent_path} loads", f"{type(err).__name__}: {err}"
                )
                return ScenarioResult(case.name, case.source, "failed", failures=(failure,), kind=case.kind)
            if case.scenario.user_sim is not None:
                return self._simulate(case, agent, spec, clock)
            return _relocate(self._play(case, agent, model, clock), case.locations)

    def _simulate(self, case: Case, agent: Agent, spec: str, clock: Clock | None) -> ScenarioResult:
        sim = case.scenario.user_sim
        assert sim is not None
        user_spec = self.options.user_model or sim.model
        if not user_spec:
            return ScenarioResult(
                case.name,
                case.source,
                "skipped",
                kind="simulation",
                skip_reason="a simulated user needs a model: pass --user-model SPEC or set user_sim.model",
            )
        if user_spec.startswith("scripted:"):  # a script file next to the scenario
            user_spec = "scripted:" + str(case.base_dir / user_spec.removeprefix("scripted:"))
        resolved = user_spec
        return simulate(
            case.name,
            case.source,
            case.scenario,
            agent,
            agent_model=lambda: build_model(spec, clock),
            user_model=lambda: build_model(resolved, clock),
            clock=clock,
        )

    def _play(self, case: Case, agent: Agent, model: Model, clock: Clock | None) -> ScenarioResult:
        scenario = case.scenario
        recorder = RecordingModel(model)
        # a model the run or the scenario names (a script, a replay, --model) plays every agent of an app;
        # without one, the agents of an app that name their own model use it
        named = self.options.model is not None or scenario.model is not None or scenario.has_script
        session = open_session(agent, scenario, recorder, clock, agent_models=not named)
        records: list[TurnRecord] = []
        for index, turn in enumerate(scenario.turns):
            record = self._turn(session, recorder, turn, index)
            records.append(record)
            if record.failures and record.failures[-1].expectation == f"turns[{index}]":
                break
        else:
            facts = conversation_facts(agent, session, records)
            failures = tuple(check_conversation(scenario.expect, facts))
            outcome: Outcome = "failed" if failures or any(r.failures for r in records) else "passed"
            return ScenarioResult(case.name, case.source, outcome, tuple(records), failures, kind=case.kind)
        return ScenarioResult(case.name, case.source, "failed", tuple(records), kind=case.kind)

    def _turn(self, session: Session, recorder: RecordingModel, turn: Turn, index: int) -> TurnRecord:
        default = recorder.inner
        if turn.model is not None and not isinstance(default, TurnScriptModel) and self.options.model is None:
            recorder.inner = TurnScriptModel()  # this turn's steps stand in for the scenario's model
        try:
            return self._play_turn(session, recorder, turn, index)
        finally:
            recorder.inner = default

    def _play_turn(self, session: Session, recorder: RecordingModel, turn: Turn, index: int) -> TurnRecord:
        inner = recorder.inner
        if isinstance(inner, TurnScriptModel):
            inner.begin_turn(_steps(turn, index))
        elif isinstance(inner, ReplayModel):
            inner.begin_turn(_replay_calls(turn), _replay_hints(turn), transfer_to=turn.expect.transfer_to)
        injected = turn.injected_event_data()
        _set_env(turn.env)
        first_request = len(recorder.requests)
        started = time.perf_counter()
        label = (
            turn.user if turn.user is not None else (f"<event {turn.event}>" if turn.event else "<variables>")
        )
        try:
            if turn.kind == "variables":
                session.event_data.update(injected)
                return TurnRecord(index + 1, "variables", label, _unplayed(session.status), note=turn.note)
            if turn.kind == "event":
                result = session.send_event(str(turn.event), event_data=injected or None)
            else:
                session.event_data.update(injected)
                result = session.send(str(turn.user))
        except Exception as err:  # the turn could not be played: a failure of this turn, the case stops
            latency = time.perf_counter() - started
            failure = UnmetExpectation(
                index + 1, f"turns[{index}]", "the turn plays", f"{type(err).__name__}: {err}"
            )
            calls = len(recorder.requests) - first_request
            return TurnRecord(
                index + 1, turn.kind, label, _unplayed(session.status, calls), latency, (failure,), turn.note
            )
        latency = time.perf_counter() - started
        failures = check_turn(turn.expect, result, index + 1, f"turns[{index}].expect")
        if isinstance(inner, TurnScriptModel):
            try:
                inner.end_turn()
            except Exception as err:  # steps left unused: the model was called fewer times than scripted
                failures.append(
                    UnmetExpectation(index + 1, f"turns[{index}].model", "every scripted step used", str(err))
                )
        filled_in: tuple[str, ...] = ()
        if isinstance(inner, ReplayModel):
            filled_in = tuple(f"routed with {r}" for r in inner.routes_taken) + tuple(
                f"completed {c.describe()}" for c in inner.completions
            )
        return TurnRecord(index + 1, turn.kind, label, result, latency, tuple(failures), turn.note, filled_in)


def _unplayed(status: str, model_calls: int = 0) -> TurnResult:
    """The result of a turn that produced nothing: a variables-only turn, or one that raised (after
    ``model_calls`` calls)."""
    return TurnResult(events=(), model_calls=model_calls, usage=Usage(), refusals=0, status=status)
