"""Fixtures for the CLI tests: a runner, the app, and paths to the example and the broken fixture."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
import typer
from cli_support import FIXTURES, REPO_ROOT, Invoke
from typer.testing import CliRunner, Result

from slotgraph.cli.main import create_app


@pytest.fixture
def app() -> typer.Typer:
    return create_app()


@pytest.fixture
def invoke(app: typer.Typer) -> Invoke:
    runner = CliRunner()

    def run(args: Sequence[str]) -> Result:
        return runner.invoke(app, list(args), catch_exceptions=False)

    return run


@pytest.fixture
def bella_notte() -> Path:
    return REPO_ROOT / "examples" / "bella_notte"


@pytest.fixture
def broken_dag() -> Path:
    return FIXTURES / "broken_dag.yaml"
