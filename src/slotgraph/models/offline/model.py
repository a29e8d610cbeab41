"""``OfflineModel``: the runtime's model protocol on top of :func:`~slotgraph.models.offline.plan_turn`.

On each call it looks at the last message of the conversation:

- a user message with text → plan setter calls from it (or relay the directive when nothing is found);
- the results of its own calls on that message → read the message again for the setters that have just
  become visible (``set_intent`` ran, so the search's setters appear: "a salon in Redwood City" also fills
  the city), as an LLM would: the message is planned again over every visible tool, without the directive
  (so only unambiguous values are taken), and only calls to tools not yet called in this turn are made;
- anything else (an event turn with no text, the model's own text) → no tool calls, only a reply relaying
  the ``<system_directive>`` — or a neutral question when there is none.

A user message the visible setters find nothing in is offered to a visible *routing tool* (one parameter
enumerating described targets, as multi-agent apps advertise ``transfer_to_agent``): when it shares more
words with one target's description than with any other (:mod:`~slotgraph.models.offline.routing`), the
model makes that routing call alone and says nothing — the agent it hands over to answers. What the current
agent can use of a message comes first.

Planning is CPU work (a fraction of a millisecond for a sentence, linear in the message's length): it always
runs in a worker thread, so however long a message is, a server's other sessions go on. Each model object
reads a tool's schema once (:class:`ToolViews`) and again only when its parameters change; nothing is kept
across model objects.

The session clock for relative dates comes from ``request.metadata["now"]`` (a ``datetime`` or an ISO
string) when the runtime provides it, else from the model's own ``clock``. ``metadata["region"]`` overrides
the default phone region.
"""

from __future__ import annotations

import asyncio
import copy
import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, Final

from slotgraph.models.offline.directive import without_directive
from slotgraph.models.offline.planner import plan_turn, relay_text
from slotgraph.models.offline.routing import route
from slotgraph.models.offline.schema import Setter, read_setters
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
from slotgraph.names import READBACK_TOOLS

__all__ = ["OfflineModel", "ToolViews"]

_VIEWS_KEPT: Final = 4096


