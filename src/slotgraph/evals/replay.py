"""The replay model: plays the LLM from a turn's expected tool calls, so goldens run without an LLM.

Each time the runtime asks it, it returns the turn's expected tool calls that have not happened yet and are
visible in the request — all of them in one response — and otherwise plain text relaying the
``<system_directive>`` (what a faithful model would say), or a neutral question when there is none. A call
"has happened" when a call of that name whose arguments match the expected subset is in the conversation
since the turn's user message (the engine's own calls — a task fire, an auto-confirm — count). Each expected
call is issued at most once, so a refused or failing call cannot loop. A preempted turn never reaches the
model, so it calls nothing.

**Completing arguments.** A golden may list a call without the arguments the tool requires
(``{"tool": "set_pain_level"}``). Before issuing it, each missing *required* parameter (from the tool's schema
in the request) is filled from the turn's own expectations — an expected ``pending``/``filled``/``deferred``
value whose slot name equals the parameter or ends with ``_<parameter>`` (``pain_level`` for ``level``) —
and, when exactly one is still missing, from the user's text (the whole text for a string, its first number
for a number). Every completed argument is recorded in :attr:`ReplayModel.guesses`, which the runner adds to
the turn's note, so a report says where the replay had to guess.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from slotgraph.evals.matching import values_match
from slotgraph.names import SYSTEM_DIRECTIVE, close_tag, open_tag
from slotgraph.runtime import (
    AssistantToolCalls,
    ModelRequest,
    ModelResponse,
    ToolCall,
    UserMessage,
)

__all__ = ["NEUTRAL_TEXT", "ReplayCall", "ReplayModel", "directive_text"]

NEUTRAL_TEXT = "How can I help you?"
_OPEN, _CLOSE = open_tag(SYSTEM_DIRECTIVE), close_tag(SYSTEM_DIRECTIVE)


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


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _user_text(messages: Sequence[object]) -> str:
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            return str(message.text or "")
    return ""


def _from_hints(param: str, hints: Mapping[str, Any]) -> tuple[bool, Any, str]:
    if param in hints:
        return True, hints[param], param
    close = [name for name in hints if name.endswith(f"_{param}") or param.endswith(f"_{name}")]
    if len(close) == 1:
        return True, hints[close[0]], close[0]
    return False, None, ""


class ReplayModel:
    """Replays expected tool calls turn by turn; :meth:`begin_turn` gives it the next turn's calls."""

    def __init__(self) -> None:
        self._remaining: list[ReplayCall] = []
        self._issued = 0
        self._hints: dict[str, Any] = {}
        self.guesses: list[str] = []
        """Arguments this turn's calls were completed with (``tool.param = value (from ...)``)."""

    def begin_turn(self, calls: Sequence[ReplayCall], hints: Mapping[str, Any] | None = None) -> None:
        """The turn's expected calls, and slot values its expectations name (to complete arguments)."""
        self._remaining = list(calls)
        self._hints = dict(hints or {})
        self.guesses = []

    def _complete(self, want: ReplayCall, request: ModelRequest) -> dict[str, Any]:
        args = dict(want.args)
        schema = next((t.parameters for t in request.tools if t.name == want.name), {})
        properties = schema.get("properties") or {}
        missing = [p for p in schema.get("required") or [] if p not in args]
        still: list[str] = []
        for param in missing:
            found, value, source = _from_hints(param, self._hints)
            if found:
                args[param] = value
                self.guesses.append(f"{want.name}.{param} = {value!r} (from the expected {source})")
            else:
                still.append(param)
        text = _user_text(request.messages).strip()
        if len(still) == 1 and text:
            param = still[0]
            kind = (properties.get(param) or {}).get("type")
            guess: Any = None
            if kind == "string":
                guess = text
            elif kind in ("integer", "number"):
                match = _NUMBER.search(text)
                if match is not None:
                    number = float(match.group(0))
                    guess = int(number) if kind == "integer" and number.is_integer() else number
            if guess is not None:
                args[param] = guess
                self.guesses.append(f"{want.name}.{param} = {guess!r} (guessed from the user's text)")
        return args

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
                calls.append(ToolCall(f"replay_{self._issued}", want.name, self._complete(want, request)))
            return ModelResponse(tool_calls=tuple(calls))
        return ModelResponse(text=directive_text(request.system_instruction) or NEUTRAL_TEXT)
