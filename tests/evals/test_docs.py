"""The full example of docs/evals.md is a scenario that runs and passes."""

from __future__ import annotations

import re

from slotgraph.evals import Case, CaseRunner, load_cases

from .conftest import REPO, TOY, WriteScenario

DOC = REPO / "docs" / "evals.md"


def _full_example() -> str:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## A full example", 1)[1]
    match = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert match is not None
    return match.group(1)


def test_the_documented_full_example_passes(write_scenario: WriteScenario) -> None:
    example = _full_example().replace("agent: ..", f"agent: {TOY}", 1)
    (case,) = load_cases([write_scenario(example)])
    assert isinstance(case, Case)
    result = CaseRunner().run(case)
    assert result.outcome == "passed", result.all_failures


def test_the_documented_full_example_is_the_repository_scenario() -> None:
    assert "inline correction during readback" in _full_example()
    assert (TOY / "scenarios" / "spec_15_inline_correction.yaml").is_file()
