"""``slotgraph validate`` covers workflow files."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from slotgraph.cli.main import create_app

from .conftest import EXAMPLE


def test_a_valid_workflow_file() -> None:
    result = CliRunner().invoke(create_app(), ["validate", str(EXAMPLE / "workflow.yaml")])
    assert result.exit_code == 0, result.output
    assert "valid workflow (4 stages)" in result.output


def test_an_invalid_workflow_file_lists_every_problem_with_its_position(tmp_path: Path) -> None:
    file = tmp_path / "wf.yaml"
    file.write_text(
        "workflow: w\nstages:\n  - id: a\n    kind: gate\n    when: slots.x == true\n    next: b\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(create_app(), ["validate", str(file), "--json"])
    assert result.exit_code == 1
    (entry,) = json.loads(result.stdout)["results"]
    assert entry["kind"] == "workflow" and entry["status"] == "invalid"
    found = {(e["code"], e["location"], e["line"]) for e in entry["errors"]}
    assert found == {("unknown_name", "stages[0].when", 5), ("unknown_stage", "stages[0].next", 6)}


def test_agents_and_workflows_validate_together() -> None:
    result = CliRunner().invoke(
        create_app(), ["validate", str(EXAMPLE / "workflow.yaml"), str(EXAMPLE.parent / "toy_reservation")]
    )
    assert result.exit_code == 0, result.output
