"""One scripted model for every implementation, through each framework's own fake-model mechanism.

Each peer's request is turned into a Slotgraph :class:`~slotgraph.models.protocol.ModelRequest` and played
by a :class:`~slotgraph.ScriptedModel` (which fails loudly on an unexpected or unconsumed step); its answer
is turned back into the framework's response type. So every implementation's prompt is measured by one
rule, :func:`~slotgraph.models.scripted.estimate_prompt_tokens` (instruction + tool schemas + conversation,
characters / 4), and the CPU time of each fake-model call — the conversion both ways included — is added
to a :class:`Player`, which the benchmark subtracts from the turn's: what remains is the framework's.

The mechanisms: pydantic-ai's ``FunctionModel``; a LangChain chat model (``BaseChatModel``, as LangChain's
guide to custom chat models writes one, with ``bind_tools``); an OpenAI Agents SDK ``Model``; a Google ADK
``BaseLlm``. Each framework is imported only by the function that needs it.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncGenerator, Iterable
from dataclasses import dataclass
from typing import Any

from slotgraph.models.protocol import (
    AssistantText,
    AssistantToolCalls,
    Message,
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolResultMessage,
    ToolSchema,
    UserMessage,
)
from slotgraph.models.scripted import ScriptedModel


@dataclass
class Player:
    """The script of the conversation being played (a new :class:`ScriptedModel` for each booking, so an
    agent is built once and plays many) and the CPU seconds spent inside fake-model calls so far
    (``time.process_time``: every thread of the process)."""

    script: ScriptedModel
    cpu: float = 0.0


class TimedModel:
    """A Slotgraph model playing the player's script, adding the CPU time of each ``generate`` to it."""

    def __init__(self, player: Player) -> None:
        self.player = player

    async def generate(self, request: ModelRequest) -> ModelResponse:
        start = time.process_time()
        try:
            return await self.player.script.generate(request)
        finally:
            self.player.cpu += time.process_time() - start


def _result(content: Any) -> Any:
    """A tool result as the model reads it: a JSON text is counted as its value (as a dict result is)."""
    if isinstance(content, str):
        try:
            return json.loads(content)
        except ValueError:
            return content
    return content


def _merge_calls(messages: list[Message], call: ToolCall) -> None:
    if messages and isinstance(messages[-1], AssistantToolCalls):
        messages[-1] = AssistantToolCalls((*messages[-1].calls, call))
    else:
        messages.append(AssistantToolCalls((call,)))


# --- pydantic-ai --------------------------------------------------------------------------------------------


def pydantic_ai_model(player: Player) -> Any:
    """A pydantic-ai ``FunctionModel`` playing the player's script."""
    from pydantic_ai import messages as pai
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    def convert(history: list[pai.ModelMessage], info: AgentInfo) -> ModelRequest:
        messages: list[Message] = []
        system: list[str] = []
        for message in history:
            for part in message.parts:
                if isinstance(part, pai.SystemPromptPart):
                    system.append(part.content)
                elif isinstance(part, pai.UserPromptPart):
                    messages.append(
                        UserMessage(part.content if isinstance(part.content, str) else str(part.content))
                    )
                elif isinstance(part, pai.ToolReturnPart):  # what the model reads of a tool's result
                    result = part.model_response_object()
                    messages.append(ToolResultMessage(part.tool_call_id, part.tool_name, result))
                elif isinstance(part, pai.RetryPromptPart):  # a tool's ModelRetry, as the model reads it
                    retry = part.model_response()
                    messages.append(ToolResultMessage(part.tool_call_id, part.tool_name or "", retry))
                elif isinstance(part, pai.TextPart):
                    messages.append(AssistantText(part.content))
                elif isinstance(part, pai.ToolCallPart):
                    _merge_calls(messages, ToolCall(part.tool_call_id, part.tool_name, part.args_as_dict()))
        if info.instructions:
            system.append(info.instructions)
        tools = tuple(
            ToolSchema(t.name, t.description or "", t.parameters_json_schema) for t in info.function_tools
        )
        return ModelRequest("\n\n".join(system), tuple(messages), tools)

    async def respond(history: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
        start = time.process_time()
        try:
            response = await player.script.generate(convert(history, info))
            parts: list[pai.ModelResponsePart] = [pai.TextPart(response.text)] if response.text else []
            parts += [pai.ToolCallPart(c.name, dict(c.args), tool_call_id=c.id) for c in response.tool_calls]
            return pai.ModelResponse(parts=parts)
        finally:
            player.cpu += time.process_time() - start

    return FunctionModel(respond)


# --- LangChain (LangGraph's models) -------------------------------------------------------------------------


def langchain_model(player: Player) -> Any:
    """A LangChain chat model playing the player's script (``bind_tools`` as a real chat model has it)."""
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.utils.function_calling import convert_to_openai_tool

    def convert(history: list[BaseMessage], tools: Iterable[dict[str, Any]]) -> ModelRequest:
        messages: list[Message] = []
        system: list[str] = []
        for message in history:
            if isinstance(message, SystemMessage):
                system.append(str(message.content))
            elif isinstance(message, HumanMessage):
                messages.append(UserMessage(str(message.content)))
            elif isinstance(message, AIMessage):
                if message.content:
                    messages.append(AssistantText(str(message.content)))
                for call in message.tool_calls:
                    _merge_calls(messages, ToolCall(call["id"] or "", call["name"], call["args"]))
            elif isinstance(message, ToolMessage):
                messages.append(
                    ToolResultMessage(message.tool_call_id, message.name or "", _result(message.content))
                )
        schemas = tuple(
            ToolSchema(
                t["function"]["name"], t["function"].get("description", ""), t["function"]["parameters"]
            )
            for t in tools
        )
        return ModelRequest("\n\n".join(system), tuple(messages), schemas)

    class ScriptedChatModel(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "scripted"

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools], **kwargs)

        def _generate(
            self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
        ) -> ChatResult:
            raise NotImplementedError("the benchmark drives LangGraph asynchronously (ainvoke)")

        async def _agenerate(
            self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
        ) -> ChatResult:
            start = time.process_time()
            try:
                response = await player.script.generate(convert(messages, kwargs.get("tools", ())))
                calls = [
                    {"name": c.name, "args": dict(c.args), "id": c.id, "type": "tool_call"}
                    for c in response.tool_calls
                ]
                message = AIMessage(content=response.text or "", tool_calls=calls)
                return ChatResult(generations=[ChatGeneration(message=message)])
            finally:
                player.cpu += time.process_time() - start

    return ScriptedChatModel()


