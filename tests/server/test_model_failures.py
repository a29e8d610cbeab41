"""A model failure reaches the client as 503 (retry later, with ``Retry-After``) or 502 — never a bare 500.

The agent's model is the real OpenAI-compatible client talking to a loopback server that answers errors.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from models.loopback import LoopbackServer, Reply  # tests/models (tests/ is on sys.path)
from slotgraph.models.openai import OpenAIChatModel
from slotgraph.models.retry import RetryPolicy

from .support import PROBLEM, app_for, bella, new_session


@pytest.fixture
def upstream() -> Iterator[LoopbackServer]:
    srv = LoopbackServer().start()
    try:
        yield srv
    finally:
        srv.stop()
    assert not srv.unexpected, srv.unexpected


@pytest.fixture
def api(upstream: LoopbackServer) -> Iterator[TestClient]:
    model = OpenAIChatModel(
        "test-model", base_url=f"{upstream.url}/v1", api_key="k", retry=RetryPolicy(max_retries=0)
    )
    with TestClient(app_for(bella(model))) as c:
        yield c


def _error(status: int, **headers: str) -> Reply:
    return Reply({"error": {"message": "upstream says no"}}, status=status, headers=headers)


def test_a_rate_limit_is_503_with_retry_after(api: TestClient, upstream: LoopbackServer) -> None:
    session_id = new_session(api)
    upstream.queue(_error(429, **{"Retry-After": "7"}))
    response = api.post(f"/v1/sessions/{session_id}/messages", json={"text": "Hi"})
    assert response.status_code == 503
    assert response.headers["content-type"].startswith(PROBLEM)
    assert response.headers["retry-after"] == "7"
    body = response.json()
    assert body["code"] == "model_unavailable"
    assert body["retry_after"] == 7
    assert "127.0.0.1" not in response.text  # the model's address is the operator's business
    # the turn was not saved: the session has no turn and can be played again once the model is back
    assert api.get(f"/v1/sessions/{session_id}").json()["turns"] == 0


def test_an_upstream_outage_without_retry_after_is_503_without_the_header(
    api: TestClient, upstream: LoopbackServer
) -> None:
    session_id = new_session(api)
    upstream.queue(_error(502))
    response = api.post(f"/v1/sessions/{session_id}/messages", json={"text": "Hi"})
    assert response.status_code == 503
    assert "retry-after" not in response.headers
    assert response.json()["code"] == "model_unavailable"


@pytest.mark.parametrize(
    ("reply", "why"),
    [(_error(401), "refused key"), (Reply(raw="not json at all"), "not the protocol")],
)
def test_a_broken_model_is_502(api: TestClient, upstream: LoopbackServer, reply: Reply, why: str) -> None:
    session_id = new_session(api)
    upstream.queue(reply)
    response = api.post(f"/v1/sessions/{session_id}/messages", json={"text": "Hi"})
    assert response.status_code == 502, why
    body = response.json()
    assert body["code"] == "model_failed"
    assert body["fix"]


def test_a_streamed_turn_reports_the_rate_limit_as_a_problem_event(
    api: TestClient, upstream: LoopbackServer
) -> None:
    session_id = new_session(api)
    upstream.queue(_error(429, **{"Retry-After": "3"}))
    with api.stream("POST", f"/v1/sessions/{session_id}/messages:stream", json={"text": "Hi"}) as response:
        text = "".join(response.iter_text())
    blocks = [b for b in text.split("\n\n") if b.startswith("event: error")]
    assert len(blocks) == 1
    data = json.loads(blocks[0].split("data: ", 1)[1])
    assert (data["status"], data["code"], data["retry_after"]) == (503, "model_unavailable", 3)
