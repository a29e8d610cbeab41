"""Chat-completions response bodies as an OpenAI-compatible server sends them."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["completion", "tool_call"]


def tool_call(name: str, args: Any, call_id: str | None = None) -> dict[str, Any]:
    """One tool call; ``args`` is sent as JSON text unless it already is text (e.g. malformed JSON)."""
    arguments = args if isinstance(args, str) else json.dumps(args)
    call: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if call_id is not None:
        call["id"] = call_id
    return call


def completion(
    text: str | None = None,
    calls: list[dict[str, Any]] | None = None,
    *,
    prompt: int = 11,
    completion: int = 7,
) -> dict[str, Any]:
    """A ``chat.completion`` body with one choice."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }
