"""The test double of the model protocol: :class:`ScriptedModel` (re-exported by :mod:`slotgraph`).

A :class:`ScriptedModel` plays a list of :class:`ScriptedStep` responses, one per model call, and fails
loudly — showing the request it got — on a call beyond the script or a step whose expectation does not hold.
:meth:`ScriptedModel.assert_complete` fails when steps were left unused. Token usage is estimated at four
characters per token (:func:`estimate_prompt_tokens`), so benchmarks can compare prompt sizes.

A script can be written as JSON (``slotgraph chat --model scripted:FILE.json``)::

    [{"tool_calls": [{"name": "set_reservation_basics", "args": {"party_size": 4}}]},
     {"text": "Just to confirm, 4 guests?", "expect_tools": ["confirm_pending", "reject_pending"]}]
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from slotgraph.models.errors import ModelNotAvailableError, ScriptedModelError
from slotgraph.models.protocol import (
    AssistantText,
    AssistantToolCalls,
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

__all__ = ["ScriptedModel", "ScriptedStep", "call", "estimate_prompt_tokens", "render_request"]

CHARS_PER_TOKEN = 4


def _chars(obj: Any) -> int:
    return len(json.dumps(obj, default=str, ensure_ascii=False))


def estimate_prompt_tokens(request: ModelRequest) -> int:
    """Instruction + tool schemas + conversation, in characters / 4 (a rough, backend-neutral estimate)."""
    chars = len(request.system_instruction) + sum(_chars(t.as_json()) for t in request.tools)
    for message in request.messages:
        if isinstance(message, UserMessage | AssistantText):
            chars += len(message.text)
        elif isinstance(message, AssistantToolCalls):
            chars += sum(_chars({"name": c.name, "args": dict(c.args)}) for c in message.calls)
        else:
            chars += _chars(message.result)
    return chars // CHARS_PER_TOKEN


@dataclass(frozen=True, slots=True)
class ScriptedStep:
    """One scripted model response plus optional checks on the request that leads to it.

    ``expect_tools``: the exact set of visible tool names. ``expect_hidden``: names that must NOT be
    visible. ``expect_in_instruction``: substrings the system instruction must contain. ``check``: a
    predicate on the request (return False or raise to fail).
    """

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    expect_tools: Collection[str] | None = None
    expect_hidden: Collection[str] = ()
    expect_in_instruction: Collection[str] = ()
    check: Callable[[ModelRequest], bool | None] | None = None
    label: str = ""

    @classmethod
    def from_json(cls, data: Mapping[str, Any], index: int = 0) -> ScriptedStep:
        known = {"text", "tool_calls", "expect_tools", "expect_hidden", "expect_in_instruction", "label"}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"step {index}: unknown keys {sorted(unknown)} — allowed: {sorted(known)}")
        calls = tuple(
            ToolCall(str(c.get("id") or f"call_{index}_{n}"), str(c["name"]), dict(c.get("args") or {}))
            for n, c in enumerate(data.get("tool_calls") or [])
        )
        expect = data.get("expect_tools")
        return cls(
            text=data.get("text"),
            tool_calls=calls,
            expect_tools=frozenset(expect) if expect is not None else None,
            expect_hidden=frozenset(data.get("expect_hidden") or ()),
            expect_in_instruction=tuple(data.get("expect_in_instruction") or ()),
            label=str(data.get("label") or ""),
        )


def call(name: str, /, **args: Any) -> ToolCall:
    """A tool call for a script (its id is assigned when the step is played)."""
    return ToolCall("", name, args)


def render_request(request: ModelRequest, *, instruction_chars: int = 1200) -> str:
    """A readable dump of a request for failure messages."""
    instruction = request.system_instruction
    if len(instruction) > instruction_chars:
        instruction = "…" + instruction[-instruction_chars:]
    lines = [f"visible tools: {sorted(request.tool_names)}", "messages:"]
    for message in request.messages:
        if isinstance(message, UserMessage):
            lines.append(f"  user: {message.text!r}" + (f" (event {message.event})" if message.event else ""))
        elif isinstance(message, AssistantText):
            lines.append(f"  assistant: {message.text!r}")
        elif isinstance(message, AssistantToolCalls):
            calls = ", ".join(f"{c.name}({json.dumps(dict(c.args), default=str)})" for c in message.calls)
            lines.append(f"  assistant calls: {calls}")
        elif isinstance(message, ToolResultMessage):
            lines.append(f"  tool {message.name}: {json.dumps(message.result, default=str)}")
    lines.append("system instruction (tail):")
    lines.append(instruction)
    return "\n".join(lines)


@dataclass
class ScriptedModel:
    """A model that plays a script. Not shared between sessions (it records the requests it got)."""

    steps: Sequence[ScriptedStep]
    requests: list[ModelRequest] = field(default_factory=list)
    _next: int = 0

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedModel:
        """Load a JSON list of steps (see the module docstring)."""
        file = Path(path)
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as err:
            raise ModelNotAvailableError(f"{file}: cannot read the model script ({err})") from None
        if not isinstance(data, list):
            raise ModelNotAvailableError(f"{file}: a model script is a JSON list of steps")
        try:
            return cls([ScriptedStep.from_json(step, i) for i, step in enumerate(data)])
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            raise ModelNotAvailableError(f"{file}: invalid model script: {err}") from None

    @property
    def remaining(self) -> int:
        return len(self.steps) - self._next

    async def generate(self, request: ModelRequest) -> ModelResponse:
        index = self._next
        self.requests.append(request)
        if index >= len(self.steps):
            raise ScriptedModelError(
                f"ScriptedModel: unexpected model call #{index + 1} (the script has {len(self.steps)} "
                f"steps)\n{render_request(request)}"
            )
        step = self.steps[index]
        self._next += 1
        self._check(step, index, request)
        calls = tuple(
            ToolCall(c.id or f"call_{index}_{n}", c.name, dict(c.args)) for n, c in enumerate(step.tool_calls)
        )
        completion = len(step.text or "") + sum(_chars({"name": c.name, "args": dict(c.args)}) for c in calls)
        usage = Usage(estimate_prompt_tokens(request), completion // CHARS_PER_TOKEN)
        return ModelResponse(text=step.text, tool_calls=calls, usage=usage)

    def _check(self, step: ScriptedStep, index: int, request: ModelRequest) -> None:
        name = f"step {index + 1}" + (f" ({step.label})" if step.label else "")
        visible = set(request.tool_names)
        problems: list[str] = []
        expected = set(step.expect_tools or ())
        if step.expect_tools is not None and visible != expected:
            problems.append(
                f"visible tools {sorted(visible)} != expected {sorted(expected)} "
                f"(missing {sorted(expected - visible)}, extra {sorted(visible - expected)})"
            )
        shown = visible & set(step.expect_hidden)
        if shown:
            problems.append(f"tools {sorted(shown)} should be hidden")
        for text in step.expect_in_instruction:
            if text not in request.system_instruction:
                problems.append(f"the system instruction lacks {text!r}")
        if step.check is not None and step.check(request) is False:
            problems.append("the step's check returned False")
        if problems:
            raise ScriptedModelError(
                f"ScriptedModel {name}: " + "; ".join(problems) + "\n" + render_request(request)
            )

    def assert_complete(self) -> None:
        """Fail when script steps were not played."""
        if self._next < len(self.steps):
            left = [
                s.label or (s.text or ", ".join(c.name for c in s.tool_calls))
                for s in self.steps[self._next :]
            ]
            raise ScriptedModelError(f"ScriptedModel: {self.remaining} step(s) not consumed: {left}")
