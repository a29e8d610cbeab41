"""Bad request bodies get a problem document that says what is wrong — and nothing is stored for them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from slotgraph.stores import SQLiteStore

from .support import PROBLEM, app_for


@pytest.fixture
def sqlite_api(tmp_path: Path) -> Iterator[TestClient]:
    store = SQLiteStore(tmp_path / "sessions.db")
    with TestClient(app_for(store=store), raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize("constant", [b"NaN", b"Infinity", b"-Infinity"])
def test_event_data_json_cannot_store_is_refused_with_its_location(
    sqlite_api: TestClient, constant: bytes
) -> None:
    body = b'{"agent": "bella_notte", "event_data": {"party": {"size": ' + constant + b"}}}"
    response = sqlite_api.post("/v1/sessions", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text
    problem = response.json()
    assert response.headers["content-type"] == PROBLEM and problem["code"] == "invalid_request"
    (error,) = problem["errors"]
    assert error["location"] == "body.event_data"
    assert "event_data.party.size is" in error["message"] and "finite numbers" in error["message"]
    assert sqlite_api.get("/readyz").status_code == 200


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b'{"text": "\xff\xfe"}', "application/json"),
        ('{"text": "caf\u00e9"}'.encode("latin-1"), "application/json; charset=latin-1"),
    ],
)
def test_a_body_that_is_not_utf8_says_so(sqlite_api: TestClient, body: bytes, content_type: str) -> None:
    session_id = sqlite_api.post("/v1/sessions", json={"agent": "bella_notte"}).json()["session_id"]
    response = sqlite_api.post(
        f"/v1/sessions/{session_id}/messages", content=body, headers={"content-type": content_type}
    )
    assert response.status_code == 400
    problem = response.json()
    assert problem["code"] == "bad_request"
    assert "UTF-8 JSON" in problem["detail"] and "Content-Type: application/json" in problem["fix"]
    assert sqlite_api.get(f"/v1/sessions/{session_id}").json()["turns"] == 0


@pytest.mark.parametrize(
    ("event_data", "says"),
    [
        ('{"a": ' * 420 + "1" + "}" * 420, "nested more than 64 levels deep"),  # ~3 KB, as in issue 24
        ('{"name": "\\ud800"}', "event_data.name holds a lone surrogate"),
        ('{"text": "\\u0000ok\\udfff"}', "lone surrogate"),
    ],
)
def test_event_data_that_would_poison_a_session_is_a_422_and_nothing_is_stored(
    sqlite_api: TestClient, event_data: str, says: str
) -> None:
    body = '{"agent": "bella_notte", "event_data": ' + event_data + "}"
    response = sqlite_api.post(
        "/v1/sessions", content=body.encode(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 422, response.text
    (error,) = response.json()["errors"]
    assert error["location"] == "body.event_data" and says in error["message"]
    created = sqlite_api.post("/v1/sessions", json={"agent": "bella_notte"})
    assert created.status_code == 201  # the server is fine; the bad request stored nothing


def test_a_stored_state_the_engine_cannot_play_on_is_session_unreadable(tmp_path: Path) -> None:
    import asyncio

    store = SQLiteStore(tmp_path / "sessions.db")
    with TestClient(app_for(store=store), raise_server_exceptions=False) as c:
        session_id = c.post("/v1/sessions", json={"agent": "bella_notte"}).json()["session_id"]
        record, version = asyncio.run(store.load(session_id)) or ({}, 0)
        record["sm"] = {"filled": ["not", "a", "dict"]}
        asyncio.run(store.save(session_id, record, version))
        sent = c.post(f"/v1/sessions/{session_id}/messages", json={"text": "hi"})
    assert sent.status_code == 500 and sent.json()["code"] == "session_unreadable", sent.text
    assert "Traceback" not in sent.text
