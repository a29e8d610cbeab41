"""``OpenAIChatModel`` against a real HTTP server on loopback: protocol, retries, timeouts, errors."""

from __future__ import annotations

import asyncio
import logging

import pytest

from slotgraph.models.errors import (
    ModelAPIError,
    ModelAuthError,
    ModelConnectionError,
    ModelNotFoundError,
    ModelRateLimitError,
    ModelResponseError,
    ModelTimeoutError,
)
from slotgraph.models.openai import OpenAIChatModel
from slotgraph.models.protocol import ModelRequest, ModelResponse, ToolCall, ToolSchema, Usage, UserMessage
from slotgraph.models.retry import RetryPolicy

from .backoff import Sleeps, retrying
from .loopback import LoopbackServer, Reply, unused_port
from .openai_bodies import completion, tool_call

TOOL = ToolSchema(
    "set_party", "Record the party size.", {"type": "object", "properties": {"n": {"type": "integer"}}}
)
REQUEST = ModelRequest("Be brief.", (UserMessage("four of us"),), (TOOL,))


def _model(
    server: LoopbackServer,
    sleeps: Sleeps,
    *,
    retries: int = 3,
    timeout: float = 10.0,
    key: str | None = "sk-test",
) -> OpenAIChatModel:
    return OpenAIChatModel(
        "test-model",
        base_url=f"{server.url}/v1",
        api_key=key,
        timeout=timeout,
        **retrying(sleeps, retries),
    )


def _generate(model: OpenAIChatModel, request: ModelRequest = REQUEST) -> ModelResponse:
    return asyncio.run(model.generate(request))


def test_text_reply_and_what_the_server_received(server: LoopbackServer) -> None:
    server.queue_json(completion("Four it is.", prompt=21, completion=4))
    response = _generate(_model(server, Sleeps()))
    assert response == ModelResponse(text="Four it is.", usage=Usage(21, 4))
    (received,) = server.requests
    assert (received.method, received.path) == ("POST", "/v1/chat/completions")
    assert received.headers["authorization"] == "Bearer sk-test"
    assert received.body["model"] == "test-model"
    assert received.body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "four of us"},
    ]
    assert [t["function"]["name"] for t in received.body["tools"]] == ["set_party"]


def test_no_key_sends_no_authorization_header(server: LoopbackServer) -> None:
    server.queue_json(completion("ok"))
    _generate(_model(server, Sleeps(), key=None))
    assert "authorization" not in server.requests[0].headers


def test_one_tool_call(server: LoopbackServer) -> None:
    server.queue_json(completion(None, [tool_call("set_party", {"n": 4}, "call_abc")]))
    response = _generate(_model(server, Sleeps()))
    assert response.text is None
    assert response.tool_calls == (ToolCall("call_abc", "set_party", {"n": 4}),)


def test_several_tool_calls_in_one_response(server: LoopbackServer) -> None:
    calls = [tool_call("set_party", {"n": 4}, "c1"), tool_call("set_date", {"date": "2026-07-17"}, "c2")]
    server.queue_json(completion("Noted.", calls))
    response = _generate(_model(server, Sleeps()))
    assert response.text == "Noted."
    assert [(c.id, c.name, dict(c.args)) for c in response.tool_calls] == [
        ("c1", "set_party", {"n": 4}),
        ("c2", "set_date", {"date": "2026-07-17"}),
    ]


def test_429_with_retry_after_then_success(server: LoopbackServer) -> None:
    sleeps = Sleeps()
    server.queue(
        Reply({"error": {"message": "slow down"}}, status=429, headers={"Retry-After": "3"}),
        Reply(completion("ok")),
    )
    assert _generate(_model(server, sleeps)).text == "ok"
    assert sleeps.delays == [3.0]
    assert len(server.requests) == 2
    assert server.requests[0].body == server.requests[1].body


def test_500_then_success_backs_off_with_jitter(server: LoopbackServer) -> None:
    sleeps = Sleeps()
    server.queue(
        Reply({"error": {"message": "boom"}}, status=500),
        Reply({"error": {"message": "boom"}}, status=503),
        Reply(completion("ok")),
    )
    assert _generate(_model(server, sleeps)).text == "ok"
    # base 0.5 * 2**n, plus jitter 0.5 * random() (= 0.5) of that
    assert sleeps.delays == [0.625, 1.25]


