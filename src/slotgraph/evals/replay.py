"""The replay model: plays the LLM from a turn's expected tool calls, so goldens run without an LLM.

Each time the runtime asks it, it returns the turn's expected tool calls that have not happened yet and are
visible in the request — all of them in one response — and otherwise plain text relaying the
``<system_directive>`` (what a faithful model would say), or a neutral question when there is none. A call
"has happened" when a call of that name whose arguments match the expected subset is in the conversation
since the turn's user message (the engine's own calls — a task fire, an auto-confirm — count). Each expected
call is issued at most once, so a refused or failing call cannot loop. A preempted turn never reaches the
model, so it calls nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from slotgraph.evals.matching import values_match
from slotgraph.runtime import (
    AssistantToolCalls,
    ModelRequest,
    ModelResponse,
    ToolCall,
    UserMessage,
)

__all__ = ["NEUTRAL_TEXT", "ReplayCall", "ReplayModel", "directive_text"]

NEUTRAL_TEXT = "How can I help you?"
_OPEN, _CLOSE = "<system_directive>", "</system_directive>"


@dataclass(frozen=True, slots=True)
class ReplayCall:
    """An expected model tool call: its name and the arguments the golden gives."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)


def directive_text(instruction: str) -> str | None:
    """The body of the last ``<system_directive>`` block of a system instruction, or None.

    Searched from the end: the protocol text before it mentions the tag in prose.
    """
    start = instruction.rfind(_OPEN)
    end = instruction.find(_CLOSE, start)
    if start < 0 or end < 0:
        return None
    body = instruction[start + len(_OPEN) : end].strip()
    return body or None


def _calls_this_turn(messages: Sequence[object]) -> list[ToolCall]:
    start = 0
    for index, message in enumerate(messages):
        if isinstance(message, UserMessage):
            start = index
    calls: list[ToolCall] = []
    for message in messages[start:]:
        if isinstance(message, AssistantToolCalls):
            calls.extend(message.calls)
    return calls


class ReplayModel:
    """Replays expected tool calls turn by turn; :meth:`begin_turn` gives it the next turn's calls."""

    def __init__(self) -> None:
        self._remaining: list[ReplayCall] = []
        self._issued = 0

    def begin_turn(self, calls: Sequence[ReplayCall]) -> None:
        self._remaining = list(calls)

    async def generate(self, request: ModelRequest) -> ModelResponse:
        happened = _calls_this_turn(request.messages)
        self._remaining = [
            want
            for want in self._remaining
            if not any(
                got.name == want.name and values_match(dict(want.args), dict(got.args)) for got in happened
            )
        ]
        visible = set(request.tool_names)
        now = [want for want in self._remaining if want.name in visible]
        if now:
            self._remaining = [want for want in self._remaining if want not in now]
            calls = []
            for want in now:
                self._issued += 1
                calls.append(ToolCall(f"replay_{self._issued}", want.name, dict(want.args)))
            return ModelResponse(tool_calls=tuple(calls))
        return ModelResponse(text=directive_text(request.system_instruction) or NEUTRAL_TEXT)
