"""A tool that raises or an unexpected exception never leaks its message or a traceback to a client."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from slotgraph.runtime import ModelRequest, ModelResponse, ScriptedModel, ScriptedStep, call
from slotgraph.server import load_hosted_agents

from .support import PROBLEM, SECRET, app_for, new_session, say, write_crashy_agent


def _leaks(text: str) -> bool:
    return SECRET in text or "Traceback" in text or "ValueError" in text or "RuntimeError" in text


def test_a_failing_executor_and_setter_leak_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("set_city", city="boom"),)),
            ScriptedStep(text="Sorry, that did not work. Which city?"),
            ScriptedStep(tool_calls=(call("set_city", city="Oslo"), call("set_code", code="A1"))),
            ScriptedStep(text="Let me check."),
        ]
    )
    agents = load_hosted_agents([write_crashy_agent(tmp_path)], model=model)
    with TestClient(app_for(agents)) as c, caplog.at_level(logging.ERROR):
        session_id = new_session(c, "crashy")
        first = c.post(f"/v1/sessions/{session_id}/messages", json={"text": "boom"})
        second = c.post(f"/v1/sessions/{session_id}/messages", json={"text": "Oslo, code A1"})
        stream = c.post(f"/v1/sessions/{session_id}/messages:stream", json={"text": "A2"})
        read = c.get(f"/v1/sessions/{session_id}")
    assert first.status_code == second.status_code == read.status_code == 200
    failed = [e for e in first.json()["events"] if e["kind"] == "tool_result" and e["failed"]]
    assert failed and failed[0]["result"]["message"].startswith("The tool failed")
    lookup = read.json()["state"]["task_results"]["Lookup"]
    assert lookup["success"] is False and lookup["error"].startswith("The tool failed")
    for response in (first, second, stream, read):
        assert not _leaks(response.text), response.text
    assert SECRET in caplog.text  # the operator still sees it in the log


class _ExplodingModel:
    async def generate(self, request: ModelRequest) -> ModelResponse:
        raise RuntimeError(f"upstream said {SECRET}")


def test_an_unexpected_exception_is_an_internal_error_without_details() -> None:
    from .support import bella

    app = app_for(bella(_ExplodingModel()))
    with TestClient(app, raise_server_exceptions=False) as c:
        session_id = new_session(c)
        response = c.post(f"/v1/sessions/{session_id}/messages", json={"text": "Hi"})
        stream = c.post(f"/v1/sessions/{session_id}/messages:stream", json={"text": "Hi"})
        after = c.get(f"/v1/sessions/{session_id}")
    assert response.status_code == 500
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["code"] == "internal_error" and "error id" in body["detail"]
    assert not _leaks(response.text)
    # The stream had started (events go out as they happen): the failure is its last event, a problem.
    assert stream.status_code == 200 and "event: error" in stream.text
    error = json.loads(stream.text.split("event: error\ndata: ", 1)[1].split("\n", 1)[0])
    assert error["code"] == "internal_error" and "error id" in error["detail"]
    assert not _leaks(stream.text)
    assert after.json()["turns"] == 0  # the failed turn was not saved


def test_a_refused_tool_call_is_reported_without_executing(tmp_path: Path) -> None:
    model = ScriptedModel(
        [ScriptedStep(tool_calls=(call("lookup", code="x"),)), ScriptedStep(text="Which city?")]
    )
    agents = load_hosted_agents([write_crashy_agent(tmp_path)], model=model)
    with TestClient(app_for(agents)) as c:
        session_id = new_session(c, "crashy")
        reply = say(c, session_id, "look it up")
    refusals = [e for e in reply["events"] if e["kind"] == "refusal"]
    assert refusals and refusals[0]["refused"] == "executor"
    assert not _leaks(str(reply))
