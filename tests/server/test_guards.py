"""Request size limits, API-key auth, and the settings that configure them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from slotgraph.server import ServerConfigError, ServerSettings

from .support import PROBLEM, app_for, new_session


def test_a_body_over_the_limit_is_413_by_content_length() -> None:
    with TestClient(app_for(settings=ServerSettings(max_body_bytes=2048))) as c:
        session_id = new_session(c)
        response = c.post(f"/v1/sessions/{session_id}/messages", json={"text": "x" * 3000})
        small = c.post(f"/v1/sessions/{session_id}/messages", json={"text": "Hi"})
    assert response.status_code == 413
    assert response.headers["content-type"] == PROBLEM
    assert response.json()["code"] == "payload_too_large" and "2048" in response.json()["detail"]
    assert small.status_code == 200


def test_a_chunked_body_over_the_limit_is_413() -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"agent": "'
        for _ in range(10):
            yield b"a" * 500
        yield b'"}'

    with TestClient(app_for(settings=ServerSettings(max_body_bytes=2048))) as c:
        response = c.post("/v1/sessions", content=chunks(), headers={"content-type": "application/json"})
    assert "content-length" not in response.request.headers
    assert response.status_code == 413 and response.json()["code"] == "payload_too_large"


def test_default_limit_is_64_kib() -> None:
    assert ServerSettings().max_body_bytes == 64 * 1024
    with pytest.raises(ServerConfigError):
        ServerSettings(max_body_bytes=10)
    with pytest.raises(ServerConfigError):
        ServerSettings(api_key="  ")


@pytest.fixture
def guarded() -> Iterator[TestClient]:
    with TestClient(app_for(settings=ServerSettings(api_key="k-123"))) as c:
        yield c


def test_the_api_needs_the_key(guarded: TestClient) -> None:
    for headers in (
        {},
        {"Authorization": "Bearer wrong"},
        {"X-API-Key": "k-12"},
        {"Authorization": "Basic k-123"},
    ):
        response = guarded.get("/v1/agents", headers=headers)
        assert response.status_code == 401, headers
        assert response.headers["content-type"] == PROBLEM
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert response.json()["code"] == "unauthorized"
        assert "k-123" not in response.text


def test_bearer_or_x_api_key_are_accepted(guarded: TestClient) -> None:
    assert guarded.get("/v1/agents", headers={"Authorization": "Bearer k-123"}).status_code == 200
    response = guarded.post("/v1/sessions", json={"agent": "bella_notte"}, headers={"X-API-Key": "k-123"})
    assert response.status_code == 201


def test_health_docs_and_the_page_stay_open(guarded: TestClient) -> None:
    for path in ("/healthz", "/readyz", "/", "/openapi.json", "/docs"):
        assert guarded.get(path).status_code == 200, path