# --- OpenAI Agents SDK --------------------------------------------------------------------------------------


def openai_agents_model(player: Player) -> Any:
    """An OpenAI Agents SDK ``Model`` playing the player's script."""
    from agents import FunctionTool, Model, ModelResponse, Usage
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

    def convert(system: str | None, items: str | list[Any], tools: list[Any]) -> ModelRequest:
        messages: list[Message] = []
        for item in [{"role": "user", "content": items}] if isinstance(items, str) else items:
            kind = item.get("type", "message")
            if kind == "function_call":
                _merge_calls(
                    messages, ToolCall(item["call_id"], item["name"], json.loads(item["arguments"] or "{}"))
                )
            elif kind == "function_call_output":
                messages.append(ToolResultMessage(item["call_id"], "", _result(item["output"])))
            elif kind == "message":
                content = item["content"]
                text = content if isinstance(content, str) else "".join(c.get("text", "") for c in content)
                messages.append(AssistantText(text) if item["role"] == "assistant" else UserMessage(text))
        schemas = tuple(
            ToolSchema(t.name, t.description, t.params_json_schema)
            for t in tools
            if isinstance(t, FunctionTool)
        )
        return ModelRequest(system or "", tuple(messages), schemas)

    class ScriptedAgentsModel(Model):
        async def get_response(
            self,
            system_instructions: str | None,
            input: str | list[Any],
            model_settings: Any,
            tools: list[Any],
            output_schema: Any,
            handoffs: list[Any],
            tracing: Any,
            **_: Any,
        ) -> ModelResponse:
            start = time.process_time()
            try:
                response = await player.script.generate(convert(system_instructions, input, tools))
                output: list[Any] = []
                if response.text:
                    text = ResponseOutputText(type="output_text", text=response.text, annotations=[])
                    output.append(
                        ResponseOutputMessage(
                            id="msg", type="message", role="assistant", status="completed", content=[text]
                        )
                    )
                for call in response.tool_calls:
                    output.append(
                        ResponseFunctionToolCall(
                            type="function_call",
                            call_id=call.id,
                            name=call.name,
                            arguments=json.dumps(dict(call.args)),
                        )
                    )
                return ModelResponse(output=output, usage=Usage(), response_id=None)
            finally:
                player.cpu += time.process_time() - start

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError("the benchmark does not stream")

    return ScriptedAgentsModel()


# --- Google ADK ---------------------------------------------------------------------------------------------


def adk_model(player: Player) -> Any:
    """A Google ADK ``BaseLlm`` playing the player's script (the request read by Slotgraph's ADK adapter)."""
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.genai import types

    from slotgraph.adapters.adk import request_from_adk

    class ScriptedLlm(BaseLlm):
        async def generate_content_async(
            self, llm_request: LlmRequest, stream: bool = False
        ) -> AsyncGenerator[LlmResponse, None]:
            start = time.process_time()
            response = await player.script.generate(request_from_adk(llm_request))
            parts = [types.Part(text=response.text)] if response.text else []
            parts += [
                types.Part(function_call=types.FunctionCall(id=c.id, name=c.name, args=dict(c.args)))
                for c in response.tool_calls
            ]
            usage = types.GenerateContentResponseUsageMetadata(  # ADK logs a warning for each reply without
                prompt_token_count=response.usage.prompt_tokens,
                candidates_token_count=response.usage.completion_tokens,
                total_token_count=response.usage.total_tokens,
            )
            reply = LlmResponse(content=types.Content(role="model", parts=parts), usage_metadata=usage)
            player.cpu += time.process_time() - start
            yield reply

    return ScriptedLlm(model="scripted")
