"""The Gemini ``generateContent`` wire format (REST JSON, camelCase): a request out, a response in.

Pure functions on plain data, tested against recorded REST payloads; :mod:`slotgraph.models.gemini` hands
these bodies to ``google-genai`` (whose types accept and produce the same JSON).

Request: the system instruction is ``systemInstruction.parts[].text``; user text is a ``user`` content (an
event turn without text becomes ``[event: NAME]``); the agent's text and tool calls are ``model`` contents
with ``text`` and ``functionCall {name, args}`` parts; tool results are ``user`` contents with
``functionResponse {name, response}`` parts (a result that is not an object becomes ``{"result": ...}``).
Consecutive messages of one role share one content, as Gemini expects. Visible tools become
``tools[0].functionDeclarations`` with parameters converted by :func:`to_gemini_schema`.

Response: text parts (not ``thought`` parts) joined, ``functionCall`` parts as tool calls (ids kept when the
API sends them, else ``gemini_call_{n}``), ``usageMetadata`` as usage (thinking tokens count as completion).
``finishReason: MALFORMED_FUNCTION_CALL`` raises :class:`MalformedFunctionCall` (the caller retries);
a blocked prompt or an empty candidate raises :class:`~slotgraph.models.errors.ModelResponseError`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from slotgraph.models._wire import response_object, token_count, user_text
from slotgraph.models.errors import ModelResponseError
from slotgraph.models.gemini_schema import to_gemini_schema
from slotgraph.models.protocol import (
    AssistantText,
    AssistantToolCalls,
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolResultMessage,
    ToolSchema,
    Usage,
    UserMessage,
)
from slotgraph.models.tool_arguments import parse_arguments

__all__ = ["MalformedFunctionCall", "function_declaration", "request_body", "response_from_body"]


class MalformedFunctionCall(ModelResponseError):
    """Gemini produced a function call it could not parse (``finishReason: MALFORMED_FUNCTION_CALL``)."""

    code = "model_malformed_function_call"


def _plain(value: Any) -> Any:
    """``value`` as JSON data (dates and other objects as strings)."""
    return json.loads(json.dumps(value, default=str))


def function_declaration(tool: ToolSchema) -> dict[str, Any]:
    """One visible tool as a Gemini function declaration."""
    declaration: dict[str, Any] = {"name": tool.name, "description": tool.description}
    parameters = to_gemini_schema(tool.parameters)
    if parameters is not None:
        declaration["parameters"] = parameters
    return declaration


def _parts(message: Any) -> tuple[str, list[dict[str, Any]]]:
    if isinstance(message, UserMessage):
        return "user", [{"text": user_text(message)}]
    if isinstance(message, AssistantText):
        return "model", [{"text": message.text}]
    if isinstance(message, AssistantToolCalls):
        return "model", [
            {"functionCall": {"name": c.name, "args": _plain(dict(c.args))}} for c in message.calls
        ]
    if isinstance(message, ToolResultMessage):
        result = _plain(message.result)
        response = result if isinstance(result, dict) else {"result": result}
        return "user", [{"functionResponse": {"name": message.name, "response": response}}]
    raise TypeError(f"not a conversation message: {message!r}")


def request_body(request: ModelRequest) -> dict[str, Any]:
    """The JSON body of ``POST .../models/{model}:generateContent`` for ``request``."""
    contents: list[dict[str, Any]] = []
    for message in request.messages:
        role, parts = _parts(message)
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": role, "parts": parts})
    body: dict[str, Any] = {"contents": contents}
    if request.system_instruction:
        body["systemInstruction"] = {"parts": [{"text": request.system_instruction}]}
    if request.tools:
        body["tools"] = [{"functionDeclarations": [function_declaration(t) for t in request.tools]}]
    return body


def _usage(body: Mapping[str, Any]) -> Usage:
    meta = body.get("usageMetadata")
    if not isinstance(meta, Mapping):
        return Usage()
    completion = token_count(meta.get("candidatesTokenCount")) + token_count(meta.get("thoughtsTokenCount"))
    return Usage(token_count(meta.get("promptTokenCount")), completion)


def response_from_body(body: Any, *, where: str, call_offset: int = 0) -> ModelResponse:
    """A ``generateContent`` response body as a :class:`ModelResponse`; ``where`` names it in errors."""
    body = response_object(body, where)
    candidates = body.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], Mapping):
        feedback = body.get("promptFeedback")
        reason = feedback.get("blockReason") if isinstance(feedback, Mapping) else None
        if reason:
            raise ModelResponseError(
                f"{where}: Gemini blocked the prompt ({reason}); rephrase or check safety"
            )
        raise ModelResponseError(f"{where}: the response has no candidates: {json.dumps(body)[:300]}")
    candidate = candidates[0]
    finish = candidate.get("finishReason")
    if finish == "MALFORMED_FUNCTION_CALL":
        raise MalformedFunctionCall(f"{where}: Gemini produced a malformed function call ({finish})")
    content = candidate.get("content")
    parts = content.get("parts") if isinstance(content, Mapping) else None
    if not isinstance(parts, list):
        if finish in (None, "STOP"):
            return ModelResponse(usage=_usage(body))
        raise ModelResponseError(f"{where}: the candidate has no content (finishReason {finish})")
    texts: list[str] = []
    calls: list[ToolCall] = []
    for part in parts:
        if not isinstance(part, Mapping) or part.get("thought"):
            continue
        if isinstance(part.get("text"), str):
            texts.append(part["text"])
        call = part.get("functionCall")
        if isinstance(call, Mapping):
            name = call.get("name")
            if not isinstance(name, str) or not name:
                raise ModelResponseError(
                    f"{where}: a functionCall part has no name: {json.dumps(call)[:200]}"
                )
            call_id = call.get("id")
            if not isinstance(call_id, str) or not call_id:
                call_id = f"gemini_call_{call_offset + len(calls) + 1}"
            calls.append(ToolCall(call_id, name, parse_arguments(call.get("args"))))
    text = "".join(texts).strip() or None
    return ModelResponse(text=text, tool_calls=tuple(calls), usage=_usage(body))
