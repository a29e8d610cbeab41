"""``AnthropicModel`` against a real HTTP server on loopback replaying Messages-API payloads.

The payloads in ``fixtures/anthropic`` have the documented shape of the API's answers (success bodies and the
``{"type": "error", "error": {...}}`` bodies with their status codes); the real ``httpx`` client talks to the
server, so headers, retries, timeouts and error mapping are exercised end to end.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from slotgraph import Agent
from slotgraph.models import resolve
from slotgraph.models.anthropic import ANTHROPIC_VERSION, AnthropicModel
from slotgraph.models.errors import (
    MissingCredentialsError,
    ModelAPIError,
    ModelAuthError,
    ModelConnectionError,
    ModelNotFoundError,
    ModelRateLimitError,
    ModelResponseError,
    ModelTimeoutError,
)
from slotgraph.models.protocol import ModelRequest, ModelResponse, ToolSchema, Usage, UserMessage
from slotgraph.models.retry import RetryPolicy

from .backoff import Sleeps, retrying
from .loopback import LoopbackServer, Reply, unused_port
from .payloads import payloads

TOOL = ToolSchema(
    "set_party_size",
    "Record the party size.",
    {"type": "object", "properties": {"party_size": {"type": "integer"}}},
)
REQUEST = ModelRequest("Be brief.", (UserMessage("four of us"),), (TOOL,))
fixture = payloads("anthropic")


def _model(
    server: LoopbackServer, sleeps: Sleeps, *, retries: int = 3, timeout: float = 10.0, key: str | None = "k"
) -> AnthropicModel:
    return AnthropicModel(
        "claude-test",
        base_url=server.url,
        api_key=key,
        timeout=timeout,
        **retrying(sleeps, retries),
    )


def _generate(model: AnthropicModel, request: ModelRequest = REQUEST) -> ModelResponse:
    return asyncio.run(model.generate(request))


def test_text_reply_and_what_the_server_received(server: LoopbackServer) -> None:
    server.queue_json(fixture("response_text"))
    response = _generate(_model(server, Sleeps()))
    assert response == ModelResponse(text="Four it is. What date would you like?", usage=Usage(412, 12))
    (received,) = server.requests
    assert (received.method, received.path) == ("POST", "/v1/messages")
    assert received.headers["x-api-key"] == "k"
    assert received.headers["anthropic-version"] == ANTHROPIC_VERSION
    assert "authorization" not in received.headers
    assert received.body["model"] == "claude-test"
    assert received.body["system"] == "Be brief."
    assert received.body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "four of us"}]}
    ]
    assert [t["name"] for t in received.body["tools"]] == ["set_party_size"]


def test_tool_calls(server: LoopbackServer) -> None:
    server.queue_json(fixture("response_tool_use"))
    response = _generate(_model(server, Sleeps()))
    assert response.text == "Let me note that."
    assert [(c.name, dict(c.args)) for c in response.tool_calls] == [
        ("set_party_size", {"party_size": 4}),
        ("set_date", {"date": "2026-07-17"}),
    ]


def test_429_with_retry_after_then_success(server: LoopbackServer) -> None:
    sleeps = Sleeps()
    server.queue(
        Reply(fixture("error_rate_limit"), status=429, headers={"Retry-After": "2"}),
        Reply(fixture("response_text")),
    )
    assert _generate(_model(server, sleeps)).text is not None
    assert sleeps.delays == [2.0]
    assert server.requests[0].body == server.requests[1].body


def test_overloaded_529_is_retried_with_backoff(server: LoopbackServer) -> None:
    sleeps = Sleeps()
    server.queue(
        Reply(fixture("error_overloaded"), status=529),
        Reply(fixture("error_overloaded"), status=529),
        Reply(fixture("response_text")),
    )
    assert _generate(_model(server, sleeps)).usage == Usage(412, 12)
    assert sleeps.delays == [0.625, 1.25]


def test_529_on_every_attempt_is_an_api_error(server: LoopbackServer) -> None:
    server.queue(*[Reply(fixture("error_overloaded"), status=529)] * 2)
    with pytest.raises(ModelAPIError, match="HTTP 529: overloaded_error: Overloaded") as info:
        _generate(_model(server, Sleeps(), retries=1))
    assert info.value.status == 529


def test_429_on_every_attempt_is_a_rate_limit_error(server: LoopbackServer) -> None:
    server.queue(*[Reply(fixture("error_rate_limit"), status=429)] * 3)
    with pytest.raises(ModelRateLimitError, match=r"rate_limit_error: .* on all 3 attempts"):
        _generate(_model(server, Sleeps(), retries=2))
    assert len(server.requests) == 3


def test_a_slow_server_is_a_timeout_after_the_retries(server: LoopbackServer) -> None:
    sleeps = Sleeps()
    server.queue(Reply(hold=True), Reply(hold=True))
    with pytest.raises(ModelTimeoutError, match=r"no answer within 0.2s \(2 attempts\)"):
        _generate(_model(server, sleeps, retries=1, timeout=0.2))
    assert len(server.requests) == 2 and sleeps.delays == [0.625]


def test_a_refused_key_is_an_auth_error_naming_the_variable(server: LoopbackServer) -> None:
    server.queue(Reply(fixture("error_authentication"), status=401))
    with pytest.raises(ModelAuthError) as info:
        _generate(_model(server, Sleeps()))
    message = str(info.value)
    assert "authentication_error: invalid x-api-key" in message and "ANTHROPIC_API_KEY" in message
    assert len(server.requests) == 1


def test_an_unknown_model_is_a_not_found_error(server: LoopbackServer) -> None:
    server.queue(Reply(fixture("error_not_found"), status=404))
    with pytest.raises(ModelNotFoundError, match=r"model: claude-nope.*check the model name"):
        _generate(_model(server, Sleeps()))
    assert len(server.requests) == 1


def test_an_invalid_request_is_not_retried(server: LoopbackServer) -> None:
    server.queue(Reply(fixture("error_invalid_request"), status=400))
    with pytest.raises(ModelAPIError, match="HTTP 400: invalid_request_error: prompt is too long") as info:
        _generate(_model(server, Sleeps()))
    assert info.value.status == 400 and len(server.requests) == 1


def test_a_body_that_is_not_json_is_a_response_error(server: LoopbackServer) -> None:
    server.queue(Reply(raw="<html>hello</html>"))
    with pytest.raises(ModelResponseError, match=r"not JSON.*without /v1"):
        _generate(_model(server, Sleeps()))


def test_a_server_that_is_not_there_is_a_connection_error() -> None:
    port = unused_port()
    sleeps = Sleeps()
    model = AnthropicModel(
        "m", base_url=f"http://127.0.0.1:{port}", retry=RetryPolicy(max_retries=1), sleep=sleeps
    )
    with pytest.raises(ModelConnectionError, match=r"cannot connect.*2 attempts"):
        _generate(model)
    assert len(sleeps.delays) == 1


def test_the_spec_string_reads_key_and_base_url() -> None:
    model = resolve(
        "anthropic:claude-sonnet-4-5", env={"ANTHROPIC_API_KEY": "k1", "ANTHROPIC_BASE_URL": "http://h:1/"}
    )
    assert isinstance(model, AnthropicModel)
    assert (model.model, model.base_url, model.url) == (
        "claude-sonnet-4-5",
        "http://h:1",
        "http://h:1/v1/messages",
    )
    default = resolve("anthropic:claude-sonnet-4-5", env={"ANTHROPIC_API_KEY": "k1"})
    assert isinstance(default, AnthropicModel) and default.base_url == "https://api.anthropic.com"
    with pytest.raises(MissingCredentialsError, match="set ANTHROPIC_API_KEY"):
        resolve("anthropic:claude-sonnet-4-5", env={})


def test_a_bella_notte_turn_through_the_runtime(server: LoopbackServer) -> None:
    """The runtime runs the tool the model called and sends its result back as a tool_result turn."""
    root = Path(__file__).parents[2]
    server.queue_json(
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "set_reservation_basics",
                    "input": {"party_size": 4},
                }
            ],
            "usage": {"input_tokens": 10, "output_tokens": 5},
        },
        {
            "content": [{"type": "text", "text": "Four guests. Which date?"}],
            "usage": {"input_tokens": 20, "output_tokens": 6},
        },
    )
    agent = Agent.load(root / "examples" / "bella_notte", model=_model(server, Sleeps()))
    result = agent.session(session_id="s1").send("a table for four")
    assert result.text == "Four guests. Which date?"
    follow_up = server.requests[-1].body["messages"]
    assert follow_up[-2]["content"][-1] == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "set_reservation_basics",
        "input": {"party_size": 4},
    }
    (tool_result,) = follow_up[-1]["content"]
    assert tool_result["type"] == "tool_result" and tool_result["tool_use_id"] == "toolu_1"
    assert "is_error" not in tool_result
