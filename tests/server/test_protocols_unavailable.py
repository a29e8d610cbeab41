"""Without the A2A or MCP SDK installed, their endpoints say so (501) with the command that installs it."""

from __future__ import annotations

import sys

import pytest
from fastapi.testclient import TestClient

from slotgraph.server import open_session_store

from .support import PROBLEM, app_for


@pytest.mark.parametrize(
    ("module", "path", "extra"),
    [
        ("slotgraph.server.protocols.a2a", "/a2a/bella_notte", "a2a"),
        ("slotgraph.server.protocols.a2a", "/.well-known/agent-card.json", "a2a"),
        ("slotgraph.server.protocols.mcp_server", "/mcp/bella_notte", "mcp"),
    ],
)
def test_a_protocol_without_its_sdk_answers_501_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch, module: str, path: str, extra: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # importing it raises ImportError, as when not installed
    with TestClient(app_for(store=open_session_store("memory://"))) as client:
        answer = client.post(path, json={}) if not path.endswith(".json") else client.get(path)
        assert answer.status_code == 501
        assert answer.headers["content-type"] == PROBLEM
        body = answer.json()
        assert body["code"] == "protocol_unavailable"
        assert f"pip install 'slotgraph[server,{extra}]'" in body["fix"]
        assert client.get("/v1/models").json()["data"][0]["id"] == "bella_notte"  # the rest still serves
