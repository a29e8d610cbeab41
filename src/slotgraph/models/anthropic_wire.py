"""The Anthropic Messages API wire format: a request as a JSON body, a JSON body as a response.

Pure functions, no I/O, so both directions are tested on plain data.

Request mapping: the system instruction is the top-level ``system`` text; a user message is a ``user``
turn (an event turn without text becomes ``[event: NAME]``); the agent's text is an ``assistant`` text
block; the agent's tool calls are ``tool_use`` blocks (``{"id", "name", "input"}``) in an ``assistant``
turn; each tool result is a ``tool_result`` block (``tool_use_id``, the result as JSON text, ``is_error``
when it failed or was refused) in a ``user`` turn. The API wants turns to alternate, so consecutive blocks
of one role are merged into one turn (an assistant's text and the calls after it; the results of parallel
calls and the user text after them), and a conversation that starts with the agent gets a leading
``[conversation start]`` user turn. Tool-use ids must match ``[A-Za-z0-9_-]+``: any other character becomes
``_`` (the same on both sides). Visible tools become ``{"name", "description", "input_schema"}``.

Response mapping: the ``text`` blocks joined give the text, the ``tool_use`` blocks the tool calls (an
``input`` that is not an object becomes a call the runtime refuses, see
:mod:`slotgraph.models.tool_arguments`); ``usage`` gives the input and output tokens. A body that is not
the protocol raises :class:`~slotgraph.models.errors.ModelResponseError` naming where it came from.
"""

from __future__ import annotations

import re
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

__all__ = ["DEFAULT_MAX_TOKENS", "request_body", "response_from_body", "tool_json", "wire_id"]

DEFAULT_MAX_TOKENS = 4096
"""``max_tokens`` is required by the API; this is what a request asks for unless ``extra`` overrides it."""

START_TEXT = "[conversation start]"
_BAD_ID_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def wire_id(call_id: str) -> str:
    """A tool-use id the API accepts (``[A-Za-z0-9_-]+``); the same input always gives the same id."""
    return _BAD_ID_CHARS.sub("_", call_id) or "call"


def tool_json(tool: ToolSchema) -> dict[str, Any]:
    """One visible tool as an Anthropic tool definition."""
    return {"name": tool.name, "description": tool.description, "input_schema": tool_parameters(tool)}


def _failed(result: Any) -> bool:
    return isinstance(result, Mapping) and result.get("error") is True


def _blocks(message: Message) -> tuple[str, list[dict[str, Any]]]:
    """The role and content blocks of one conversation message."""
    if isinstance(message, UserMessage):
        return "user", [{"type": "text", "text": user_text(message) or "(no text)"}]
    if isinstance(message, AssistantText):
        return "assistant", [{"type": "text", "text": message.text or "(no text)"}]
    if isinstance(message, AssistantToolCalls):
        return "assistant", [
            {"type": "tool_use", "id": wire_id(c.id), "name": c.name, "input": dict(c.args)}
            for c in message.calls
        ]
    if isinstance(message, ToolResultMessage):
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": wire_id(message.call_id),
            "content": json_text(message.result),
        }
        if _failed(message.result):
            block["is_error"] = True
        return "user", [block]
    raise TypeError(f"not a conversation message: {message!r}")


def messages_json(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    """The conversation as alternating Messages-API turns."""
    out: list[dict[str, Any]] = []
    for message in messages:
        role, blocks = _blocks(message)
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    if out and out[0]["role"] != "user":
        out.insert(0, {"role": "user", "content": [{"type": "text", "text": START_TEXT}]})
    for turn in out:  # tool results must come first in a user turn
        if turn["role"] == "user":
            turn["content"].sort(key=lambda block: block["type"] != "tool_result")
    return out


def request_body(request: ModelRequest, model: str, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON body of ``POST {base_url}/v1/messages`` for ``request``."""
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": DEFAULT_MAX_TOKENS,
        "messages": messages_json(request.messages),
    }
    if request.system_instruction:
        body["system"] = request.system_instruction
    if request.tools:
        body["tools"] = [tool_json(tool) for tool in request.tools]
    if extra:
        body.update(extra)
    return body


def _usage(body: Mapping[str, Any]) -> Usage:
    usage = body.get("usage")
    if not isinstance(usage, Mapping):
        return Usage()
    prompt = (
        token_count(usage.get("input_tokens"))
        + token_count(usage.get("cache_creation_input_tokens"))
        + token_count(usage.get("cache_read_input_tokens"))
    )
    return Usage(prompt, token_count(usage.get("output_tokens")))


def _tool_call(block: Mapping[str, Any], where: str, number: int) -> ToolCall:
    name = block.get("name")
    if not isinstance(name, str) or not name:
        raise ModelResponseError(f"{where}: tool_use block #{number} has no name: {json_text(block)[:200]}")
    call_id = block.get("id")
    args = parse_arguments(block.get("input"))
    return ToolCall(call_id if isinstance(call_id, str) and call_id else f"toolu_{number}", name, args)


def response_from_body(body: Any, *, where: str) -> ModelResponse:
    """A Messages-API response body as a :class:`ModelResponse`; ``where`` names the server in errors."""
    body = response_object(body, where)
    content = body.get("content")
    if not isinstance(content, list):
        raise ModelResponseError(f"{where}: the response has no 'content' list: {json_text(body)[:300]}")
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in content:
        if not isinstance(block, Mapping):
            raise ModelResponseError(f"{where}: a content block is not an object: {block!r:.200}")
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "tool_use":
            calls.append(_tool_call(block, where, len(calls) + 1))
        # thinking, redacted_thinking and server-tool blocks carry nothing the runtime uses
    text = "".join(texts)
    return ModelResponse(text=text if text.strip() else None, tool_calls=tuple(calls), usage=_usage(body))
