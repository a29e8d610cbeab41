"""``slotgraph serve --reload``: edit an agent while the server runs.

The end-to-end test starts the real command in a child process on a free loopback port, edits the agent's
files and waits (polling the API with a deadline) for the server to answer with the edited agent; a broken
edit answers 503 with the problem instead of hanging, and the next good save serves again.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from slotgraph.cli.serve import RELOAD_PATTERNS, serve, watched_dirs
from slotgraph.server.errors import ServerConfigError
from slotgraph.server.factory import EDITING_APP_FACTORY, broken_agents_app
from slotgraph.server.settings import API_KEY_ENV, CONFIG_ENV, WorkerConfig

from .support import BELLA, ROOT

pytestmark = pytest.mark.slow  # a plain `pytest` skips it; `make test` and CI run it

DEADLINE_SECONDS = 60.0


class _Run:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, dict[str, Any]]] = []

    def __call__(self, app: Any, **kwargs: Any) -> None:
        self.calls.append((app, kwargs))


@pytest.fixture
def clean_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    # serve() hands its config over through os.environ: give it a copy so nothing leaks into other tests.
    monkeypatch.setattr(
        os, "environ", {k: v for k, v in os.environ.items() if k not in {CONFIG_ENV, API_KEY_ENV}}
    )


@pytest.mark.usefixtures("clean_environ")
def test_reload_runs_the_editing_factory_watching_the_agent_directories() -> None:
    run = _Run()
    toy = ROOT / "examples" / "toy_reservation" / "agent.yaml"
    assert serve([BELLA, toy], reload=True, store="memory://", run=run) == 0
    ((app, kwargs),) = run.calls
    assert app == EDITING_APP_FACTORY and kwargs["factory"] is True and kwargs["reload"] is True
    assert kwargs["reload_dirs"] == sorted([str(BELLA.resolve()), str(toy.parent.resolve())])
    assert watched_dirs([BELLA]) == [str(BELLA.resolve())]
    assert set(RELOAD_PATTERNS) <= set(kwargs["reload_includes"]) and "*.yaml" in kwargs["reload_includes"]
    assert WorkerConfig.from_env().agent_paths == (str(BELLA), str(toy))


def test_reload_and_several_workers_are_a_usage_error() -> None:
    run = _Run()
    assert serve([BELLA], reload=True, workers=2, run=run) == 2
    assert run.calls == []


def test_a_broken_agent_app_explains_itself() -> None:
    from fastapi.testclient import TestClient

    app = broken_agents_app(ServerConfigError("toy: cannot load the agent (bad YAML)", fix="fix line 3"))
    with TestClient(app) as client:
        response = client.post("/v1/sessions", json={"agent": "toy"})
    assert response.status_code == 503
    body = response.json()
    assert body["code"] == "agent_config_broken"
    assert body["detail"] == "toy: cannot load the agent (bad YAML)"
    assert body["fix"].startswith("fix line 3; save the fixed file")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(check: Callable[[], bool], what: str, log: Path) -> None:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(
                f"{what} never happened; server log:\n{log.read_text(errors='replace')[-3000:]}"
            )
        threading.Event().wait(0.1)  # between two polls of observable state (the server's answers)


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(ROOT / "examples" / "toy_reservation", tmp_path / "toy"))


@pytest.fixture
def reloading_server(toy: Path, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    port = _free_port()
    log = tmp_path / "serve.log"
    env = {k: v for k, v in os.environ.items() if k not in {CONFIG_ENV, API_KEY_ENV}}
    with log.open("w") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "slotgraph",
                "serve",
                str(toy),
                "--reload",
                "--port",
                str(port),
                "--store",
                "memory://",
            ],
            cwd=tmp_path,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield f"http://127.0.0.1:{port}", log
    finally:
        os.killpg(process.pid, signal.SIGTERM)  # the reloader and its worker: the group this test started
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


def _get(url: str) -> httpx.Response | None:
    try:
        return httpx.get(url, timeout=2.0)
    except httpx.TransportError:
        return None


def _description(base: str) -> str | None:
    response = _get(base + "/v1/agents")
    if response is None or response.status_code != 200:
        return None
    return str(response.json()["agents"][0]["description"])


def test_editing_the_agent_reloads_the_server(reloading_server: tuple[str, Path], toy: Path) -> None:
    base, log = reloading_server
    _wait_for(lambda: _description(base) is not None, "the server answering", log)
    assert _description(base) != "Edited while the server runs."

    agent_yaml = toy / "agent.yaml"
    original = agent_yaml.read_text(encoding="utf-8")
    edited = "\n".join(
        "description: Edited while the server runs." if line.startswith("description:") else line
        for line in original.splitlines()
    )
    agent_yaml.write_text(edited + "\n", encoding="utf-8")
    _wait_for(lambda: _description(base) == "Edited while the server runs.", "the edit being served", log)

    dag = toy / "dag.yaml"
    good_dag = dag.read_text(encoding="utf-8")
    dag.write_text(good_dag + "\nslots: [\n", encoding="utf-8")  # a save in the middle of an edit

    def broken() -> bool:
        response = _get(base + "/v1/agents")
        return response is not None and response.status_code == 503

    _wait_for(broken, "the broken edit being reported", log)
    body = httpx.get(base + "/v1/agents", timeout=2.0).json()
    assert body["code"] == "agent_config_broken" and "dag.yaml" in body["detail"]

    dag.write_text(good_dag, encoding="utf-8")
    _wait_for(
        lambda: _description(base) == "Edited while the server runs.", "the fixed agent being served", log
    )
