"""The shipped example agents validate and compile without errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from slotgraph.config import compile_config, load_definition, validate_dag

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BELLA = EXAMPLES / "bella_notte"


@pytest.mark.skipif(not (BELLA / "dag.yaml").is_file(), reason="examples/bella_notte not present")
def test_bella_notte_validates_and_compiles() -> None:
    definition = load_definition(BELLA)
    assert definition.kind == "agent"
    assert definition.report.ok
    report = validate_dag(definition.raw_dag)
    assert report.ok, str(report)
    compiled = compile_config(definition.raw_dag)
    assert compiled.slots and compiled.tasks
    assert load_definition(BELLA / "dag.yaml").kind == "dag"
