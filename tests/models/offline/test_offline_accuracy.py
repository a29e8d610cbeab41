"""The labelled NLU set as a regression gate: overall exact-match accuracy must stay at the goal (90%)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARK = Path(__file__).resolve().parents[3] / "benchmarks" / "offline_accuracy.py"


def _load_benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location("offline_accuracy_benchmark", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return _load_benchmark()


def test_the_labelled_set_is_large_and_varied(bench: ModuleType) -> None:
    cases = bench.load_cases()
    assert len(cases) >= 200
    assert len({c.agent for c in cases}) >= 4
    held_out = [c for c in cases if c.held_out]
    assert len(held_out) >= 0.25 * len(cases) - 1
    assert len({c.id for c in cases}) == len(cases), "case ids must be unique"


def test_every_expected_argument_has_a_slot_type_label(bench: ModuleType) -> None:
    for case in bench.load_cases():
        for name, args in case.expect:
            for param in args:
                assert f"{name}.{param}" in case.slot_types, (case.id, name, param)


def test_overall_exact_accuracy_meets_the_goal(bench: ModuleType) -> None:
    outcomes = bench.evaluate(bench.load_cases())
    exact = sum(o.exact for o in outcomes)
    misses = [(o.case.id, o.case.user, o.got) for o in outcomes if not o.exact]
    assert exact / len(outcomes) >= bench.GOAL, misses


def test_held_out_accuracy_meets_the_goal(bench: ModuleType) -> None:
    outcomes = bench.evaluate([c for c in bench.load_cases() if c.held_out])
    assert sum(o.exact for o in outcomes) / len(outcomes) >= bench.GOAL


def test_a_wrong_plan_is_not_counted_as_exact(bench: ModuleType) -> None:
    case = bench.load_cases()[0]
    wrong = bench.Outcome(case, (("set_something_else", {}),), 0.0)
    assert not wrong.exact
    assert bench.Outcome(case, tuple(reversed(case.expect)), 0.0).exact


def test_the_benchmark_prints_the_overall_line(bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    cases = bench.load_cases()[:5]
    bench.report(bench.evaluate(cases))
    out = capsys.readouterr().out
    assert "overall: " in out and "% exact of 5" in out
    assert "latency per utterance: median" in out
