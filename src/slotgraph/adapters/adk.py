"""Slotgraph's engine inside Google's Agent Development Kit: the DAG as ``LlmAgent`` callbacks.

The specification was written for a host whose agents run on callbacks; ADK's ``LlmAgent`` has the same ones,
so this adapter plugs the same engine, tools and instruction assembly the Slotgraph loop uses
(:mod:`slotgraph.runtime`) into them:

- **before agent** (turn start): the engine's ``begin_turn`` on the state kept in the ADK session
  (``state["slotgraph"]``), e.g. a deferred rejection is applied before anything reads ``pending``;
- **before model**: one engine invocation (the turn's first gets the user's text); the tools the engine hides
  are taken off the request (the model never sees them), the phase instruction replaces the previous one
  after the framework's sentinel, and when the engine preempts an ``LlmResponse`` carrying its reply — and its
  ``function_call``, with a parallel fire's other calls, which ADK runs concurrently — is returned instead of
  calling the model;
- **before tool**: a model's call to a hidden or unknown tool, to an executor, or with arguments that do not
  match the schema is refused (its result is the refusal the model reads); engine calls are always admitted;
- **after tool**: the result is routed into the state (the engine's ``after_tool``); an ended session stops
  the ADK loop;
- **after model**: payloads the engine stashed are appended after the model's text; a task fire the engine
  held for setters the model did not call is played at once (its reply joins the response).

Tools come from the same agent directory (``tools.py``, MCP servers) and become ADK tools
(:class:`SlotgraphTool`) whose declarations are the Slotgraph schemas and which run through the same tool
runner (argument checks, injected ``today``/``now``/``context``, failures as results).

::

    from slotgraph.adapters.adk import slotgraph_agent

    root_agent = slotgraph_agent("examples/bella_notte", model="gemini-2.5-flash")

or, to add a DAG to an existing ``LlmAgent``::

    SlotgraphCallbacks(Agent.load("examples/bella_notte")).install(my_llm_agent)

:class:`SlotgraphLlm` runs any Slotgraph model (``offline``, ``openai:...``, a ``ScriptedModel``) as an ADK
model. Needs ``google-adk`` (``pip install 'slotgraph[adk]'``).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import AsyncGenerator, Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from slotgraph.engine import EngineAction
from slotgraph.models.protocol import (
    AssistantText,
    AssistantToolCalls,
    Message,
    Model,
    ModelRequest,
    ToolCall,
    ToolResultMessage,
    ToolSchema,
    UserMessage,
)
from slotgraph.runtime.agent import Agent
from slotgraph.runtime.engine_port import DagEngine, Engine, EngineResult
from slotgraph.runtime.errors import SlotgraphRuntimeError
from slotgraph.runtime.payloads import stash_events
from slotgraph.runtime.preemption import engine_reply, should_preempt
from slotgraph.runtime.state_copy import copy_state_dict
from slotgraph.runtime.tool_execution import ToolRunner
from slotgraph.runtime.tools import Tool
from slotgraph.runtime.turn_preparation import is_terminal, prepare_call

try:
    from google.adk.agents import LlmAgent
    from google.adk.agents.callback_context import CallbackContext
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.adk.tools.base_tool import BaseTool
    from google.adk.tools.tool_context import ToolContext
    from google.genai import types
except ImportError:  # pragma: no cover - exercised by the install-hint test in a subprocess
    raise SlotgraphRuntimeError(
        "slotgraph.adapters.adk needs google-adk, which is not installed; install it with: "
        "pip install 'slotgraph[adk]'"
    ) from None

__all__ = [
    "METADATA_KEY",
    "STATE_KEY",
    "SlotgraphCallbacks",
    "SlotgraphLlm",
    "SlotgraphTool",
    "request_from_adk",
    "slotgraph_agent",
]

STATE_KEY = "slotgraph"
"""The ADK session-state key holding the engine's state (the spec's ``sm``, plain JSON)."""
METADATA_KEY = "slotgraph"
"""``LlmResponse.custom_metadata[METADATA_KEY]`` marks a reply the engine gave instead of the model."""


# --- turn-scoped bookkeeping --------------------------------------------------------------------------------


@dataclass
class _Turn:
    """What one ADK invocation (one user turn) needs between callbacks; never persisted."""

    user_text: str
    first_call: bool = True
    visible: tuple[str, ...] = ()
    action: EngineAction | None = None
    engine_calls: set[str] = field(default_factory=set)
    deferred: dict[str, tuple[str, dict[str, Any], Any, bool]] = field(default_factory=dict)
    """Per call id: the routing ``after_tool`` applies (tool, arguments, result — as the tool runner fenced
    them — and whether the call ended the session)."""
    delivered: set[str] = field(default_factory=set)
    ended: bool = False
    held_retried: bool = False
    instruction: str = ""
    contents: int = 0
    sm: dict[str, Any] | None = None
    """The engine state as this invocation last wrote it: what every later callback of the turn reads (see
    :meth:`SlotgraphCallbacks._state`)."""


class _DeferredRouting:
    """An :class:`Engine` that lets the tool runner run a tool but leaves the routing to ``after_tool``."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.routed: list[tuple[str, dict[str, Any], Any]] = []

    def begin_turn(self, dag: Any, sm: Mapping[str, Any]) -> dict[str, Any]:
        return self.engine.begin_turn(dag, sm)

    def invoke(self, dag: Any, sm: Mapping[str, Any], **kwargs: Any) -> EngineResult:
        return self.engine.invoke(dag, sm, **kwargs)

    def after_tool(
        self, dag: Any, sm: Mapping[str, Any], tool_name: str, args: Mapping[str, Any], result: Any
    ) -> dict[str, Any]:
        self.routed.append((tool_name, dict(args), result))
        return dict(sm)

    def confirm_pending(
        self, dag: Any, sm: Mapping[str, Any], *, slots: Collection[str] | None = None
    ) -> dict[str, Any]:
        return self.engine.confirm_pending(dag, sm, slots=slots)

    def reject_pending(
        self, dag: Any, sm: Mapping[str, Any], *, slots: Collection[str] | None = None
    ) -> dict[str, Any]:
        return self.engine.reject_pending(dag, sm, slots=slots)


