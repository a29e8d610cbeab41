"""``slotgraph serve``: option checks, the single-process app and the worker handoff (uvicorn stubbed)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import typer
from fastapi import FastAPI
from typer.testing import CliRunner

from slotgraph.cli.serve import serve, serve_command
from slotgraph.server.factory import APP_FACTORY
from slotgraph.server.http_protocol import HTTP_PROTOCOL
from slotgraph.server.settings import API_KEY_ENV, CONFIG_ENV, WorkerConfig

from .support import BELLA


class _Run:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, dict[str, Any]]] = []

    def __call__(self, app: Any, **kwargs: Any) -> None:
        self.calls.append((app, kwargs))


def test_one_worker_runs_the_app_on_loopback_by_default() -> None:
    run = _Run()
    assert serve([BELLA], run=run) == 0
    ((app, kwargs),) = run.calls
    assert isinstance(app, FastAPI)
    assert kwargs["host"] == "127.0.0.1" and kwargs["port"] == 8000
    assert kwargs["http"] == HTTP_PROTOCOL
    assert type(app.state.service.store).__name__ == "SQLiteStore"  # the embedded default


def test_several_workers_refuse_the_memory_store() -> None:
    run = _Run()
    assert serve([BELLA], workers=2, store="memory://", run=run) == 2
    assert run.calls == []


def test_several_workers_get_the_factory_and_the_config(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # serve() hands the config to the workers through os.environ: give it a copy so nothing leaks into
    # the other tests (a leaked API key would lock them out of the servers they start).
    monkeypatch.setattr(
        os, "environ", {k: v for k, v in os.environ.items() if k not in {CONFIG_ENV, API_KEY_ENV}}
    )
    run = _Run()
    url = f"sqlite:///{tmp_path / 's.db'}"
    assert serve([BELLA], workers=3, store=url, api_key="k", port=9001, run=run) == 0
    ((target, kwargs),) = run.calls
    assert target == APP_FACTORY and kwargs["factory"] is True and kwargs["workers"] == 3
    assert kwargs["http"] == HTTP_PROTOCOL  # Nagle off on the workers' connections
    config = WorkerConfig.from_env(os.environ)
    assert config.store_url == url and config.agent_paths == (str(BELLA),)
    assert os.environ[API_KEY_ENV] == "k"


def test_bad_agents_and_options_give_exit_codes(tmp_path: Path) -> None:
    run = _Run()
    assert serve([tmp_path / "nothing"], run=run) == 1
    assert serve([BELLA], workers=0, run=run) == 2
    assert serve([BELLA], store="carrier-pigeon://", run=run) == 2
    assert serve([BELLA], max_body_bytes=1, run=run) == 2
    assert run.calls == []


def test_the_command_is_a_typer_command() -> None:
    app = typer.Typer()
    app.command("serve")(serve_command)
    app.command("other")(lambda: None)
    result = CliRunner().invoke(app, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--store", "--host", "--port", "--workers", "--api-key", "--model"):
        assert option in result.output
    result = CliRunner().invoke(app, ["serve", str(BELLA), "--workers", "2", "--store", "memory://"])
    assert result.exit_code == 2
    assert "memory" in result.output
