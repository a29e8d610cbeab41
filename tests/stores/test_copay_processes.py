"""The copay example across processes (issue: "recorded exactly once even when the model repeats the call, two
workers race, or the process is killed between dispatch and save").

Every child (``copay_child.py``) is a real process sharing the payment system (one SQLite file) and a durable
session store: two workers race on the real Redis (and PostgreSQL, and one SQLite file) the tests start, each
in its own conversation, to record the same payment; a worker is killed with SIGKILL inside the write, or
after it while the turn is being saved, and another process resumes the conversation. Coordination goes
through the children's stdin/stdout, never a sleep.
"""

from __future__ import annotations

import datetime
import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from slotgraph.runtime import ToolContext
from slotgraph.runtime.tools import load_tools_module

from .conftest import make_backend
from .test_processes import read_line

CHILD = Path(__file__).with_name("copay_child.py")
COPAY = Path(__file__).resolve().parents[2] / "examples" / "copay"


@pytest.fixture
def payments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The example's payment system in a fresh file, with payment TX-1 of $25.00 for A-100 taken."""
    monkeypatch.setenv("COPAY_DB", str(tmp_path / "payments.sqlite"))
    tools = load_tools_module(COPAY / "tools.py")
    now = datetime.datetime(2026, 7, 13, 9, 0, tzinfo=datetime.UTC)
    charged = tools.charge_copay("A-100", 25.0, "USD", ToolContext(now, now.date(), {}, None, "earlier"))
    assert charged["transaction_id"] == "TX-1"
    return tools


def spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(CHILD), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str]) -> list[str]:
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    return out.strip().splitlines()


@pytest.mark.parametrize("name", ["redis", "postgresql", "sqlite"])
def test_two_workers_racing_to_record_one_payment_record_it_once(
    name: str, payments: Any, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    url = make_backend(name, request, tmp_path).url
    workers = [spawn("race", url, f"conversation-{n}") for n in (1, 2)]
    for worker in workers:
        assert read_line(worker) == "READY"
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write("GO\n")
        worker.stdin.flush()
    outcomes = [json.loads(finish(worker)[-1]) for worker in workers]
    assert len(payments.copay_records("A-100")) == 1
    results = sorted((o["result"] for o in outcomes), key=lambda r: "_execution" in r)
    assert results[0] == {"recorded": True, "record_id": "CP-1"}
    assert results[1]["record_id"] == "CP-1" and results[1]["_execution"]["replayed"] is True


def test_a_worker_killed_after_the_write_and_before_the_save_is_replayed_not_repeated(
    payments: Any, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'sessions.db'}?lock_ttl=1"
    crashed = spawn("crash-save", url, "conversation")
    crashed.communicate(timeout=120)
    assert crashed.returncode == -signal.SIGKILL
    assert len(payments.copay_records("A-100")) == 1
    lines = finish(spawn("resume", url, "conversation"))
    outcome, variables = json.loads(lines[-2]), json.loads(lines[-1])
    assert outcome["result"]["_execution"]["replayed"] is True
    assert variables == {"copay_record": "CP-1"}  # the capture lost with the unsaved turn is restored
    assert len(payments.copay_records("A-100")) == 1


def test_a_worker_killed_inside_the_write_leaves_it_unconfirmed_never_repeated(
    payments: Any, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'sessions.db'}?lock_ttl=1"
    crashed = spawn("crash-dispatch", url, "conversation")
    crashed.communicate(timeout=120)
    assert crashed.returncode == -signal.SIGKILL
    assert len(payments.copay_records("A-100")) == 1
    outcome = json.loads(finish(spawn("resume", url, "conversation"))[-2])
    assert outcome["refused"] == "idempotency_unconfirmed"
    assert "not confirmed" in outcome["result"]["message"]
    assert len(payments.copay_records("A-100")) == 1