class ToolViews:
    """The tools a model object has read: per tool — its name, description and parameters object (by
    ``id``; the schema that was read is kept, so the id is not reused) —, a copy of its parameters when it
    was read, its JSON and its setter. Keyed by the parameters object rather than the :class:`ToolSchema`,
    so a host that wraps the same parameters in a new schema per call (the gate layer of an agent with
    logic does) has them read once too. Held by one :class:`OfflineModel`: nothing is shared across them."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, str, int], tuple[ToolSchema, Any, dict[str, Any], Setter]] = {}

    def read(self, tools: Sequence[ToolSchema]) -> tuple[list[dict[str, Any]], tuple[Setter, ...]]:
        """The tools as JSON (what :func:`plan_turn` reads) and as setters, each read once.

        An agent offers the same tools on every call; a tool seen before is reused while its parameters
        are equal to what was read (a mapping changed in place is read afresh). The JSON is shared between
        calls: the planner only reads it."""
        jsons: list[dict[str, Any]] = []
        setters: list[Setter] = []
        for tool in tools:
            key = (tool.name, tool.description, id(tool.parameters))
            kept = self._kept.get(key)
            if kept is None or kept[0].parameters is not tool.parameters or kept[1] != tool.parameters:
                as_json = tool.as_json()
                (setter,) = read_setters([as_json])
                try:
                    snapshot = copy.deepcopy(tool.parameters)
                except Exception:  # an odd mapping that cannot be copied: read it on every call
                    jsons.append(as_json)
                    setters.append(setter)
                    continue
                if len(self._kept) >= _VIEWS_KEPT:
                    self._kept.clear()
                kept = self._kept[key] = (tool, snapshot, as_json, setter)
            jsons.append(kept[2])
            setters.append(kept[3])
        return jsons, tuple(setters)


def _system_now() -> dt.datetime:
    return dt.datetime.now().astimezone()


def _now_from(metadata: Mapping[str, Any], clock: Callable[[], dt.datetime]) -> dt.datetime:
    value = metadata.get("now")
    if isinstance(value, dt.datetime):
        return value
    if isinstance(value, str):
        try:
            return dt.datetime.fromisoformat(value)
        except ValueError:
            pass
    return clock()


class OfflineModel:
    """The embedded default model: no network, no weights, deterministic (see ``docs/offline-model.md``)."""

    def __init__(self, clock: Callable[[], dt.datetime] | None = None, *, region: str = "US") -> None:
        self._clock = clock or _system_now
        self._region = region
        self._views = ToolViews()

    async def generate(self, request: ModelRequest) -> ModelResponse:
        last = request.messages[-1] if request.messages else None
        user_text = last.text if isinstance(last, UserMessage) and last.text.strip() else None
        instruction = request.system_instruction
        called: set[str] = set()
        again = _after_own_calls(request.messages)
        tools, setters = self._views.read(request.tools)
        already = sum(len(m.calls) for m in request.messages if isinstance(m, AssistantToolCalls))
        fresh = user_text
        if user_text is None and again is not None:
            user_text, called = again
            instruction = without_directive(instruction)
        plan_now = partial(
            plan_turn,
            tools,
            system_instruction=instruction,
            user_text=user_text,
            now=_now_from(request.metadata, self._clock),
            region=str(request.metadata.get("region") or self._region),
            agent_said=_agent_said(request.messages),
            setters=setters,
            given=_given_before(request.messages),
        )
        plan = await asyncio.to_thread(plan_now)  # CPU work off the event loop: other sessions go on
        routed = route(tools, fresh) if fresh is not None and not plan.tool_calls else None
        if routed is not None:  # the message is for another agent: hand over, say nothing
            return ModelResponse(tool_calls=(ToolCall(f"offline-{already + 1}", routed[0], routed[1]),))
        planned = [(name, args) for name, args in plan.tool_calls if name not in called]
        calls = tuple(
            ToolCall(id=f"offline-{already + index + 1}", name=name, args=args)
            for index, (name, args) in enumerate(planned)
        )
        if again is not None and not calls:
            return ModelResponse(text=relay_text(request.system_instruction))
        return ModelResponse(text=plan.text, tool_calls=calls, no_call_reason=plan.no_call_reason)


def _agent_said(messages: tuple[Message, ...], limit: int = 40) -> tuple[str, ...]:
    """What the user was last shown, newest first: the agent's messages and the plain-text fields of the
    results of tools that look something up (an offer a search or "other options" tool returned)."""
    texts: list[str] = []
    for message in reversed(messages):
        if isinstance(message, AssistantText) and message.text:
            texts.append(message.text)
        elif isinstance(message, ToolResultMessage) and isinstance(message.result, Mapping):
            if message.name.startswith("set_") or message.name in READBACK_TOOLS:
                continue
            fields = [v for v in message.result.values() if isinstance(v, str) and v.strip()]
            if fields:
                texts.append(". ".join(fields) + ".")
        if len(texts) >= limit:
            break
    return tuple(texts)


def _given_before(messages: tuple[Message, ...]) -> frozenset[str]:
    """The tools called on the conversation's earlier user messages (not the last one's own calls)."""
    last_user = max((i for i, m in enumerate(messages) if isinstance(m, UserMessage)), default=-1)
    return frozenset(
        call.name for m in messages[:last_user] if isinstance(m, AssistantToolCalls) for call in m.calls
    )


def _after_own_calls(messages: tuple[Message, ...]) -> tuple[str, set[str]] | None:
    """When the conversation ends with this turn's tool calls and their results: the user's text and the
    tools already called since it; else None."""
    called: set[str] = set()
    for message in reversed(messages):
        if isinstance(message, AssistantToolCalls):
            called.update(call.name for call in message.calls)
        elif isinstance(message, ToolResultMessage):
            continue
        elif isinstance(message, UserMessage):
            if called and message.text.strip() and message.event is None:
                return message.text, called
            return None
        else:
            return None
    return None
