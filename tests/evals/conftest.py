"""Shared helpers for the evaluation-harness tests: write scenario files, run them, build the CLI."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml

from slotgraph.cli.test_command import test_command
from slotgraph.evals import CaseRunner, ScenarioResult, load_cases

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
TOY = EXAMPLES / "toy_reservation"
TOY_NO_READBACK = TOY / "variants" / "no_readback"
BELLA = EXAMPLES / "bella_notte"

WriteScenario = Callable[..., Path]
RunScenario = Callable[..., ScenarioResult]


def cli_app() -> typer.Typer:
    """A Typer app with only ``test`` (the lead registers it in ``slotgraph.cli.main``)."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.command("test")(test_command)

    @app.command("noop")
    def noop() -> None:  # a second command keeps 'test' a subcommand
        """Nothing."""

    return app


@pytest.fixture
def write_scenario(tmp_path: Path) -> WriteScenario:
    """Write a scenario (a dict or YAML text) under tmp_path/scenarios/NAME.yaml; agent paths are absolute."""

    def write(data: dict[str, Any] | str, name: str = "case") -> Path:
        folder = tmp_path / "scenarios"
        folder.mkdir(exist_ok=True)
        path = folder / f"{name}.yaml"
        path.write_text(
            data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False), encoding="utf-8"
        )
        return path

    return write


@pytest.fixture
def run_scenario(write_scenario: WriteScenario) -> RunScenario:
    """Write one scenario and run it; returns its result."""

    def run(data: dict[str, Any] | str, **options: Any) -> ScenarioResult:
        path = write_scenario(data)
        (case,) = load_cases([path])
        return CaseRunner(**options).run(case)

    return run