# --- the callbacks ------------------------------------------------------------------------------------------


class SlotgraphCallbacks:
    """A Slotgraph agent's engine and tools as ADK ``LlmAgent`` callbacks (see the module docs)."""

    def __init__(
        self,
        agent: Agent,
        *,
        engine: Engine | None = None,
        seed: int | None = None,
        clock: Callable[[], datetime] = datetime.now,
        channel: str | None = None,
        event_data: Mapping[str, Any] | None = None,
        debug: bool = False,
    ) -> None:
        if agent.logic is not None:
            raise SlotgraphRuntimeError(
                f"agent {agent.name!r} has agent logic (variables, rules, #when sections or prompt "
                "programs), which the ADK adapter does not run yet; run it with Slotgraph's own loop "
                "(Agent.session, slotgraph serve), or remove the logic to host only its DAG under ADK"
            )
        self.agent = agent
        self.engine: Engine = engine or DagEngine(seed=seed)
        self.clock = clock
        self.channel = channel if channel is not None else agent.channel
        self.event_data = dict(event_data) if event_data else None
        self.debug = debug
        self._turns: dict[str, _Turn] = {}
        self._ids = itertools.count(1)

    # -- state ---------------------------------------------------------------------------------------------

    @staticmethod
    def state_of(context: Any) -> dict[str, Any]:
        """The engine state kept in the ADK session (a copy)."""
        return copy_state_dict(context.state.get(STATE_KEY) or {})

    def _state(self, context: Any) -> dict[str, Any]:
        """The engine state as this turn last wrote it (a copy), else as the ADK session holds it.

        ADK runs the function calls of one model response concurrently, each with its own state delta, and
        merges those deltas key by key (``deep_merge_dicts``): the engine state under :data:`STATE_KEY` would
        come back as a mix of the calls' copies, keeping keys a later routing removed. So within a turn the
        adapter reads its own last write, routes each result onto it in one synchronous step, and writes the
        whole state again when the turn ends (:meth:`after_agent`), which replaces the merged mix.
        """
        turn = self._turns.get(str(getattr(context, "invocation_id", "")))
        if turn is not None and turn.sm is not None:
            return copy_state_dict(turn.sm)
        return self.state_of(context)

    def _save(self, context: Any, sm: Mapping[str, Any]) -> None:
        saved = copy_state_dict(sm)
        context.state[STATE_KEY] = saved
        turn = self._turns.get(str(getattr(context, "invocation_id", "")))
        if turn is not None:
            turn.sm = copy_state_dict(saved)

    def _turn(self, context: Any) -> _Turn:
        turn = self._turns.get(context.invocation_id)
        if turn is None:  # a callback outside before_agent's invocation (should not happen): start one
            turn = self._turns[context.invocation_id] = _Turn(user_text="")
        return turn

    def _runner(self, context: Any, engine: Engine) -> ToolRunner:
        return ToolRunner(
            self.agent.dag,
            self.agent.tools,
            engine,
            str(context.session.id),
            self.channel,
            self.clock(),
        )

    # -- callbacks -----------------------------------------------------------------------------------------

    def before_agent(self, callback_context: CallbackContext) -> None:
        """Turn start: the engine's ``begin_turn`` (initialise the state, apply a deferred rejection)."""
        self._turns[callback_context.invocation_id] = _Turn(
            user_text=_user_text(callback_context.user_content)
        )
        sm = self.state_of(callback_context)
        if not is_terminal(sm):
            sm = self.engine.begin_turn(self.agent.dag, sm)
        self._save(callback_context, sm)
        return None

    def after_agent(self, callback_context: CallbackContext) -> None:
        """Turn end: write the turn's engine state once more (over ADK's merge of concurrent calls' deltas,
        see :meth:`_state`) and forget the turn's bookkeeping."""
        turn = self._turns.pop(callback_context.invocation_id, None)
        if turn is not None and turn.sm is not None:
            callback_context.state[STATE_KEY] = turn.sm
        return None

    def before_model(self, callback_context: CallbackContext, llm_request: LlmRequest) -> LlmResponse | None:
        """One engine invocation: hide tools, inject the phase instruction, or preempt with its reply."""
        turn = self._turn(callback_context)
        prep = prepare_call(
            engine=self.engine,
            dag=self.agent.dag,
            registry=self.agent.tools,
            sm=self._state(callback_context),
            instruction=_system_text(llm_request),
            last_user_text=turn.user_text if turn.first_call else "",
            event_data=self.event_data,
            channel=self.channel,
            debug=self.debug,
        )
        turn.first_call = False
        turn.visible, turn.action = prep.visible, prep.action
        turn.instruction, turn.contents = _system_text(llm_request), len(llm_request.contents)
        self._save(callback_context, prep.sm)
        llm_request.config.system_instruction = prep.instruction
        _hide_tools(llm_request, set(self.agent.tools.names) - set(prep.visible))
        if not should_preempt(prep.action, conversation_length=len(llm_request.contents)):
            return None
        return self._engine_response(turn, prep.action)

    def _engine_response(self, turn: _Turn, action: EngineAction | None) -> LlmResponse:
        assert action is not None  # only a preempting action gets here
        reply = engine_reply(action)
        parts = [types.Part(text=reply.text)] if reply.text else []
        payloads = [dict(p) for p in action.response or () if p.get("type") not in ("text",)]
        if reply.ends_session:
            turn.ended = True
        elif reply.function_call:
            # a parallel fire's calls go out together: ADK runs the calls of one response concurrently
            for spec in (reply.function_call, *reply.parallel_calls):
                call_id = f"slotgraph-engine-{next(self._ids)}"
                turn.engine_calls.add(call_id)
                call = types.FunctionCall(id=call_id, name=spec.name, args=dict(spec.args))
                parts.append(types.Part(function_call=call))
        metadata = {METADATA_KEY: {"preempted": True, "parts": payloads}}
        return LlmResponse(content=types.Content(role="model", parts=parts), custom_metadata=metadata)

    def before_tool(
        self, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """Refuse a model's call the engine does not allow now (the refusal is the tool's result).

        A call to a tool nobody has (ADK hands the callbacks a bare ``BaseTool`` placeholder before it would
        fail the run) is refused as ``unknown_tool`` like in Slotgraph's loop: the model reads which tools
        it can call instead of the turn being lost.
        """
        unknown = type(tool) is BaseTool
        if tool.name not in self.agent.tools and not unknown:
            return None  # a tool of the host agent, not of the DAG
        turn = self._turn(tool_context)
        call_id = str(tool_context.function_call_id or "")
        if call_id in turn.engine_calls:
            return None
        runner = self._runner(tool_context, self.engine)
        refusal = runner.check_model_call(
            ToolCall(call_id, tool.name, dict(args)),
            turn.visible,
            self._state(tool_context),
            ended=turn.ended,
        )
        return None if refusal is None else dict(refusal.result)

    async def run_tool(self, name: str, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Run a DAG tool through the Slotgraph tool runner; its routing waits for :meth:`after_tool`."""
        turn = self._turn(tool_context)
        call_id = str(tool_context.function_call_id or "")
        origin: Literal["model", "engine"] = "engine" if call_id in turn.engine_calls else "model"
        deferred = _DeferredRouting(self.engine)
        start = self._state(tool_context)
        outcome = await self._runner(tool_context, deferred).run(
            ToolCall(call_id, name, args), start, origin=origin
        )
        # Readback tools change the state right here; a routed call's result waits for after_tool. Saving
        # an unchanged copy of `start` would undo the calls of the same response routed while this one ran.
        if outcome.sm != start:
            self._save(tool_context, outcome.sm)
        for routed_name, routed_args, routed_result in deferred.routed:  # fenced by the tool runner
            turn.deferred[call_id] = (routed_name, routed_args, routed_result, outcome.ended)
        if not deferred.routed and outcome.ended:
            turn.deferred[call_id] = (name, args, outcome.result, True)
        return outcome.result

    def after_tool(
        self, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, tool_response: Any
    ) -> dict[str, Any] | None:
        """Route the tool's result into the state; an ended session stops the ADK loop."""
        if tool.name not in self.agent.tools:
            return None
        turn = self._turn(tool_context)
        deferred = turn.deferred.pop(str(tool_context.function_call_id or ""), None)
        if deferred is None:
            return None
        name, routed_args, routed_result, ended = deferred
        if ended:
            turn.ended = True
            tool_context.actions.skip_summarization = True
        sm = self.engine.after_tool(
            self.agent.dag, self._state(tool_context), name, routed_args, routed_result
        )
        self._save(tool_context, sm)
        return None

    def after_model(self, callback_context: CallbackContext, llm_response: LlmResponse) -> LlmResponse | None:
        """Append the payloads the engine stashed after the model's last reply of the turn (one without
        function calls), at most once per turn — as the runtime does (slotgraph.runtime.payloads)."""
        turn = self._turn(callback_context)
        content = llm_response.content
        calls = any(p.function_call is not None for p in (content.parts or ())) if content else False
        final = not calls and not turn.delivered
        stash = turn.action.stash if turn.action is not None and final else ()
        events = stash_events(stash)
        if events:
            turn.delivered.add("turn")
        changed = False
        if events:
            parts = [dict(e.part) for e in events if hasattr(e, "part")]
            metadata = dict(llm_response.custom_metadata or {})
            metadata[METADATA_KEY] = {"preempted": False, "parts": parts}
            llm_response.custom_metadata = metadata
            changed = True
        if self._retry_held_fire(callback_context, turn, llm_response):
            changed = True
        return llm_response if changed else None

    def _retry_held_fire(self, context: Any, turn: _Turn, llm_response: LlmResponse) -> bool:
        """The engine once more when it held a task fire for setters the model then did not call.

        Slotgraph's loop does this (reason ``fire_held``) so the task fires this turn; here the engine's
        reply — its text and the task's function call — joins the model's response, which ADK then runs.
        """
        parts = list(llm_response.content.parts or []) if llm_response.content else []
        if turn.held_retried or turn.action is None or not turn.action.recheck_after_model:
            return False
        if any(part.function_call is not None for part in parts):
            return False
        turn.held_retried = True
        prep = prepare_call(
            engine=self.engine,
            dag=self.agent.dag,
            registry=self.agent.tools,
            sm=self._state(context),
            instruction=turn.instruction,
            last_user_text="",
            event_data=self.event_data,
            channel=self.channel,
            debug=self.debug,
        )
        turn.visible, turn.action = prep.visible, prep.action
        self._save(context, prep.sm)
        if not should_preempt(prep.action, conversation_length=turn.contents + 1):
            return False  # the engine wants the model again: it gets it on the next turn
        reply = self._engine_response(turn, prep.action)
        extra = list(reply.content.parts or []) if reply.content else []
        llm_response.content = types.Content(role="model", parts=[*parts, *extra])
        return True

    # -- wiring --------------------------------------------------------------------------------------------

    def tools(self) -> list[SlotgraphTool]:
        """The agent's tools (setters, executors, readback and built-ins) as ADK tools."""
        return [SlotgraphTool(tool, self) for tool in self.agent.tools]

    def install(self, llm_agent: LlmAgent) -> LlmAgent:
        """Add the DAG's tools and callbacks to an existing ``LlmAgent`` (its own callbacks run first)."""
        names = {getattr(t, "name", None) for t in llm_agent.tools}
        clash = sorted(n for n in self.agent.tools.names if n in names)
        if clash:
            raise SlotgraphRuntimeError(
                f"the ADK agent {llm_agent.name!r} already has tools named {', '.join(clash)}; rename "
                "them or remove them from the DAG's tools module"
            )
        llm_agent.tools = [*llm_agent.tools, *self.tools()]
        for attr, callback in (
            ("before_agent_callback", self.before_agent),
            ("after_agent_callback", self.after_agent),
            ("before_model_callback", self.before_model),
            ("after_model_callback", self.after_model),
            ("before_tool_callback", self.before_tool),
            ("after_tool_callback", self.after_tool),
        ):
            existing = getattr(llm_agent, attr)
            chain = [] if existing is None else list(existing) if isinstance(existing, list) else [existing]
            setattr(llm_agent, attr, [*chain, callback])
        return llm_agent


def _user_text(content: Any) -> str:
    parts = getattr(content, "parts", None) or []
    return "".join(p.text for p in parts if getattr(p, "text", None) and not getattr(p, "thought", False))


def _system_text(llm_request: Any) -> str:
    instruction = llm_request.config.system_instruction
    if instruction is None:
        return ""
    if isinstance(instruction, str):
        return instruction
    parts = getattr(instruction, "parts", None) or []
    return "\n".join(p.text for p in parts if getattr(p, "text", None))


def _hide_tools(llm_request: Any, hidden: set[str]) -> None:
    """Take hidden tools' declarations off the request; ``tools_dict`` keeps them so calls can be refused."""
    if not hidden:
        return
    kept = []
    for tool in llm_request.config.tools or []:
        declarations = getattr(tool, "function_declarations", None)
        if declarations:
            remaining = [d for d in declarations if d.name not in hidden]
            if not remaining:
                continue
            tool = tool.model_copy(update={"function_declarations": remaining})
        kept.append(tool)
    llm_request.config.tools = kept or None


# --- tools --------------------------------------------------------------------------------------------------


class SlotgraphTool(BaseTool):
    """A Slotgraph tool as an ADK tool: its schema as the declaration, run by the Slotgraph tool runner."""

    def __init__(self, tool: Tool, callbacks: SlotgraphCallbacks) -> None:
        super().__init__(name=tool.name, description=tool.schema.description)
        self.tool = tool
        self.callbacks = callbacks

    def _get_declaration(self) -> types.FunctionDeclaration:
        schema = dict(self.tool.schema.parameters) or {"type": "object", "properties": {}}
        return types.FunctionDeclaration(
            name=self.tool.name, description=self.tool.schema.description, parameters_json_schema=schema
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return await self.callbacks.run_tool(self.tool.name, dict(args), tool_context)


# --- Slotgraph models as ADK models -------------------------------------------------------------------------


def request_from_adk(llm_request: LlmRequest) -> ModelRequest:
    """An ADK ``LlmRequest`` as the Slotgraph model protocol's request."""
    messages: list[Message] = []
    for content in llm_request.contents:
        for part in content.parts or []:
            if part.function_call is not None:
                call = part.function_call
                tool_call = ToolCall(str(call.id or ""), str(call.name or ""), dict(call.args or {}))
                if messages and isinstance(messages[-1], AssistantToolCalls):
                    messages[-1] = AssistantToolCalls((*messages[-1].calls, tool_call))
                else:
                    messages.append(AssistantToolCalls((tool_call,)))
            elif part.function_response is not None:
                response = part.function_response
                messages.append(
                    ToolResultMessage(str(response.id or ""), str(response.name or ""), response.response)
                )
            elif part.text and not part.thought:
                role_message: Message = (
                    AssistantText(part.text) if content.role == "model" else UserMessage(part.text)
                )
                messages.append(role_message)
    tools: list[ToolSchema] = []
    for tool in llm_request.config.tools or []:
        for declaration in getattr(tool, "function_declarations", None) or []:
            schema = declaration.parameters_json_schema
            if schema is None and declaration.parameters is not None:
                schema = declaration.parameters.model_dump(mode="json", exclude_none=True)
            tools.append(ToolSchema(str(declaration.name), declaration.description or "", dict(schema or {})))
    return ModelRequest(_system_text(llm_request), tuple(messages), tuple(tools))


class SlotgraphLlm(BaseLlm):
    """Any Slotgraph model (``offline``, ``openai:...``, a ``ScriptedModel``) as an ADK model.

    ``SlotgraphLlm(model="offline", backend=OfflineModel())`` or ``SlotgraphLlm.of("offline")``.
    """

    backend: Any = None
    calls: int = 0

    @classmethod
    def of(cls, model: Model | str) -> SlotgraphLlm:
        if isinstance(model, str):
            from slotgraph.runtime.model_resolution import resolve_model

            return cls(model=model, backend=resolve_model(model))
        return cls(model=type(model).__name__, backend=model)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        response = await self.backend.generate(request_from_adk(llm_request))
        self.calls += 1
        parts = [types.Part(text=response.text)] if response.text else []
        for call in response.tool_calls:
            parts.append(
                types.Part(
                    function_call=types.FunctionCall(id=call.id or None, name=call.name, args=dict(call.args))
                )
            )
        usage = types.GenerateContentResponseUsageMetadata(
            prompt_token_count=response.usage.prompt_tokens,
            candidates_token_count=response.usage.completion_tokens,
            total_token_count=response.usage.total_tokens,
        )
        yield LlmResponse(content=types.Content(role="model", parts=parts), usage_metadata=usage)


# --- building an agent --------------------------------------------------------------------------------------


def slotgraph_agent(
    path: str | os.PathLike[str] | Agent,
    *,
    model: str | BaseLlm | Model | None = None,
    name: str | None = None,
    **callback_options: Any,
) -> LlmAgent:
    """An ADK ``LlmAgent`` for a Slotgraph agent directory: its instruction, tools and DAG callbacks.

    ``model`` is an ADK model name (``"gemini-2.5-flash"``) or ``BaseLlm``, or a Slotgraph model or spec
    (``"offline"``, ``"openai:gpt-4o-mini"``), run through :class:`SlotgraphLlm`; default: the agent's own
    ``model:``. ``callback_options`` go to :class:`SlotgraphCallbacks` (``seed``, ``clock``, ``channel``...).
    """
    agent = path if isinstance(path, Agent) else Agent.load(path)
    if model is None:
        model = agent.model if agent.model is not None else (agent.model_spec or "offline")
    adk_model: str | BaseLlm
    if isinstance(model, BaseLlm):
        adk_model = model
    elif isinstance(model, str) and ":" not in model and model != "offline":
        adk_model = model  # an ADK model name
    else:
        adk_model = SlotgraphLlm.of(model)
    instruction = agent.instruction

    def provide_instruction(_context: Any) -> str:  # a provider: ADK does not template it
        return instruction

    llm_agent = LlmAgent(
        name=_identifier(name or agent.name),
        model=adk_model,
        instruction=provide_instruction,
        description=f"Slotgraph agent {agent.name}",
    )
    return SlotgraphCallbacks(agent, **callback_options).install(llm_agent)


def _identifier(name: str) -> str:
    cleaned = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return cleaned if cleaned and not cleaned[0].isdigit() else f"agent_{cleaned}"
