"""LLM stages: one model call (plus bounded retries) that reads goal and notes and writes the channels.

The system instruction is the role's guidance plus the stage's ``instruction`` as the call's
``<system_directive>`` (the block in which the runtime hands a model the engine's message, so every backend
reads it the same way). One user message follows, the *user blob*: the goal (as ``key: value`` lines, or the
value of the stage's ``input`` expression), the notes so far, and the packed context of prefetch stages.
With an ``output_schema`` the model is also offered one tool, ``submit_<stage id>``, whose parameters are
that schema (structured output by function calling, which every backend — including the offline model —
speaks); a JSON object in the reply text is accepted too. An output that does not validate is answered with
what was wrong and asked again, at most ``max_retries`` more times; then the stage fails
(:class:`~slotgraph.workflow.errors.StageOutputError`).

What each role writes:

=====================  ==========================================================================
``classify``           notes += the text (or the JSON); ``slots[id]`` = the JSON object, if any
``synthesis``          as ``classify``, and the run's ``result`` = the JSON object, else the text
``extract``            ``slots[id]`` = the JSON object (an ``output_schema`` is required)
``query_formulation``  ``slots[id] = {"query": text}``; ``query`` is a call argument of later HTTP stages
=====================  ==========================================================================
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from slotgraph.models.protocol import (
    AssistantText,
    AssistantToolCalls,
    Message,
    Model,
    ModelRequest,
    ModelResponse,
    ToolResultMessage,
    ToolSchema,
    UserMessage,
)
from slotgraph.names import SYSTEM_DIRECTIVE, close_tag, open_tag
from slotgraph.workflow.config import LlmStageConfig
from slotgraph.workflow.errors import StageOutputError
from slotgraph.workflow.schemas import CompiledSchema, error_lines

__all__ = ["LlmOutcome", "packed_context", "run_llm_stage", "user_blob"]

_ROLE_GUIDANCE = {
    "classify": "Read the request and answer with your finding.",
    "extract": "Extract the requested fields from the request.",
    "synthesis": "Write the final answer for the request from the notes.",
    "query_formulation": "Write one search query for the request. Answer with the query only.",
}


@dataclass(frozen=True, slots=True)
class LlmOutcome:
    """What an LLM stage produced; the runner applies it to the channels."""

    slot: dict[str, Any] | None = None
    note: str | None = None
    result: Any = None
    attempts: int = 1
    problems: tuple[str, ...] = field(default_factory=tuple)
    """Validation problems of the rejected attempts, in order."""


def _lines(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


_WHOLE_GOAL = object()


def user_blob(
    goal: Mapping[str, Any], notes: Sequence[str], context: Mapping[str, Any], request: Any = _WHOLE_GOAL
) -> str:
    """The user message of an LLM stage: the request (by default the whole goal, one ``key: value`` line
    per key; else the value of the stage's ``input``), the notes, and prefetched context (by stage id)."""
    if request is _WHOLE_GOAL:
        parts = ["Request:"] + [f"{key}: {_lines(value)}" for key, value in goal.items()]
    else:
        parts = [_lines(request)]
    if notes:
        parts += ["", "Notes:"] + [f"- {note}" for note in notes]
    if context:
        parts += ["", "Context:", packed_context(context)]
    return "\n".join(parts)


def packed_context(context: Mapping[str, Any]) -> str:
    """Prefetched answers as text, one line per stage: ``[stage id] answer`` (JSON unless it is text)."""
    return "\n".join(f"[{key}] {_lines(value)}" for key, value in context.items())


def _parse_json_object(text: str | None) -> dict[str, Any] | None:
    if not text:
        return None
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _system(stage: LlmStageConfig, tool: str | None) -> str:
    parts = [_ROLE_GUIDANCE[stage.role]]
    if tool is not None:
        parts.append(f"Give your answer by calling the tool {tool} with the fields it describes.")
    if stage.instruction.strip():
        parts.append(f"{open_tag(SYSTEM_DIRECTIVE)}{stage.instruction.strip()}{close_tag(SYSTEM_DIRECTIVE)}")
    return "\n\n".join(parts)


class _Attempt:
    """One response judged against the stage's contract: a value, or the reason it is refused."""

    def __init__(self, stage: LlmStageConfig, schema: CompiledSchema | None, tool: str | None) -> None:
        self.stage, self.schema, self.tool = stage, schema, tool

    def judge(self, response: ModelResponse) -> tuple[dict[str, Any] | None, str | None, str | None]:
        """``(structured value or None, prose or None, problem or None)``."""
        calls = [c for c in response.tool_calls if c.name == self.tool]
        text = response.text.strip() if response.text and response.text.strip() else None
        value: dict[str, Any] | None = dict(calls[0].args) if calls else _parse_json_object(text)
        if self.stage.role == "query_formulation":
            query = value.get("query") if value is not None else text
            if not isinstance(query, str) or not query.strip():
                return None, None, "the answer must be a non-empty query text"
            return {"query": query.strip()}, None, None
        if self.schema is not None:
            if value is None:
                return None, None, f"no structured output: call {self.tool} with the fields of its schema"
            try:
                value = self.schema.validate(value)
            except ValidationError as err:
                return None, None, "the output does not match the schema: " + "; ".join(error_lines(err))
        if self.stage.role == "extract":
            return value, None, None
        if value is None and text is None:
            return None, None, "the answer is empty"
        prose = text if calls == [] and text is not None else json.dumps(value, ensure_ascii=False)
        return value, prose, None


async def run_llm_stage(
    stage: LlmStageConfig,
    *,
    model: Model,
    schema: CompiledSchema | None,
    goal: Mapping[str, Any],
    notes: Sequence[str],
    context: Mapping[str, Any],
    request: Any = _WHOLE_GOAL,
    metadata: Mapping[str, Any] | None = None,
) -> LlmOutcome:
    """Run one LLM stage to a valid output, or raise :class:`StageOutputError` after its retries."""
    tool = f"submit_{stage.id}" if schema is not None else None
    tools = (
        (ToolSchema(tool, f"Submit the output of stage {stage.id}.", dict(schema.source)),)
        if tool is not None and schema is not None
        else ()
    )
    messages: list[Message] = [UserMessage(user_blob(goal, notes, context, request))]
    judge = _Attempt(stage, schema, tool)
    problems: list[str] = []
    for attempt in range(1, stage.max_retries + 2):
        request = ModelRequest(_system(stage, tool), tuple(messages), tools, dict(metadata or {}))
        response = await model.generate(request)
        value, prose, problem = judge.judge(response)
        if problem is None:
            result = (value if value is not None else prose) if stage.role == "synthesis" else None
            return LlmOutcome(value, prose, result, attempt, tuple(problems))
        problems.append(problem)
        correction = f"That output was refused: {problem}. Answer again."
        if response.tool_calls:
            messages.append(AssistantToolCalls(tuple(response.tool_calls)))
            messages += [ToolResultMessage(c.id, c.name, {"error": correction}) for c in response.tool_calls]
        else:
            messages.append(AssistantText(response.text or ""))
            messages.append(UserMessage(correction))
    failure = StageOutputError(
        stage.id,
        f"no valid output after {stage.max_retries + 1} attempt(s): " + " | ".join(problems),
    )
    failure.detail = {"role": stage.role, "rejected": problems}  # the timeline keeps the rejected attempts
    failure.attempts = stage.max_retries + 1
    raise failure
