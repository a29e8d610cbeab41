"""``/v1/workflows`` and ``/v1/runs`` in the service, and the run timeline page in a real browser."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from slotgraph.server import create_app
from slotgraph.server.runs import RunService, load_hosted_workflows
from slotgraph.stores.runs import InMemoryRunStore

from .conftest import EXAMPLE, RunningApi

GOAL = {"doc_id": "D-1", "account_id": "A-77", "message": "Blue Bottle Coffee, $42.50, November 20, 2026"}
PROBLEM = "application/problem+json"


def _app(api: RunningApi) -> FastAPI:
    runs = RunService(
        load_hosted_workflows([EXAMPLE / "workflow.yaml"]), InMemoryRunStore(), base_url=api.url
    )
    return create_app([], runs=runs)


@pytest.fixture
def service(purchases_api: RunningApi) -> Iterator[TestClient]:
    with TestClient(_app(purchases_api)) as client:
        yield client


def _wait_finished(client: TestClient, run_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        record: dict[str, Any] = client.get(f"/v1/runs/{run_id}").json()
        if record["status"] in ("succeeded", "failed"):
            return record
        time.sleep(0.02)
    raise AssertionError(f"run {run_id} did not finish")


def test_workflows_are_listed_with_their_stages(service: TestClient) -> None:
    (workflow,) = service.get("/v1/workflows").json()["workflows"]
    assert workflow["name"] == "purchase_refund"
    assert [s["id"] for s in workflow["stages"]] == [
        "extract_fields",
        "match_purchase",
        "purchase_found",
        "issue_refund",
    ]


def test_a_run_starts_in_the_background_and_is_read_back(
    service: TestClient, purchases_api: RunningApi
) -> None:
    started = service.post(
        "/v1/runs", json={"workflow": "purchase_refund", "payload": GOAL, "run_id": "job-1"}
    )
    assert started.status_code == 202, started.text
    assert started.headers["location"] == "/v1/runs/job-1"
    assert started.json()["status"] == "pending"
    record = _wait_finished(service, "job-1")
    assert record["status"] == "succeeded"
    assert record["goal"] == GOAL and record["slots"]["match_purchase"]["purchase_id"] == "P-1001"
    assert [s["stage_id"] for s in record["stages"]][-1] == "issue_refund"
    assert purchases_api.bodies("/refunds") == [
        {"account_id": "A-77", "purchase_id": "P-1001", "amount": 42.5}
    ]
    listed = service.get("/v1/runs").json()["runs"]
    assert listed[0]["run_id"] == "job-1" and listed[0]["status"] == "succeeded"


def test_wait_answers_with_the_finished_run_including_a_fail_closed_one(service: TestClient) -> None:
    goal = {**GOAL, "message": "Blue Bottle Coffee, November 20, 2026"}
    response = service.post("/v1/runs", json={"workflow": "purchase_refund", "payload": goal, "wait": True})
    assert response.status_code == 200
    record = response.json()
    assert record["status"] == "failed" and record["error"]["code"] == "missing_required_key"
    assert record["stages"][-1]["error"]["code"] == "missing_required_key"


def test_bad_requests_are_problems(service: TestClient) -> None:
    unknown = service.post("/v1/runs", json={"workflow": "nope", "payload": {}})
    assert (unknown.status_code, unknown.json()["code"]) == (404, "unknown_workflow")
    assert unknown.headers["content-type"].startswith(PROBLEM)
    bad_goal = service.post("/v1/runs", json={"workflow": "purchase_refund", "payload": {"doc_id": 1}})
    assert (bad_goal.status_code, bad_goal.json()["code"]) == (422, "invalid_goal")
    assert "doc_id" in bad_goal.json()["detail"]
    not_object = service.post("/v1/runs", json={"workflow": "purchase_refund", "payload": [1]})
    assert (not_object.status_code, not_object.json()["code"]) == (422, "invalid_request")
    missing = service.get("/v1/runs/nope")
    assert (missing.status_code, missing.json()["code"]) == (404, "run_not_found")
    first = service.post(
        "/v1/runs", json={"workflow": "purchase_refund", "payload": GOAL, "run_id": "dup", "wait": True}
    )
    assert first.status_code == 200
    again = service.post("/v1/runs", json={"workflow": "purchase_refund", "payload": GOAL, "run_id": "dup"})
    assert (again.status_code, again.json()["code"]) == (409, "run_conflict")


def test_the_timeline_page_is_served(service: TestClient) -> None:
    page = service.get("/runs")
    assert page.status_code == 200 and "/static/playground/runs.js" in page.text
    script = service.get("/static/playground/runs.js")
    assert script.status_code == 200 and "v1/runs" in script.text


def test_slotgraph_serve_hosts_workflow_files_next_to_agents(tmp_path: Path) -> None:
    from slotgraph.cli.serve import serve

    captured: dict[str, Any] = {}

    def run(app: Any, **kwargs: Any) -> None:
        captured["app"] = app

    bella = EXAMPLE.parent / "bella_notte"
    assert serve([bella, EXAMPLE / "workflow.yaml"], store="memory://", run=run) == 0
    with TestClient(captured["app"], base_url="http://localhost") as client:  # a loopback server's name
        assert [w["name"] for w in client.get("/v1/workflows").json()["workflows"]] == ["purchase_refund"]
        assert [a["name"] for a in client.get("/v1/agents").json()["agents"]] == ["bella_notte"]
    bad = tmp_path / "wf.yaml"
    bad.write_text("workflow: w\nstages:\n  - id: a\n    kind: gate\n    when: 'True'\n    next: b\n")
    assert serve([bella, bad], store="memory://", run=run) == 1
    assert serve([EXAMPLE / "workflow.yaml"], store="memory://", run=run) == 0  # workflows only
    assert serve([EXAMPLE / "workflow.yaml"], store="memory://", queue="redis://127.0.0.1:1/0", run=run) == 1


def test_worker_processes_get_the_workflows_through_their_config(tmp_path: Path) -> None:
    from slotgraph.server.factory import app_from_config
    from slotgraph.server.settings import WorkerConfig

    config = WorkerConfig(
        agent_paths=(),
        store_url=f"sqlite://{tmp_path / 'runs.db'}",
        workflow_paths=(str(EXAMPLE / "workflow.yaml"),),
        base_url="http://127.0.0.1:9",
    )
    again = WorkerConfig.from_env(config.to_env())
    assert again.workflow_paths == config.workflow_paths and again.base_url == config.base_url
    with TestClient(app_from_config(again)) as client:
        assert client.get("/v1/workflows").json()["workflows"][0]["name"] == "purchase_refund"
