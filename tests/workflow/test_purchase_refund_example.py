"""The purchase_refund example, offline, against the example purchases API on a real loopback port."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from slotgraph.cli.main import create_app
from slotgraph.workflow import WorkflowRunner, load_workflow

from .conftest import EXAMPLE, RunningApi, _load_api_module

WORKFLOW = EXAMPLE / "workflow.yaml"
GOAL = {"doc_id": "D-1", "account_id": "A-77", "message": "Blue Bottle Coffee, $42.50, November 20, 2026"}


def _run(api: RunningApi, goal: dict[str, Any]) -> Any:
    runner = WorkflowRunner(load_workflow(WORKFLOW), base_url=api.url)
    return asyncio.run(runner.run(goal))


def test_stage_two_gets_stage_one_json_and_the_refund_is_made(purchases_api: RunningApi) -> None:
    record = _run(purchases_api, GOAL)
    assert record.status == "succeeded", record.error
    assert record.slots["extract_fields"] == {
        "merchant": "Blue Bottle Coffee",
        "amount": 42.5,
        "date": "2026-11-20",
    }
    assert record.notes == [json.dumps(record.slots["extract_fields"])]
    (match_body,) = purchases_api.bodies("/purchases/match")
    # goal ∪ {merchant, amount, date}; the customer's message (not declared) is dropped
    assert match_body == {
        "doc_id": "D-1",
        "account_id": "A-77",
        "merchant": "Blue Bottle Coffee",
        "amount": 42.5,
        "date": "2026-11-20",
    }
    (refund_body,) = purchases_api.bodies("/refunds")
    assert refund_body == {"account_id": "A-77", "purchase_id": "P-1001", "amount": 42.5}
    assert purchases_api.api.refunds == [{"refund_id": "R-1", **refund_body}]


def test_a_field_the_model_could_not_read_fails_closed_before_the_call(purchases_api: RunningApi) -> None:
    record = _run(purchases_api, {**GOAL, "message": "Blue Bottle Coffee, November 20, 2026"})
    assert record.status == "failed" and record.error is not None
    assert record.error["code"] == "missing_required_key" and record.error["stage_id"] == "match_purchase"
    assert "'amount'" in record.error["message"] and "'extract_fields'" in record.error["message"]
    assert purchases_api.api.requests == []  # nothing was sent


def test_no_matching_purchase_closes_the_gate(purchases_api: RunningApi) -> None:
    record = _run(purchases_api, {**GOAL, "message": "Blue Bottle Coffee, $99.00, November 20, 2026"})
    assert record.error is not None and record.error["code"] == "gate_closed"
    assert purchases_api.bodies("/refunds") == []


def test_slotgraph_run_prints_the_run_as_json(purchases_api: RunningApi, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        create_app(),
        ["run", str(WORKFLOW), "--payload", json.dumps(GOAL), "--base-url", purchases_api.url,
         "--store", f"sqlite://{tmp_path / 'runs.db'}", "--run-id", "cli-1", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["run_id"] == "cli-1" and document["status"] == "succeeded"
    assert [s["stage_id"] for s in document["stages"]] == list(load_workflow(WORKFLOW).stages)
    assert all(s["duration_ms"] >= 0 for s in document["stages"])


def test_slotgraph_run_shows_each_stage_and_fails_with_exit_1(purchases_api: RunningApi) -> None:
    goal = {**GOAL, "message": "Blue Bottle Coffee, November 20, 2026"}
    result = CliRunner().invoke(
        create_app(),
        [
            "run",
            str(WORKFLOW),
            "--payload",
            json.dumps(goal),
            "--base-url",
            purchases_api.url,
            "--store",
            "memory://",
        ],
    )
    assert result.exit_code == 1
    assert "✓ extract_fields" in result.output and "✗ match_purchase" in result.output
    assert "missing_required_key" in result.output


def test_slotgraph_run_usage_errors() -> None:
    app = create_app()
    bad_json = CliRunner().invoke(app, ["run", str(WORKFLOW), "--payload", "{nope", "--store", "memory://"])
    assert bad_json.exit_code == 2 and "--payload is not usable JSON" in bad_json.output
    missing = CliRunner().invoke(app, ["run", "nowhere.yaml", "--payload", "{}"])
    assert missing.exit_code == 2
    bad_goal = CliRunner().invoke(app, ["run", str(WORKFLOW), "--payload", "[1]", "--store", "memory://"])
    assert bad_goal.exit_code == 2 and "JSON object" in bad_goal.output


def test_a_killed_run_resumes_from_its_last_stage_and_the_refund_happens_once(tmp_path: Path) -> None:
    """``slotgraph run`` is SIGKILLed while its refund call is in flight; ``--resume`` finishes the run, and
    the repeated call (same idempotency key) is answered without refunding twice."""
    module = _load_api_module()
    arrived, release = threading.Event(), threading.Event()

    class HoldingApi(module.PurchasesApi):  # type: ignore[misc,name-defined]
        def handle(self, path: str, body: Any, key: str | None) -> tuple[int, dict[str, Any]]:
            if path == "/refunds" and not arrived.is_set():
                arrived.set()
                release.wait(60)
            return super().handle(path, body, key)

    api = HoldingApi()
    server = module.make_server(0, api)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    store = f"sqlite://{tmp_path / 'runs.db'}"
    base = [
        sys.executable,
        "-m",
        "slotgraph",
        "run",
        str(WORKFLOW),
        "--base-url",
        url,
        "--store",
        store,
        "--json",
    ]
    try:
        process = subprocess.Popen(
            [*base, "--payload", json.dumps(GOAL), "--run-id", "kill-1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert arrived.wait(120), "the refund call never arrived"
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=30)
        release.set()
        deadline = time.monotonic() + 30
        while len(api.refunds) < 1 and time.monotonic() < deadline:  # the held call completes server-side
            time.sleep(0.01)
        resumed = subprocess.run([*base, "--resume", "kill-1"], capture_output=True, text=True, timeout=120)
        assert resumed.returncode == 0, resumed.stderr
        record = json.loads(resumed.stdout)
        assert record["status"] == "succeeded" and record["attempts"] == 2
        assert [s["stage_id"] for s in record["stages"]] == list(load_workflow(WORKFLOW).stages)
        keys = [r["idempotency_key"] for r in api.requests if r["path"] == "/refunds"]
        assert keys == ["kill-1:issue_refund", "kill-1:issue_refund"]
        assert len(api.refunds) == 1  # the repeat got the first answer; nothing was refunded twice
        assert record["slots"]["issue_refund"] == {"refund_id": "R-1", "status": "refunded"}
    finally:
        release.set()
        server.shutdown()
        server.server_close()
