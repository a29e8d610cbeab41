"""Several processes on one durable store: a process killed with SIGKILL mid-turn, and a bounded load test.

The children are real processes (``child_session.py``) talking to the same SQLite file / Redis / PostgreSQL
server over loopback. Readiness comes through the child's stdout (a ``READY`` line), never a sleep.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from slotgraph.runtime import ScriptedModel, ScriptedStep
from slotgraph.stores import StoreLockTimeoutError

from . import agent_kit
from .conftest import Backend, make_backend

pytestmark = pytest.mark.slow  # a plain `pytest` skips it; `make test` and CI run it

CHILD = Path(__file__).with_name("child_session.py")
BOUND = 60.0
"""Seconds any child may take to reach an observable point (a bound, not an expectation)."""


def spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(CHILD), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )


def read_line(process: subprocess.Popen[str]) -> str:
    """The child's next stdout line, waiting at most BOUND seconds."""
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], BOUND)
    if not ready:
        process.kill()
        raise AssertionError(f"the child printed nothing in {BOUND}s")
    line = process.stdout.readline().strip()
    if not line:
        process.wait()
        raise AssertionError(
            f"the child exited ({process.returncode}): {process.stderr.read() if process.stderr else ''}"
        )
    return line


@pytest.mark.parametrize("name", ["sqlite", "redis", "postgresql"])
def test_a_process_killed_mid_turn_loses_only_that_turn(
    name: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    backend: Backend = make_backend(name, request, tmp_path, lock_ttl=1.0)
    child = spawn("crash", backend.url, "victim")
    try:
        assert read_line(child) == "READY"  # the child holds the lock, inside a tool call of its 2nd turn

        async def while_alive() -> None:
            impatient = backend.open(lock_timeout=0.2)
            with pytest.raises(StoreLockTimeoutError):
                async with impatient.lock("victim"):
                    raise AssertionError("the lock was free while its holder was alive")

        backend.run(while_alive)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        for stream in (child.stdout, child.stderr):
            if stream is not None:
                stream.close()
    assert child.returncode == -signal.SIGKILL

    async def after() -> None:
        store = backend.open(
            lock_timeout=BOUND
        )  # the lease lapses after lock_ttl; PostgreSQL frees it at once
        stored, version = await store.load("victim") or ({}, 0)
        assert (version, stored["turns"], agent_kit.user_texts(stored)) == (1, 1, ["first"])
        async with store.lock("victim"):
            pass
        session = agent_kit.agent().session(
            session_id="victim",
            store=store,
            clock=agent_kit.clock,
            model=ScriptedModel([ScriptedStep(text="back")]),
        )
        assert (await session.asend("third")).text == "back"
        stored, version = await store.load("victim") or ({}, 0)
        assert (version, stored["turns"], agent_kit.user_texts(stored)) == (2, 2, ["first", "third"])

    backend.run(after)


WORKERS, TURNS, SESSIONS = 4, 25, 10


@pytest.mark.parametrize("name", ["redis", "sqlite", "postgresql"])
def test_several_processes_lose_no_turn(name: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """4 processes x 25 concurrent turns on 10 shared sessions over loopback: every turn lands once."""
    backend = make_backend(name, request, tmp_path, lock_ttl=30.0)
    children = [spawn("load", backend.url, str(w), str(TURNS), str(SESSIONS)) for w in range(WORKERS)]
    deadline = time.monotonic() + 5 * BOUND
    try:
        for child in children:
            out, err = child.communicate(timeout=max(1.0, deadline - time.monotonic()))
            assert child.returncode == 0 and out.strip() == "DONE", err
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()

    expected: dict[str, list[str]] = {}
    for worker in range(WORKERS):
        for turn in range(TURNS):
            expected.setdefault(agent_kit.load_session_id(worker, turn, TURNS, SESSIONS), []).append(
                f"w{worker}-t{turn}"
            )

    async def check() -> None:
        store = backend.open()
        assert await store.list_sessions() == sorted(expected)
        for session_id, texts in expected.items():
            stored, version = await store.load(session_id) or ({}, 0)
            assert stored["turns"] == version == len(texts)
            assert sorted(agent_kit.user_texts(stored)) == sorted(texts)  # each exactly once, in some order

    backend.run(check)