def test_429_on_every_attempt_is_a_rate_limit_error(server: LoopbackServer) -> None:
    sleeps = Sleeps()
    server.queue(*[Reply({"error": {"message": "quota"}}, status=429)] * 3)
    with pytest.raises(ModelRateLimitError, match=r"HTTP 429: quota\) on all 3 attempts") as info:
        _generate(_model(server, sleeps, retries=2))
    assert info.value.status == 429
    assert len(sleeps.delays) == 2 and len(server.requests) == 3


def test_a_server_slower_than_the_timeout_is_a_timeout_after_the_retries(server: LoopbackServer) -> None:
    sleeps = Sleeps()
    server.queue(Reply(hold=True), Reply(hold=True))
    with pytest.raises(ModelTimeoutError, match=r"no answer within 0.2s \(2 attempts\)"):
        _generate(_model(server, sleeps, retries=1, timeout=0.2))
    assert len(server.requests) == 2 and sleeps.delays == [0.625]


def test_a_server_trickling_its_answer_is_cut_at_the_total_deadline(server: LoopbackServer) -> None:
    """Each byte comes well within the timeout, the whole answer would take ~10 s: the call ends at 0.5 s."""
    sleeps = Sleeps()
    body = completion("x" * 150)
    server.queue(Reply(body, trickle=True))
    with pytest.raises(ModelTimeoutError, match=r"no answer within 0.5s \(1 attempts\)"):
        _generate(_model(server, sleeps, retries=0, timeout=0.5))
    assert len(server.requests) == 1


def test_a_refused_key_is_an_auth_error_naming_the_variable(server: LoopbackServer) -> None:
    server.queue(Reply({"error": {"message": "Incorrect API key provided"}}, status=401))
    with pytest.raises(ModelAuthError) as info:
        _generate(_model(server, Sleeps()))
    message = str(info.value)
    assert "HTTP 401" in message and "Incorrect API key provided" in message and "OPENAI_API_KEY" in message
    assert len(server.requests) == 1  # never retried


def test_a_provider_body_repeating_the_key_is_redacted_in_the_error_and_the_log(
    server: LoopbackServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A provider's error body may quote the key it refused (OpenAI's does, in part); nothing of it may
    reach the error, the log or the person: the error says what failed, with the key masked."""
    key = "sk-proj-Abcdefghijklmnop0123456789"
    server.queue(
        Reply({"error": {"message": f"Incorrect API key provided: {key}. api_key={key}"}}, status=401)
    )
    with pytest.raises(ModelAuthError) as info:
        _generate(_model(server, Sleeps(), key=key))
    message = str(info.value)
    assert key not in message and "Incorrect API key provided: ***" in message
    logging.getLogger("slotgraph.models").error("the model failed: %s", info.value)
    assert key not in caplog.text


def test_403_without_a_key_says_none_was_sent(server: LoopbackServer) -> None:
    server.queue(Reply({"error": "forbidden"}, status=403))
    with pytest.raises(ModelAuthError, match="no API key was sent"):
        _generate(_model(server, Sleeps(), key=None))


def test_an_unknown_model_is_a_not_found_error(server: LoopbackServer) -> None:
    server.queue(Reply({"error": {"message": "The model `nope` does not exist"}}, status=404))
    with pytest.raises(ModelNotFoundError, match=r"does not exist.*check the model name"):
        _generate(_model(server, Sleeps()))
    assert len(server.requests) == 1


def test_another_client_error_is_not_retried(server: LoopbackServer) -> None:
    server.queue(Reply(raw="context length exceeded", status=400))
    with pytest.raises(ModelAPIError, match="HTTP 400: context length exceeded") as info:
        _generate(_model(server, Sleeps()))
    assert info.value.status == 400 and len(server.requests) == 1


def test_a_body_that_is_not_json_is_a_response_error(server: LoopbackServer) -> None:
    server.queue(Reply(raw="<html>hello</html>"))
    with pytest.raises(ModelResponseError, match=r"not JSON.*ending in /v1"):
        _generate(_model(server, Sleeps()))


def test_a_server_that_is_not_there_is_a_connection_error() -> None:
    port = unused_port()
    sleeps = Sleeps()
    model = OpenAIChatModel(
        "m", base_url=f"http://127.0.0.1:{port}/v1", retry=RetryPolicy(max_retries=1), sleep=sleeps
    )
    with pytest.raises(ModelConnectionError, match=r"cannot connect.*2 attempts.*server is running"):
        _generate(model)
    assert len(sleeps.delays) == 1
