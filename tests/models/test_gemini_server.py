"""``GeminiModel`` (the real google-genai client) against a loopback server replaying recorded payloads."""

from __future__ import annotations

import asyncio
import re

import pytest

pytest.importorskip("google.genai")

from slotgraph.models.errors import (
    ModelAPIError,
    ModelAuthError,
    ModelNotFoundError,
    ModelRateLimitError,
    ModelTimeoutError,
)
from slotgraph.models.gemini import GeminiModel
from slotgraph.models.protocol import ModelRequest, ModelResponse, ToolCall, Usage

from .backoff import Sleeps, retrying
from .gemini_fixtures import TOOL_TURN, fixture
from .loopback import LoopbackServer, Reply

PATH = re.compile(r"/v1(beta|alpha)?/models/gemini-2\.5-flash:generateContent")


def _model(server: LoopbackServer, sleeps: Sleeps, *, retries: int = 2, timeout: float = 10.0) -> GeminiModel:
    return GeminiModel(
        "gemini-2.5-flash",
        api_key="test-key",
        base_url=server.url,
        timeout=timeout,
        **retrying(sleeps, retries, random=0.0),
    )


def _generate(model: GeminiModel, request: ModelRequest = TOOL_TURN) -> ModelResponse:
    return asyncio.run(model.generate(request))


def test_the_sdk_sends_the_recorded_request_and_reads_the_text(server: LoopbackServer) -> None:
    server.queue_json(fixture("response_text"))
    response = _generate(_model(server, Sleeps()))
    assert response == ModelResponse(
        text="Just to confirm: 4 guests on July 17th, under the name Chen?", usage=Usage(412, 14)
    )
    (received,) = server.requests
    assert received.method == "POST" and PATH.fullmatch(received.path)
    assert received.headers["x-goog-api-key"] == "test-key"
    expected = fixture("request_tool_turn")
    assert received.body["contents"] == expected["contents"]
    assert received.body["systemInstruction"]["parts"] == expected["systemInstruction"]["parts"]
    assert received.body["tools"] == expected["tools"]


def test_function_calls_through_the_sdk(server: LoopbackServer) -> None:
    server.queue_json(fixture("response_function_calls"))
    response = _generate(_model(server, Sleeps()))
    assert [(c.name, dict(c.args)) for c in response.tool_calls] == [
        ("set_reservation_basics", {"party_size": 4, "preferred_date": "2026-07-17"}),
        ("set_guest_info", {"guest_name": "Chen"}),
    ]
    assert response.tool_calls[0] == ToolCall(
        "gemini_call_3", "set_reservation_basics", {"party_size": 4, "preferred_date": "2026-07-17"}
    )
    assert response.usage == Usage(388, 51)


def test_a_malformed_function_call_is_asked_again(server: LoopbackServer) -> None:
    sleeps = Sleeps()
    server.queue_json(fixture("response_malformed_call"), fixture("response_function_calls"))
    response = _generate(_model(server, sleeps))
    assert len(response.tool_calls) == 2 and len(server.requests) == 2 and sleeps.delays == [0.5]


def test_429_with_retry_after_then_success(server: LoopbackServer) -> None:
    sleeps = Sleeps()
    server.queue(
        Reply(fixture("error_rate_limited"), status=429, headers={"Retry-After": "2"}),
        Reply(fixture("response_text")),
    )
    assert _generate(_model(server, sleeps)).text is not None
    assert sleeps.delays == [2.0] and len(server.requests) == 2


def test_429_until_the_retries_run_out(server: LoopbackServer) -> None:
    sleeps = Sleeps()
    server.queue(*[Reply(fixture("error_rate_limited"), status=429)] * 2)
    with pytest.raises(ModelRateLimitError, match="exceeded your current quota"):
        _generate(_model(server, sleeps, retries=1))
    assert sleeps.delays == [0.5]


def test_500_then_success(server: LoopbackServer) -> None:
    sleeps = Sleeps()
    server.queue(
        Reply({"error": {"code": 500, "message": "Internal error", "status": "INTERNAL"}}, status=500),
        Reply(fixture("response_text")),
    )
    assert _generate(_model(server, sleeps)).text is not None and sleeps.delays == [0.5]


def test_an_invalid_key_is_an_auth_error(server: LoopbackServer) -> None:
    server.queue(Reply(fixture("error_invalid_key"), status=400))
    with pytest.raises(ModelAuthError, match=r"API key not valid.*GEMINI_API_KEY or GOOGLE_API_KEY"):
        _generate(_model(server, Sleeps()))
    assert len(server.requests) == 1


def test_an_unknown_model_is_not_found(server: LoopbackServer) -> None:
    server.queue(Reply(fixture("error_not_found"), status=404))
    with pytest.raises(ModelNotFoundError, match="is not found for API version"):
        _generate(_model(server, Sleeps()))


def test_another_client_error_is_not_retried(server: LoopbackServer) -> None:
    error = {
        "error": {
            "code": 400,
            "message": "Request contains an invalid argument.",
            "status": "INVALID_ARGUMENT",
        }
    }
    server.queue(Reply(error, status=400))
    with pytest.raises(ModelAPIError, match="HTTP 400: Request contains an invalid argument"):
        _generate(_model(server, Sleeps()))
    assert len(server.requests) == 1


def test_a_server_slower_than_the_timeout(server: LoopbackServer) -> None:
    sleeps = Sleeps()
    server.queue(Reply(hold=True), Reply(hold=True))
    with pytest.raises(ModelTimeoutError, match=r"no answer within 0.2s \(2 attempts\)"):
        _generate(_model(server, sleeps, retries=1, timeout=0.2))
    assert len(server.requests) == 2
