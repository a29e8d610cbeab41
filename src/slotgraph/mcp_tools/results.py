"""An MCP ``CallToolResult`` (as wire JSON) turned into the plain value a Slotgraph tool returns."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from slotgraph.errors import SlotgraphError

__all__ = ["McpToolError", "result_value"]


class McpToolError(SlotgraphError, RuntimeError):
    """An MCP tool call failed: the server answered ``isError``, died, hung, or could not be reached."""

    code = "mcp_tool_failed"


def _texts(content: Any) -> list[str]:
    texts: list[str] = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif isinstance(block, Mapping):
            texts.append(f"[{block.get('type', 'content')} {block.get('mimeType', '')}]".replace(" ]", "]"))
    return texts


def result_value(tool: str, result: Mapping[str, Any]) -> Any:
    """The value of a successful call, or :class:`McpToolError` carrying the server's error text.

    ``structuredContent`` (an object) is the value when the server sent one; otherwise a single text block
    holding JSON is that JSON, and any other content is ``{"content": "<the texts joined>"}``.
    """
    texts = _texts(result.get("content"))
    if result.get("isError"):
        raise McpToolError(f"the MCP tool {tool!r} reported an error: {' '.join(texts) or '(no message)'}")
    structured = result.get("structuredContent")
    if isinstance(structured, Mapping):
        return dict(structured)
    if len(texts) == 1:
        try:
            return json.loads(texts[0])
        except ValueError:
            pass
    return {"content": "\n".join(texts)}
