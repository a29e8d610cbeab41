"""Hosted agents as OpenAI chat "models", driven end to end by the official ``openai`` client.

A Bella Notte booking is played the way chat front-ends do it (the whole history resent each time, JSON and
streamed replies in turn), then bad input: history that contradicts the session, a conversation resent
without its session, unknown models and sessions, invalid bodies, the API key — each answered in OpenAI's
error shape. The server is uvicorn on a loopback port (tests/server/live.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from slotgraph.server import ServerSettings, open_session_store

from .live import live_server
from .support import app_for

openai = pytest.importorskip("openai", reason="the chat-completions tests need the openai SDK")

BOOKING = ("A table for 4 next Friday", "yes", "7:30 pm", "yes", "under Chen", "no special requests", "yes")
KEY = "chat-test-key"


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with live_server(app_for(store=open_session_store("memory://"))) as url:
        yield url


@pytest.fixture
def client(base: str) -> Iterator[Any]:
    with openai.OpenAI(base_url=f"{base}/v1", api_key="unused", max_retries=0) as c:
        yield c


def _streamed(client: Any, **kwargs: Any) -> tuple[str, dict[str, Any], list[Any]]:
    """The text, the ``slotgraph`` extension of the finishing chunk and every chunk of a streamed reply."""
    chunks = list(client.chat.completions.create(stream=True, **kwargs))
    text = "".join((c.choices[0].delta.content or "") for c in chunks if c.choices)
    finish = next(c for c in chunks if c.choices and c.choices[0].finish_reason == "stop")
    return text, finish.model_extra["slotgraph"], chunks


def _say(client: Any, session_id: str, *messages: dict[str, str]) -> Any:
    """A completion continuing ``session_id`` with ``messages``."""
    return client.chat.completions.create(
        model="bella_notte", messages=list(messages), metadata={"session_id": session_id}
    )


def _user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def _start(client: Any, text: str = "A table for 4 next Friday") -> tuple[str, str]:
    reply = client.chat.completions.create(model="bella_notte", messages=[{"role": "user", "content": text}])
    return reply.model_extra["slotgraph"]["session_id"], reply.choices[0].message.content


def test_the_agents_are_models(client: Any) -> None:
    assert [m.id for m in client.models.list()] == ["bella_notte"]
    assert client.models.retrieve("bella_notte").owned_by == "slotgraph"
    with pytest.raises(openai.NotFoundError) as caught:
        client.models.retrieve("gpt-nothing")
    assert caught.value.body["code"] == "model_not_found"


def test_a_booking_resending_the_history_like_a_chat_front_end(client: Any, base: str) -> None:
    messages: list[dict[str, str]] = [{"role": "system", "content": "You are a helpful assistant."}]
    session_id: str | None = None
    replies: list[str] = []
    for turn, text in enumerate(BOOKING):
        messages.append({"role": "user", "content": text})
        metadata = {"session_id": session_id} if session_id else None
        if turn % 2 == 0:
            raw = client.chat.completions.with_raw_response.create(
                model="bella_notte", messages=messages, metadata=metadata
            )
            completion = raw.parse()
            reply, extension = completion.choices[0].message.content, completion.model_extra["slotgraph"]
            assert raw.headers["X-Slotgraph-Session"] == extension["session_id"]
            assert completion.choices[0].finish_reason == "stop"
        else:
            reply, extension, _ = _streamed(client, model="bella_notte", messages=messages, metadata=metadata)
        session_id = extension["session_id"]
        replies.append(reply)
        messages.append({"role": "assistant", "content": reply})
    assert replies[0] == "Just to confirm — 4 guests, on July 17th. Is that correct?"
    assert replies[-1] == "Your reservation is confirmed! Your confirmation number is BN-4ED3A8."
    assert extension["outcome"] == "completed" and extension["status"] == "complete"
    assert extension["task_results"]["BookReservation"]["confirmation_number"] == "BN-4ED3A8"
    assert extension["slots"]["guest_name"] == "Chen"
    stored = httpx.get(f"{base}/v1/sessions/{session_id}").json()
    assert stored["turns"] == len(BOOKING) and stored["status"] == "complete"


def test_only_the_new_message_continues_the_session_too(client: Any) -> None:
    session_id, _ = _start(client)
    reply = _say(client, session_id, _user("yes"))
    assert reply.choices[0].message.content.startswith("We have 17:30")
    assert reply.usage is not None and reply.usage.total_tokens >= 0


def test_a_stream_sends_the_text_as_it_comes_and_the_usage_when_asked(client: Any) -> None:
    text, extension, chunks = _streamed(
        client,
        model="bella_notte",
        messages=[{"role": "user", "content": "A table for 4 next Friday"}],
        stream_options={"include_usage": True},
    )
    assert text == "Just to confirm — 4 guests, on July 17th. Is that correct?"
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert extension["outcome"] == "waiting"


def test_history_that_contradicts_the_session_is_refused_and_nothing_is_played(
    client: Any, base: str
) -> None:
    session_id, first = _start(client)
    edited = [
        {"role": "user", "content": "A table for 6 next Saturday"},  # not what the session heard
        {"role": "assistant", "content": first},
        {"role": "user", "content": "yes"},
    ]
    with pytest.raises(openai.ConflictError) as caught:
        _say(client, session_id, *edited)
    error = caught.value.body
    assert error["code"] == "history_mismatch" and error["param"] == "messages"
    assert error["type"] == "invalid_request_error"
    assert "messages[0] (user) differs from message 1" in error["message"]
    dropped = [{"role": "user", "content": "yes"}, {"role": "assistant", "content": "ok"}]
    with pytest.raises(openai.ConflictError, match="contradicts the session"):
        _say(client, session_id, *dropped, _user("no"))
    stored = httpx.get(f"{base}/v1/sessions/{session_id}").json()
    assert stored["turns"] == 1  # neither request played a turn: the session was not forked or rewound


def test_a_resent_conversation_without_its_session_is_refused(client: Any) -> None:
    history = [
        {"role": "user", "content": "A table for 4 next Friday"},
        {"role": "assistant", "content": "Just to confirm — 4 guests, on July 17th. Is that correct?"},
        {"role": "user", "content": "yes"},
    ]
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="bella_notte", messages=history)
    assert caught.value.body["code"] == "session_required"
    assert caught.value.body["param"] == "metadata.session_id"


def test_bad_requests_get_openai_errors(client: Any, base: str) -> None:
    with pytest.raises(openai.NotFoundError) as unknown_model:
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    assert unknown_model.value.body["code"] == "model_not_found"
    with pytest.raises(openai.NotFoundError) as unknown_session:
        client.chat.completions.create(
            model="bella_notte", messages=[{"role": "user", "content": "hi"}], metadata={"session_id": "nope"}
        )
    assert unknown_session.value.body["code"] == "session_not_found"
    assert "without metadata.session_id" in unknown_session.value.body["message"]
    with pytest.raises(openai.BadRequestError) as empty:
        client.chat.completions.create(model="bella_notte", messages=[])
    assert empty.value.body["code"] == "invalid_request" and empty.value.body["param"] == "messages"
    with pytest.raises(openai.BadRequestError) as tool_role:
        client.chat.completions.create(
            model="bella_notte",
            messages=[
                {"role": "user", "content": "hi"},
                {"role": "tool", "content": "x", "tool_call_id": "1"},
            ],
        )
    assert tool_role.value.body["code"] == "unsupported_role"
    with pytest.raises(openai.BadRequestError) as image:
        client.chat.completions.create(
            model="bella_notte",
            messages=[
                {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "http://x/y.png"}}]}
            ],
        )
    assert image.value.body["code"] == "unsupported_content"
    raw = httpx.post(
        f"{base}/v1/chat/completions", content=b"{nope", headers={"content-type": "application/json"}
    )
    assert raw.status_code == 400 and raw.json()["error"]["code"] == "invalid_json"


def test_a_finished_session_takes_no_more_messages(client: Any, base: str) -> None:
    session_id, _ = _start(client, "A table for 40 people")
    for _ in range(2):
        _say(client, session_id, _user("40"))
    assert httpx.get(f"{base}/v1/sessions/{session_id}").json()["status"] == "escalated"
    with pytest.raises(openai.ConflictError) as caught:
        _say(client, session_id, _user("4"))
    assert caught.value.body["code"] == "session_finished"
    assert "escalated" in caught.value.body["message"]


def test_the_api_key_guards_chat_completions() -> None:
    app = app_for(store=open_session_store("memory://"), settings=ServerSettings(api_key=KEY))
    with live_server(app) as url:
        wrong = openai.OpenAI(base_url=f"{url}/v1", api_key="wrong", max_retries=0)
        with wrong, pytest.raises(openai.AuthenticationError):
            wrong.chat.completions.create(model="bella_notte", messages=[_user("hi")])
        with openai.OpenAI(base_url=f"{url}/v1", api_key=KEY, max_retries=0) as right:
            reply = right.chat.completions.create(
                model="bella_notte", messages=[{"role": "user", "content": "A table for 2"}]
            )
    assert reply.model_extra["slotgraph"]["outcome"] == "waiting"
