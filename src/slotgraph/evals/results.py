"""What a run produced: failures, per-turn records, per-scenario results and the run's totals.

All values are frozen dataclasses; the report writers (terminal, JUnit, HTML) read only these.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from slotgraph.runtime import Event, TurnResult, Usage

__all__ = ["Outcome", "RunSummary", "ScenarioResult", "TurnRecord", "UnmetExpectation"]

Outcome = Literal["passed", "failed", "skipped"]


@dataclass(frozen=True, slots=True)
class UnmetExpectation:
    """One unmet expectation: the turn (1-based, None for the whole conversation), where the expectation is
    written (``turns[2].expect.tool_calls[0]``), and the expected and actual values side by side."""

    turn: int | None
    expectation: str
    expected: str
    actual: str

    def headline(self) -> str:
        where = f"turn {self.turn}" if self.turn is not None else "conversation"
        return f"{where}: {self.expectation}"


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One turn of a scenario: what was sent, the runtime's own :class:`~slotgraph.runtime.TurnResult` of it,
    how long it took and what it failed. A variables-only turn, or a turn that could not be played, has a
    result with no events (and, for the latter, the model calls it made before it failed)."""

    index: int
    kind: str
    user_text: str
    result: TurnResult
    latency_s: float = 0.0
    failures: tuple[UnmetExpectation, ...] = ()
    note: str = ""
    replay_notes: tuple[str, ...] = ()
    """What the replay model filled in for a golden this turn: the routing calls it made to reach the agent of
    an expected call, and the arguments the golden left out that it completed (with the user's words)."""

    @property
    def events(self) -> tuple[Event, ...]:
        return self.result.events

    @property
    def text(self) -> str:
        return self.result.text

    @property
    def model_calls(self) -> int:
        return self.result.model_calls

    @property
    def usage(self) -> Usage:
        return self.result.usage

    @property
    def refusals(self) -> int:
        return self.result.refusals

    @property
    def status(self) -> str:
        return self.result.status

    @property
    def visible_tools(self) -> tuple[tuple[str, ...], ...]:
        """The tools the model could call, per model call of the turn."""
        return tuple(step.visible_tools for step in self.result.model_steps)

    @property
    def preempted(self) -> bool:
        """The model was not called (the engine spoke for it); variable-only turns are not turns played."""
        return self.kind != "variables" and self.model_calls == 0


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    """The outcome of one scenario (or golden, or one simulated run)."""

    name: str
    source: Path
    outcome: Outcome
    turns: tuple[TurnRecord, ...] = ()
    failures: tuple[UnmetExpectation, ...] = ()
    skip_reason: str = ""
    error: str = ""
    kind: str = "scenario"

    @property
    def played(self) -> tuple[TurnRecord, ...]:
        return tuple(t for t in self.turns if t.kind != "variables")

    @property
    def model_calls(self) -> int:
        return sum(t.model_calls for t in self.turns)

    @property
    def preempted_turns(self) -> int:
        return sum(1 for t in self.played if t.preempted)

    @property
    def refusals(self) -> int:
        return sum(t.refusals for t in self.turns)

    @property
    def tokens(self) -> int:
        return sum(t.usage.total_tokens for t in self.turns)

    @property
    def latency_s(self) -> float:
        return sum(t.latency_s for t in self.turns)

    @property
    def all_failures(self) -> tuple[UnmetExpectation, ...]:
        return tuple(f for t in self.turns for f in t.failures) + self.failures

    @property
    def replay_notes(self) -> tuple[tuple[int, str], ...]:
        """``(turn, what the replay filled in)`` for every turn of a golden where it routed or completed."""
        return tuple((t.index, note) for t in self.turns for note in t.replay_notes)

    def to_json(self) -> dict[str, Any]:
        """The result as plain JSON data (``slotgraph test --json``)."""
        return {
            "name": self.name,
            "source": str(self.source),
            "kind": self.kind,
            "outcome": self.outcome,
            "skip_reason": self.skip_reason or None,
            "error": self.error or None,
            "failures": [_failure_json(f) for f in self.failures],
            "turns": [
                {
                    "index": t.index,
                    "kind": t.kind,
                    "input": t.user_text,
                    "text": t.text,
                    "status": t.status,
                    "model_calls": t.model_calls,
                    "preempted": t.preempted,
                    "note": t.note or None,
                    "replay": list(t.replay_notes),
                    "failures": [_failure_json(f) for f in t.failures],
                }
                for t in self.turns
            ],
        }


def _failure_json(failure: UnmetExpectation) -> dict[str, Any]:
    return {
        "turn": failure.turn,
        "expectation": failure.expectation,
        "expected": failure.expected,
        "actual": failure.actual,
    }


@dataclass(frozen=True, slots=True)
class RunSummary:
    """All results of one ``slotgraph test`` run, with its totals."""

    results: tuple[ScenarioResult, ...] = field(default_factory=tuple)

    def count(self, outcome: Outcome) -> int:
        return sum(1 for r in self.results if r.outcome == outcome)

    @property
    def passed(self) -> int:
        return self.count("passed")

    @property
    def failed(self) -> int:
        return self.count("failed")

    @property
    def skipped(self) -> int:
        return self.count("skipped")

    @property
    def pass_rate(self) -> float:
        ran = self.passed + self.failed
        return self.passed / ran if ran else 0.0

    def _ran(self) -> Sequence[ScenarioResult]:
        return [r for r in self.results if r.outcome != "skipped"]

    @property
    def model_calls(self) -> int:
        return sum(r.model_calls for r in self._ran())

    @property
    def turns(self) -> int:
        return sum(len(r.played) for r in self._ran())

    @property
    def preempted_turns(self) -> int:
        return sum(r.preempted_turns for r in self._ran())

    @property
    def refusals(self) -> int:
        return sum(r.refusals for r in self._ran())

    @property
    def tokens(self) -> int:
        return sum(r.tokens for r in self._ran())

    @property
    def latency_s(self) -> float:
        return sum(r.latency_s for r in self._ran())

    def to_json(self) -> dict[str, Any]:
        """The run as plain JSON data: the tally's counts and every result (``slotgraph test --json``)."""
        return {
            "passed": self.passed,
            "failed": self.failed,
            "skipped": self.skipped,
            "results": [result.to_json() for result in self.results],
        }

    def tally(self) -> str:
        """The last line of a run: ``N passed, M failed`` (plus ``, K skipped`` when any)."""
        line = f"{self.passed} passed, {self.failed} failed"
        return line + (f", {self.skipped} skipped" if self.skipped else "")
