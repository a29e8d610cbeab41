"""Agents as OpenAI-compatible chat "models": ``POST /v1/chat/completions`` (JSON or ``stream: true`` SSE
chunks) and ``GET /v1/models``, so chat front-ends and the ``openai`` SDK talk to a hosted agent.

Every hosted agent is a model named after it. Chat completions is stateless, a Slotgraph session is not, so
a request maps to a session this way:

* **a new conversation** — no session named, and ``messages`` holds one user message (system and developer
  messages are allowed and ignored: the agent has its own instruction). A session is started; its id comes
  back in the ``X-Slotgraph-Session`` header and in the completion's ``slotgraph.session_id``.
* **the next message** — the session named by ``metadata.session_id`` (or the ``X-Slotgraph-Session``
  header), and ``messages`` ending with the user's new message. What comes before it is either nothing or
  the whole conversation so far, exactly as stored (the history a chat front-end resends).

History that contradicts the stored session — an edited or regenerated message, a dropped turn, a
conversation resent without its session — is refused with ``409 history_mismatch`` (or ``400
session_required``) in OpenAI's error shape; the session is never rewound or forked, since its tools may
already have acted (a table booked). Sampling parameters (``temperature``, ``max_tokens``…) and client
``tools`` are accepted and ignored: the engine decides every step. Errors are OpenAI's
``{"error": {"message", "type", "param", "code"}}`` with the same status codes as the rest of the API.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from slotgraph.server.errors import SessionEndedError, SessionNotFoundError
from slotgraph.server.problems import problem_for
from slotgraph.server.protocols.conversations import Conversations, Exchange, Snapshot

__all__ = ["SESSION_HEADER", "ChatCompletionRequest", "chat_completions_router"]

SESSION_HEADER = "X-Slotgraph-Session"
_IGNORED_ROLES = frozenset({"system", "developer"})


class ContentPart(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str
    text: str | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: str
    content: str | list[ContentPart] | None = None


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")
    include_usage: bool = False


class ChatCompletionRequest(BaseModel):
    """The part of OpenAI's request a Slotgraph agent reads; other fields are accepted and ignored."""

    model_config = ConfigDict(extra="allow")
    model: str = Field(description="The hosted agent's name (see GET /v1/models).")
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    metadata: dict[str, str] | None = Field(
        default=None, description="`session_id`: continue that session (else a new one is started)."
    )
    n: int | None = Field(default=None, ge=1, le=1, description="Only one choice: an agent has one reply.")


