"""The OpenAI chat-completions wire format: a request as a JSON body, a JSON body as a response.

Pure functions, no I/O, so both directions are tested on plain data.

Request mapping: the system instruction is the first ``system`` message; a user message is ``user`` (an event
turn without text becomes ``[event: NAME]``); the agent's text is ``assistant``; the agent's tool calls are an
``assistant`` message with ``tool_calls`` (``{"id", "type": "function", "function": {"name", "arguments":
JSON text}}``), merged with the text just before them; each tool result is ``role: tool`` with its
``tool_call_id`` and the result as JSON text. Visible tools become ``{"type": "function", "function":
{"name", "description", "parameters"}}``.

Response mapping: ``choices[0].message`` gives the text and the tool calls (arguments parsed by
:func:`~slotgraph.models.tool_arguments.parse_arguments`, so malformed JSON becomes a call the runtime
refuses); ``usage`` gives the token counts. A body that is not the protocol raises
:class:`~slotgraph.models.errors.ModelResponseError` naming where it came from.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from slotgraph.models._wire import json_text, response_object, token_count, tool_parameters, user_text
from slotgraph.models.errors import ModelResponseError
from slotgraph.models.protocol import (
    AssistantText,
    AssistantToolCalls,
    Message,
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolResultMessage,
    ToolSchema,
    Usage,
    UserMessage,
)
from slotgraph.models.tool_arguments import parse_arguments

__all__ = ["message_json", "request_body", "response_from_body", "tool_json"]


def tool_json(tool: ToolSchema) -> dict[str, Any]:
    """One visible tool as an OpenAI function tool."""
    function = {"name": tool.name, "description": tool.description, "parameters": tool_parameters(tool)}
    return {"type": "function", "function": function}


def _call_json(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": json_text(dict(call.args))},
    }


def message_json(message: Message) -> dict[str, Any]:
    """One conversation message as a chat-completions message."""
    if isinstance(message, UserMessage):
        return {"role": "user", "content": user_text(message)}
    if isinstance(message, AssistantText):
        return {"role": "assistant", "content": message.text}
    if isinstance(message, AssistantToolCalls):
        return {"role": "assistant", "content": None, "tool_calls": [_call_json(c) for c in message.calls]}
    if isinstance(message, ToolResultMessage):
        return {"role": "tool", "tool_call_id": message.call_id, "content": json_text(message.result)}
    raise TypeError(f"not a conversation message: {message!r}")


def _messages(request: ModelRequest) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if request.system_instruction:
        out.append({"role": "system", "content": request.system_instruction})
    previous: Message | None = None
    for message in request.messages:
        item = message_json(message)
        if isinstance(message, AssistantToolCalls) and isinstance(previous, AssistantText) and out:
            item["content"] = out.pop()["content"]  # one assistant turn: its text and its calls
        out.append(item)
        previous = message
    return out


def request_body(request: ModelRequest, model: str, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON body of ``POST {base_url}/chat/completions`` for ``request``."""
    body: dict[str, Any] = {"model": model, "messages": _messages(request)}
    if request.tools:
        body["tools"] = [tool_json(tool) for tool in request.tools]
    if extra:
        body.update(extra)
    return body


def _usage(body: Mapping[str, Any]) -> Usage:
    usage = body.get("usage")
    if not isinstance(usage, Mapping):
        return Usage()
    return Usage(token_count(usage.get("prompt_tokens")), token_count(usage.get("completion_tokens")))


def _tool_calls(raw: Any, where: str, offset: int) -> tuple[ToolCall, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ModelResponseError(f"{where}: 'tool_calls' is not a list: {raw!r:.200}")
    calls = []
    for index, item in enumerate(raw):
        function = item.get("function") if isinstance(item, Mapping) else None
        name = function.get("name") if isinstance(function, Mapping) else None
        if not isinstance(name, str) or not name:
            raise ModelResponseError(f"{where}: tool call #{index + 1} has no function name: {item!r:.200}")
        assert isinstance(function, Mapping) and isinstance(item, Mapping)
        call_id = item.get("id")
        call_id = call_id if isinstance(call_id, str) and call_id else f"call_{offset + index + 1}"
        calls.append(ToolCall(call_id, name, parse_arguments(function.get("arguments"))))
    return tuple(calls)


def response_from_body(body: Any, *, where: str, call_offset: int = 0) -> ModelResponse:
    """A chat-completions response body as a :class:`ModelResponse`.

    ``where`` names the server in errors; a tool call without an id (some local servers omit them) gets
    ``call_{call_offset + n}``, ``call_offset`` being the number of calls earlier in the conversation.
    """
    body = response_object(body, where)
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise ModelResponseError(f"{where}: the response has no 'choices': {json_text(body)[:300]}")
    message = choices[0].get("message")
    if not isinstance(message, Mapping):
        raise ModelResponseError(f"{where}: choices[0] has no 'message': {json_text(choices[0])[:300]}")
    content = message.get("content")
    text = content if isinstance(content, str) and content.strip() else None
    if text is None and isinstance(message.get("refusal"), str) and message["refusal"].strip():
        text = message["refusal"]
    return ModelResponse(
        text=text, tool_calls=_tool_calls(message.get("tool_calls"), where, call_offset), usage=_usage(body)
    )
