"""CI runs every scenario and golden in the repository through ``slotgraph test examples/``."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from slotgraph.evals import discover

from .conftest import EXAMPLES, cli_app


def test_every_example_scenario_and_golden_passes() -> None:
    result = CliRunner().invoke(cli_app(), ["test", str(EXAMPLES)])
    last = result.output.strip().splitlines()[-1]
    assert result.exit_code == 0, result.output
    match = re.fullmatch(r"(\d+) passed, 0 failed(, \d+ skipped)?", last)
    assert match is not None, last
    assert int(match.group(1)) >= 40


def test_the_examples_hold_at_least_30_scenarios_and_10_goldens() -> None:
    files = discover([EXAMPLES])
    assert sum(1 for f in files if f.suffix == ".yaml") >= 30
    assert sum(1 for f in files if f.suffix == ".json") >= 10