class _ChatError(Exception):
    """A request refused, as OpenAI's error body."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        code: str,
        param: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.code, self.param = status, message, code, param
        self.headers = dict(headers or {})

    def body(self) -> dict[str, Any]:
        kind = (
            "authentication_error"
            if self.status == 401
            else "server_error"
            if self.status >= 500
            else "invalid_request_error"
        )
        return {"error": {"message": self.message, "type": kind, "param": self.param, "code": self.code}}

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers=self.headers)


def _from_problem(err: Exception) -> _ChatError:
    body = problem_for(err)
    if isinstance(err, SessionNotFoundError | SessionEndedError):
        body["fix"] = "send the new message without metadata.session_id to start a new conversation"
    message = str(body["detail"]) + (f"; fix: {body['fix']}" if body.get("fix") else "")
    headers = {"Retry-After": str(body["retry_after"])} if "retry_after" in body else {}
    return _ChatError(int(body["status"]), message, code=str(body["code"]), headers=headers)


def _text(message: ChatMessage, index: int) -> str:
    if message.content is None:
        return ""
    if isinstance(message.content, str):
        return message.content
    texts: list[str] = []
    for part in message.content:
        if part.type != "text" or part.text is None:
            raise _ChatError(
                400,
                f"messages[{index}] has a {part.type!r} content part: a Slotgraph agent reads text only",
                code="unsupported_content",
                param=f"messages[{index}].content",
            )
        texts.append(part.text)
    return "".join(texts)


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


class _Turn:
    """One request, checked against its session: the new user text and the session it goes to."""

    def __init__(
        self, conversations: Conversations, request: ChatCompletionRequest, header: str | None
    ) -> None:
        self.conversations = conversations
        self.request = request
        named = (request.metadata or {}).get("session_id")
        if named and header and named != header:
            raise _ChatError(
                400,
                f"metadata.session_id {named!r} and the {SESSION_HEADER} header {header!r} name different "
                "sessions",
                code="session_ambiguous",
                param="metadata.session_id",
            )
        self.session_id: str | None = named or header or None
        talk: list[tuple[int, str, str]] = []
        for index, message in enumerate(request.messages):
            if message.role in _IGNORED_ROLES:
                continue
            if message.role not in ("user", "assistant"):
                raise _ChatError(
                    400,
                    f"messages[{index}] has role {message.role!r}: a Slotgraph agent runs its own tools, so "
                    "only system, developer, user and assistant messages are accepted",
                    code="unsupported_role",
                    param=f"messages[{index}].role",
                )
            talk.append((index, message.role, _text(message, index)))
        if not talk or talk[-1][1] != "user":
            raise _ChatError(
                400,
                "the last user or assistant message must be the user's new message",
                code="no_user_message",
                param="messages",
            )
        self.text = talk[-1][2]
        if not self.text.strip():
            raise _ChatError(400, "the user's message is empty", code="empty_message", param="messages")
        self.earlier = talk[:-1]

    async def open(self) -> str:
        """The session this request continues (checked against its history), or a new one."""
        agent = self.request.model
        if self.session_id is None:
            if self.earlier:
                index = self.earlier[0][0]
                raise _ChatError(
                    400,
                    f"messages[{index}] is part of an earlier conversation, but the request names no "
                    "session: a Slotgraph conversation cannot be rebuilt from resent history (its tools "
                    f"may already have acted); send metadata.session_id (or the {SESSION_HEADER} header) "
                    "as the first reply returned it, or send only the new user message to start a new "
                    "conversation",
                    code="session_required",
                    param="metadata.session_id",
                )
            return await self.conversations.start(agent)
        snapshot = await self.conversations.read(self.session_id, agent=agent)
        if snapshot.finished:
            raise _ChatError(
                409,
                f"session {self.session_id!r} is {snapshot.outcome}: it takes no more messages; start a new "
                "conversation (send the new message without metadata.session_id)",
                code="session_finished",
                param="metadata.session_id",
            )
        if self.earlier:
            self._check_history(snapshot)
        return self.session_id

    def _check_history(self, snapshot: Snapshot) -> None:
        stored = [("assistant" if u.role == "agent" else "user", u.text) for u in snapshot.utterances]
        for position, (index, role, text) in enumerate(self.earlier):
            if position >= len(stored):
                break
            if stored[position][0] != role or not _same(stored[position][1], text):
                raise self._mismatch(
                    f"messages[{index}] ({role}) differs from message {position + 1} of session "
                    f"{snapshot.session_id!r} as stored ({stored[position][0]}: {stored[position][1]!r})"
                )
        if len(self.earlier) != len(stored):
            raise self._mismatch(
                f"the request resends {len(self.earlier)} earlier messages but session "
                f"{snapshot.session_id!r} holds {len(stored)}"
            )

    def _mismatch(self, what: str) -> _ChatError:
        return _ChatError(
            409,
            f"{what}: the history contradicts the session, which is never rewound or forked (its tools may "
            "already have acted); resend the stored history unchanged, send only the new user message, or "
            "start a new conversation without metadata.session_id",
            code="history_mismatch",
            param="messages",
        )


def _extension(snapshot: Snapshot) -> dict[str, Any]:
    return {
        "session_id": snapshot.session_id,
        "outcome": snapshot.outcome,
        "status": snapshot.status,
        "asking": snapshot.asking,
        "slots": dict(snapshot.slots),
        "task_results": dict(snapshot.task_results),
    }


def _usage(exchange: Exchange) -> dict[str, int]:
    prompt = int(exchange.usage.get("prompt_tokens", 0))
    completion = int(exchange.usage.get("completion_tokens", 0))
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _completion(model: str, exchange: Exchange) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": exchange.text, "refusal": None},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": _usage(exchange),
        "slotgraph": _extension(exchange.snapshot),
    }


def _sse(data: Mapping[str, Any] | str) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return f"data: {payload}\n\n".encode()


def _stream(conversations: Conversations, turn: _Turn, session_id: str) -> AsyncIterator[bytes]:
    """The turn as chunks: the role, each text the agent says as it says it, the finish (and usage)."""
    model = turn.request.model
    base = {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        return _sse({**base, "choices": [choice], **extra})

    queue: asyncio.Queue[bytes | None] = asyncio.Queue()
    said: list[str] = []

    async def forward(event: Mapping[str, Any]) -> None:
        text = event.get("text") if event.get("kind") == "text" else None
        if isinstance(text, str) and text:
            await queue.put(chunk({"content": (" " if said else "") + text}))
            said.append(text)

    async def play() -> None:
        try:
            exchange = await conversations.say(session_id, turn.text, on_event=forward)
            await queue.put(chunk({}, "stop", slotgraph=_extension(exchange.snapshot)))
            options = turn.request.stream_options
            if options is not None and options.include_usage:
                await queue.put(_sse({**base, "choices": [], "usage": _usage(exchange)}))
        except Exception as err:  # the stream has started: the error is its last event
            await queue.put(_sse(_from_problem(err).body()))
        finally:
            await queue.put(None)

    async def events() -> AsyncIterator[bytes]:
        task = asyncio.create_task(play())
        try:
            yield chunk({"role": "assistant", "content": ""})
            while (item := await queue.get()) is not None:
                yield item
            yield _sse("[DONE]")
        finally:
            await asyncio.shield(task)  # a client that left never cancels the turn (it is saved)

    return events()


def _models_list(conversations: Conversations, created: int) -> list[dict[str, Any]]:
    return [
        {"id": hosted.name, "object": "model", "created": created, "owned_by": "slotgraph"}
        for hosted in conversations.agents
    ]


def _where(errors: Sequence[Any]) -> str | None:
    if not errors:
        return None
    loc = [str(p) for p in errors[0].get("loc", ())]
    out = ""
    for part in loc:
        out += f"[{part}]" if part.isdigit() else (f".{part}" if out else part)
    return out or None


def chat_completions_router(conversations: Conversations) -> APIRouter:
    """The chat-completions and models endpoints for ``conversations``' agents."""
    router = APIRouter(tags=["chat completions"])
    created = int(time.time())
    schema = ChatCompletionRequest.model_json_schema()

    @router.get("/v1/models")
    async def list_models() -> JSONResponse:
        """Every hosted agent as a model (OpenAI's list shape)."""
        return JSONResponse({"object": "list", "data": _models_list(conversations, created)})

    @router.get("/v1/models/{model}")
    async def get_model(model: str) -> JSONResponse:
        """One hosted agent as a model."""
        for entry in _models_list(conversations, created):
            if entry["id"] == model:
                return JSONResponse(entry)
        return _unknown_model(model).response()

    @router.post(
        "/v1/chat/completions",
        openapi_extra={
            "requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}
        },
        responses={200: {"content": {"text/event-stream": {}, "application/json": {}}}},
    )
    async def chat_completions(request: Request) -> Any:
        """Play one user turn of a hosted agent, answered as an OpenAI chat completion (see docs)."""
        try:
            try:
                body = json.loads(await request.body())
            except ValueError as err:
                raise _ChatError(400, f"the body is not JSON: {err}", code="invalid_json") from None
            try:
                parsed = ChatCompletionRequest.model_validate(body)
            except ValidationError as err:
                first = err.errors()[0]
                raise _ChatError(
                    400,
                    f"invalid request at {_where(err.errors()) or 'the body'}: {first['msg']}",
                    code="invalid_request",
                    param=_where(err.errors()),
                ) from None
            if parsed.model not in {hosted.name for hosted in conversations.agents}:
                raise _unknown_model(parsed.model)
            turn = _Turn(conversations, parsed, request.headers.get(SESSION_HEADER))
            session_id = await turn.open()
            headers = {SESSION_HEADER: session_id}
            if parsed.stream:
                stream_headers = {**headers, "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
                chunks = _stream(conversations, turn, session_id)
                return StreamingResponse(chunks, media_type="text/event-stream", headers=stream_headers)
            exchange = await conversations.say(session_id, turn.text)
            return JSONResponse(_completion(parsed.model, exchange), headers=headers)
        except _ChatError as err:
            return err.response()
        except Exception as err:
            return _from_problem(err).response()

    return router


def _unknown_model(model: str) -> _ChatError:
    return _ChatError(
        404,
        f"The model {model!r} does not exist: this server hosts agents, each a model named after it "
        "(see GET /v1/models)",
        code="model_not_found",
        param="model",
    )
