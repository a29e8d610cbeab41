"""The spans: a turn, each engine invocation, each model call (GenAI conventions) and each tool call.

Every span carries ``session.id`` (and the GenAI ``gen_ai.conversation.id``) so a backend can gather a
conversation. Nesting follows the turn: the turn span is current while the turn runs, so the engine, model
and tool spans are its children — and the turn span is the child of whatever span was current when the turn
started (e.g. the incoming request's, see :mod:`slotgraph.tracing.propagation`).

- **turn** ``invoke_agent {agent}``: ``gen_ai.operation.name=invoke_agent``, ``gen_ai.agent.name``,
  ``slotgraph.turn.number`` / ``.status`` / ``.model_calls`` / ``.preempted`` / ``.refusals`` / ``.ended``,
  ``gen_ai.usage.input_tokens`` / ``output_tokens`` (the turn's sum);
- **engine invocation** ``slotgraph.engine {phase}``: ``slotgraph.engine.phase``, ``.reason``,
  ``.hidden_tools``, ``.preempt``, ``.function_call``, ``.user_turn`` (the invocation saw the user's text);
- **model call** ``chat {model}`` (kind client): ``gen_ai.operation.name=chat``, ``gen_ai.provider.name``,
  ``gen_ai.request.model``, ``gen_ai.usage.input_tokens`` / ``output_tokens``, ``slotgraph.model.tools``
  (the visible tools), ``slotgraph.model.tool_calls``;
- **tool call** ``execute_tool {tool}``: ``gen_ai.operation.name=execute_tool``, ``gen_ai.tool.name``,
  ``gen_ai.tool.call.arguments`` / ``gen_ai.tool.call.result`` — ``[redacted]`` unless content capture is
  on. The readback tools (``confirm_pending``, ``reject_pending``), which the engine routes, are tool spans
  too.

A failure (a model error, a raising tool) is recorded on its span (status error, the exception event,
``error.type``) and propagates unchanged.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from slotgraph.models.protocol import Model, ModelRequest, ModelResponse, UserMessage
from slotgraph.names import CONFIRM_PENDING, REJECT_PENDING
from slotgraph.runtime.engine_port import Engine, EngineResult
from slotgraph.runtime.events import TurnResult
from slotgraph.runtime.tools import Tool, ToolContext, ToolRegistry
from slotgraph.tracing.settings import capture_content, configure_from_env, import_otel, tracing_requested

__all__ = ["REDACTED", "SessionTracer"]

REDACTED = "[redacted]"
_CONTENT_LIMIT = 4000


def _json(value: Any) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= _CONTENT_LIMIT else text[:_CONTENT_LIMIT] + "…"


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("slotgraph")
    except Exception:
        return "unknown"


class SessionTracer:
    """A :class:`~slotgraph.runtime.tracing_port.TurnTracer` that emits OpenTelemetry spans.

    ``tracer_provider`` defaults to the global one; ``capture_content`` puts tool arguments and results in
    the spans instead of ``[redacted]``.
    """

    def __init__(
        self, tracer_provider: Any = None, *, capture_content: bool = False, agent_name: str = "agent"
    ) -> None:
        trace = import_otel()
        self._trace = trace
        provider = tracer_provider if tracer_provider is not None else trace.get_tracer_provider()
        self.tracer = provider.get_tracer("slotgraph", _version())
        self.capture_content = capture_content
        self.agent_name = agent_name

    @classmethod
    def from_env(cls, *, agent_name: str, env: Mapping[str, str] | None = None) -> SessionTracer:
        """The tracer ``SLOTGRAPH_OTEL=1`` asks for (installing the OTLP exporter when none is configured)."""
        environ = os.environ if env is None else env
        tracing_requested(environ)  # a malformed switch is refused, not read as "on"
        return cls(configure_from_env(), capture_content=capture_content(environ), agent_name=agent_name)

    def common(self, session_id: str) -> dict[str, Any]:
        return {"session.id": session_id, "gen_ai.conversation.id": session_id}

    def content(self, value: Any) -> str:
        return _json(value) if self.capture_content else REDACTED

    @contextmanager
    def span(self, name: str, attributes: Mapping[str, Any], *, client: bool = False) -> Iterator[Any]:
        kind = self._trace.SpanKind.CLIENT if client else self._trace.SpanKind.INTERNAL
        with self.tracer.start_as_current_span(name, kind=kind, attributes=dict(attributes)) as span:
            try:
                yield span
            except BaseException as err:
                span.set_attribute("error.type", type(err).__name__)
                raise

    # -- TurnTracer -----------------------------------------------------------------------------------------

    @contextmanager
    def turn(self, *, session_id: str, number: int, user: UserMessage) -> Iterator[_TurnScope]:
        attributes: dict[str, Any] = {
            **self.common(session_id),
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": self.agent_name,
            "slotgraph.turn.number": number,
        }
        if user.event:
            attributes["slotgraph.turn.event"] = user.event
        with self.span(f"invoke_agent {self.agent_name}", attributes) as span:
            yield _TurnScope(span)

    def wrap_model(self, model: Model, *, session_id: str) -> Model:
        return _TracedModel(model, self, session_id)

    def wrap_engine(self, engine: Engine, *, session_id: str) -> Engine:
        return _TracedEngine(engine, self, session_id)

    def wrap_tools(self, tools: ToolRegistry, *, session_id: str) -> ToolRegistry:
        return ToolRegistry(_traced_tool(tool, self, session_id) for tool in tools)


@dataclass(frozen=True)
class _TurnScope:
    span: Any

    def finished(self, result: TurnResult) -> None:
        self.span.set_attributes(
            {
                "slotgraph.turn.status": result.status,
                "slotgraph.turn.model_calls": result.model_calls,
                "slotgraph.turn.preempted": result.preempted,
                "slotgraph.turn.refusals": result.refusals,
                "slotgraph.turn.ended": result.ended,
                "gen_ai.usage.input_tokens": result.usage.prompt_tokens,
                "gen_ai.usage.output_tokens": result.usage.completion_tokens,
            }
        )


class _TracedModel:
    """A model whose calls are ``chat`` spans."""

    def __init__(self, inner: Model, tracer: SessionTracer, session_id: str) -> None:
        self.inner = inner
        self._tracer = tracer
        self._session_id = session_id
        self.model_name = str(getattr(inner, "model", None) or type(inner).__name__)
        self.provider = str(getattr(inner, "provider", None) or type(inner).__name__.lower())

    async def generate(self, request: ModelRequest) -> ModelResponse:
        attributes = {
            **self._tracer.common(self._session_id),
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": self.provider,
            "gen_ai.request.model": self.model_name,
            "slotgraph.model.tools": list(request.tool_names),
        }
        with self._tracer.span(f"chat {self.model_name}", attributes, client=True) as span:
            response = await self.inner.generate(request)
            if isinstance(response, ModelResponse):
                span.set_attributes(
                    {
                        "gen_ai.usage.input_tokens": response.usage.prompt_tokens,
                        "gen_ai.usage.output_tokens": response.usage.completion_tokens,
                        "slotgraph.model.tool_calls": [call.name for call in response.tool_calls],
                    }
                )
            return response


class _TracedEngine:
    """An engine whose invocations are spans; the readback tools it routes are tool spans."""

    def __init__(self, inner: Engine, tracer: SessionTracer, session_id: str) -> None:
        self.inner = inner
        self._tracer = tracer
        self._session_id = session_id

    def begin_turn(self, dag: Any, sm: Mapping[str, Any]) -> dict[str, Any]:
        return self.inner.begin_turn(dag, sm)

    def invoke(
        self,
        dag: Any,
        sm: Mapping[str, Any],
        *,
        last_user_text: str,
        event_data: Mapping[str, Any] | None,
        channel: str | None,
        debug: bool,
        **extra: Any,
    ) -> EngineResult:
        attributes = {
            **self._tracer.common(self._session_id),
            "slotgraph.engine.user_turn": bool(last_user_text),
        }
        with self._tracer.span("slotgraph.engine", attributes) as span:
            outcome = self.inner.invoke(
                dag,
                sm,
                last_user_text=last_user_text,
                event_data=event_data,
                channel=channel,
                debug=debug,
                **extra,
            )
            action = outcome.action
            phase = action.phase
            call = action.function_call
            span.update_name(f"slotgraph.engine {phase}")
            span.set_attributes(
                {
                    "slotgraph.engine.phase": phase,
                    "slotgraph.engine.reason": str(action.reason),
                    "slotgraph.engine.hidden_tools": sorted(action.hidden_tools),
                    "slotgraph.engine.preempt": action.preempt,
                    "slotgraph.engine.function_call": call.name if call is not None else "",
                }
            )
            return outcome

    def after_tool(
        self, dag: Any, sm: Mapping[str, Any], tool_name: str, args: Mapping[str, Any], result: Any
    ) -> dict[str, Any]:
        return self.inner.after_tool(dag, sm, tool_name, args, result)

    def _readback(self, name: str) -> Any:
        attributes = {
            **self._tracer.common(self._session_id),
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.type": "function",
        }
        return self._tracer.span(f"execute_tool {name}", attributes)

    def confirm_pending(
        self, dag: Any, sm: Mapping[str, Any], *, slots: Collection[str] | None = None
    ) -> dict[str, Any]:
        with self._readback(CONFIRM_PENDING):
            return self.inner.confirm_pending(dag, sm, slots=slots)

    def reject_pending(
        self, dag: Any, sm: Mapping[str, Any], *, slots: Collection[str] | None = None
    ) -> dict[str, Any]:
        with self._readback(REJECT_PENDING):
            return self.inner.reject_pending(dag, sm, slots=slots)


@dataclass(frozen=True, slots=True)
class _TracedTool(Tool):
    """A tool whose calls are ``execute_tool`` spans; checks and calls go to the wrapped tool."""

    inner: Tool | None = None
    tracer: SessionTracer | None = None
    session_id: str = ""

    def __post_init__(self) -> None:  # the wrapped tool's threads and abandoned calls, not a copy per session
        assert self.inner is not None
        object.__setattr__(self, "threads", self.inner.threads)
        object.__setattr__(self, "abandoned", self.inner.abandoned)

    def check_args(self, args: Mapping[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
        assert self.inner is not None
        return self.inner.check_args(args)

    async def invoke(self, args: Mapping[str, Any], context: ToolContext | None = None) -> Any:
        assert self.inner is not None and self.tracer is not None
        attributes = {
            **self.tracer.common(self.session_id),
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": self.name,
            "gen_ai.tool.type": "function",
            "gen_ai.tool.call.arguments": self.tracer.content(dict(args)),
        }
        with self.tracer.span(f"execute_tool {self.name}", attributes) as span:
            result = await self.inner.invoke(args, context)
            span.set_attribute("gen_ai.tool.call.result", self.tracer.content(result))
            return result


def _traced_tool(tool: Tool, tracer: SessionTracer, session_id: str) -> Tool:
    if tool.kind != "function":
        return tool  # readback tools are routed by the engine (traced there)
    return _TracedTool(
        tool.name,
        tool.fn,
        tool.schema,
        tool.injected,
        tool.validator,
        tool.kind,
        inner=tool,
        tracer=tracer,
        session_id=session_id,
    )
