"""Tools whose executor is an HTTP endpoint (``tools: {http: [...]}`` in agent.yaml).

The call's arguments — the engine's task inputs, or a model's arguments — become the JSON body through
:func:`slotgraph.config.payloads.assemble_payload`, the assembly of workflow HTTP stages: with declared
``input_schema.properties`` only those keys are sent; a missing required key **fails closed** (the call is
not made; the tool's result is an error naming the key, which routes the task to its failure handling); a
wrongly typed value too. The answer's JSON body is the tool result; a non-2xx answer or an unreachable
endpoint is a tool failure. ``httpx`` is imported when a call is made (``pip install 'slotgraph[workflow]'``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from slotgraph.config.json_schemas import CompiledSchema
from slotgraph.config.payloads import PayloadProblem, assemble_payload
from slotgraph.config.tool_sources import HttpToolConfig
from slotgraph.errors import SlotgraphError
from slotgraph.models.protocol import ToolSchema
from slotgraph.runtime.tools import Tool, ToolContext

__all__ = ["HttpTool", "HttpToolError", "http_tool"]


class HttpToolError(SlotgraphError, RuntimeError):
    """An HTTP tool's endpoint failed: unreachable, a non-2xx answer, or a body that is not JSON."""

    code = "http_tool_failed"


@dataclass(frozen=True, slots=True)
class HttpTool(Tool):
    """A tool that POSTs (or PUTs/PATCHes) its arguments, assembled by ``input_schema``, to ``config.url``."""

    config: HttpToolConfig | None = None
    body_schema: CompiledSchema | None = None

    def check_args(self, args: Mapping[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
        if not isinstance(args, Mapping):
            return None, f"arguments must be an object, got {type(args).__name__}"
        try:
            return assemble_payload(goal=args, slots={}, schema=self.body_schema), None
        except PayloadProblem as problem:
            return None, f"{problem.message}; the call to {self.name} was not made"

    async def invoke(self, args: Mapping[str, Any], context: ToolContext | None = None) -> Any:
        assert self.config is not None
        try:
            import httpx
        except ImportError:
            raise HttpToolError("HTTP tools need httpx: pip install 'slotgraph[workflow]'") from None
        config = self.config
        try:
            async with httpx.AsyncClient(timeout=config.timeout) as client:
                response = await client.request(
                    config.method, config.url, json=dict(args), headers=dict(config.headers or {})
                )
        except httpx.HTTPError as err:
            raise HttpToolError(f"{config.method} {config.url} failed: {type(err).__name__}: {err}") from None
        if not 200 <= response.status_code < 300:
            raise HttpToolError(f"{config.method} {config.url} answered {response.status_code}")
        try:
            return response.json()
        except ValueError:
            raise HttpToolError(f"{config.method} {config.url} answered a body that is not JSON") from None


def http_tool(config: HttpToolConfig) -> HttpTool:
    """The tool an ``http`` entry of agent.yaml declares; its parameters are the ``input_schema``."""
    parameters = dict(config.input_schema or {"type": "object", "properties": {}})
    return HttpTool(
        name=config.name,
        fn=None,
        schema=ToolSchema(config.name, config.description or f"{config.method} {config.url}", parameters),
        config=config,
        body_schema=config.compiled_schema(),
    )
