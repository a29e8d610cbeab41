"""Tool gates: per-tool availability, bound arguments, result capture and progress messages (pure).

An agent's ``tool_logic:`` compiles once into :class:`CompiledToolLogic` values; a session's
:class:`ToolGates` applies them against its :class:`~slotgraph.logic.variables.VariableStore`. The host (the
runtime's tool runner) asks, for every model or logic call of a gated tool, in this order:

1. :meth:`ToolGates.closed` — ``available_when`` false, or failing to evaluate (gates fail **closed**):
   a :class:`GateRefusal` whose message is the tool's ``unavailable_message``. The host also leaves closed
   tools out of the tools it offers the model (:meth:`ToolGates.hidden`).
2. :meth:`ToolGates.bind` — the final arguments: ``bind`` parameters take their literal or variable value
   (a bound value beats one the model supplied; an unset variable refuses the call — a write never runs
   without its verified identifiers), ``merge_bind`` objects are the model's object with the application's
   keys on top (shallow; a non-object on either side refuses the call).
3. After the tool ran: :meth:`ToolGates.capture` — ``$.path`` projections of the result into variables
   (``None`` never overwrites; a refused write is reported, not raised).

:meth:`ToolGates.advertised` removes bound parameters from the JSON Schema the model sees. Nothing here
raises into a turn: every problem is a :class:`GateRefusal` (a tool result the model can recover from) or a
reported capture problem.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from slotgraph.config.logic import SafetyConfig
from slotgraph.config.tool_logic import BindSource, ToolLogicConfig
from slotgraph.expr import ExpressionError, extract_output_path
from slotgraph.logic.conditions import (
    CompiledCondition,
    Compose,
    JudgeCondition,
    Judging,
    compile_condition,
    judge_prompt,
)
from slotgraph.logic.errors import VariableWriteError
from slotgraph.logic.safety import SafetyPolicy, check_safety, resolve_safety
from slotgraph.logic.variables import VariableStore

__all__ = [
    "DEFAULT_UNAVAILABLE",
    "CompiledToolLogic",
    "GateReason",
    "GateRefusal",
    "ToolGates",
    "compile_tool_logic",
]

logger = logging.getLogger("slotgraph.logic")

DEFAULT_UNAVAILABLE: Final = "{tool} is not available right now."

GateReason = Literal["gate_closed", "bind_unresolved", "merge_bind_refused", "safety_refused"]


@dataclass(frozen=True, slots=True)
class GateRefusal:
    """A gate refused a call: the reason and the message the model reads as the tool result."""

    reason: GateReason
    message: str


@dataclass(frozen=True, slots=True)
class CompiledToolLogic:
    """One tool's ``tool_logic`` entry with its condition compiled."""

    tool: str
    config: ToolLogicConfig
    available_when: CompiledCondition | None = None
    safety: SafetyPolicy | None = None
    """The safety check of the call's text arguments (``safety:``), resolved against the agent's profiles."""

    @property
    def unavailable_message(self) -> str:
        return self.config.unavailable_message or DEFAULT_UNAVAILABLE.format(tool=self.tool)

    @property
    def bound(self) -> frozenset[str]:
        """The parameters the model does not see (``bind``)."""
        return frozenset(self.config.bind)


def compile_tool_logic(
    entries: Mapping[str, ToolLogicConfig], safety: SafetyConfig | None = None
) -> dict[str, CompiledToolLogic]:
    """Compile ``tool_logic:``; a bad expression raises ExpressionSyntaxError, a safety check without its
    profile ValueError (validation reports both first)."""
    out: dict[str, CompiledToolLogic] = {}
    for tool, config in entries.items():
        condition = compile_condition(config.available_when) if config.available_when else None
        policy = resolve_safety(safety, config.safety) if config.safety is not None else None
        out[tool] = CompiledToolLogic(tool, config, condition, policy)
    return out


def _gate_prompt(tool: str) -> Compose:
    """The tool-gate call site's judge prompt."""
    return lambda prompt: judge_prompt(
        prompt,
        f"You decide whether the assistant may use the tool {tool!r} now, from the person's latest message "
        "(the user message).",
        "it may",
        "it may not",
    )


def _missing(value: Any) -> bool:
    return value is None


class ToolGates:
    """The gates of one session (see the module docstring)."""

    def __init__(
        self, logic: Mapping[str, CompiledToolLogic], store: VariableStore, judging: Judging | None = None
    ) -> None:
        self.logic = dict(logic)
        self.store = store
        self.judging = judging or Judging()
        """The judge and the person's latest message, for ``available_when`` conditions an LLM decides."""
        self.judged: dict[str, bool] = {}
        """This turn's verdicts of the LLM-judged gates (:meth:`judge_turn`), by tool."""

    def gated(self, name: str) -> bool:
        return name in self.logic

    async def judge_turn(self) -> None:
        """Decide the LLM-judged gates for this turn, one judge call each, on the person's latest message:
        the verdicts hold until the next turn (offering the tools and checking every call read them). A judge
        that cannot decide keeps the tool closed."""
        self.judged = {}
        for name, entry in self.logic.items():
            condition = entry.available_when
            if not isinstance(condition, JudgeCondition):
                continue
            verdict = await self.judging.holds(condition, self.store.context(), _gate_prompt(name))
            if verdict.value is None:
                logger.warning(
                    "tool %s: available_when could not decide, the tool stays closed: %s",
                    name,
                    verdict.problem,
                )
            self.judged[name] = verdict.decided(default=False)

    def closed(self, name: str) -> GateRefusal | None:
        """Why tool ``name`` is unavailable now (``available_when`` false or failing), else None."""
        entry = self.logic.get(name)
        if entry is None or entry.available_when is None:
            return None
        if isinstance(entry.available_when, JudgeCondition):
            open_ = self.judged.get(name, False)  # not judged this turn (no judge yet): closed
        else:
            try:
                open_ = bool(entry.available_when.evaluate(self.store.context()))
            except ExpressionError as err:
                logger.warning(
                    "tool %s: available_when failed, the tool stays closed: %s", name, err.one_line()
                )
                open_ = False
            except Exception as err:  # a value without a truth value: closed, like an error
                logger.warning("tool %s: available_when has no truth value (%r:.80), closed", name, err)
                open_ = False
        return None if open_ else GateRefusal("gate_closed", entry.unavailable_message)

    def hidden(self, names: tuple[str, ...]) -> frozenset[str]:
        """The tools among ``names`` whose gate is closed now."""
        return frozenset(name for name in names if self.closed(name) is not None)

    def advertised(self, name: str, parameters: Mapping[str, Any]) -> Mapping[str, Any]:
        """The JSON Schema the model sees: ``parameters`` without the bound ones — ``parameters`` itself when
        none is bound, else a new top-level mapping whose nested values are shared with it. Neither is to be
        changed: a tool's schema is read by every call (it was deep-copied for every tool of every model call:
        ~100 µs of the clinic example's ~700 µs turn besides the model)."""
        entry = self.logic.get(name)
        if entry is None or not entry.bound:
            return parameters
        schema = dict(parameters)
        properties = schema.get("properties")
        if isinstance(properties, Mapping):
            schema["properties"] = {k: v for k, v in properties.items() if k not in entry.bound}
        required = schema.get("required")
        if isinstance(required, list):
            schema["required"] = [k for k in required if k not in entry.bound]
        return schema

    def _source(self, source: BindSource) -> Any:
        if source.kind == "literal":
            return copy.deepcopy(source.value)
        assert source.name is not None
        return copy.deepcopy(self.store.get(source.name))

    def bind(self, name: str, args: Mapping[str, Any]) -> tuple[dict[str, Any], GateRefusal | None]:
        """The final arguments of a call (``bind`` and ``merge_bind`` applied), or the refusal."""
        final = dict(args)
        entry = self.logic.get(name)
        if entry is None:
            return final, None
        for param, source in entry.config.bind.items():
            value = self._source(source)
            if _missing(value):
                what = f"the variable {source.name!r}" if source.kind == "variable" else "its literal"
                return final, GateRefusal(
                    "bind_unresolved",
                    f"{name} cannot run yet: its {param!r} comes from {what}, which is not set. Collect or "
                    "verify that information first, then call it again.",
                )
            if param in final and final[param] != value:
                logger.info("tool %s: bound %s replaces the value the model supplied", name, param)
            final[param] = value
        for param, source in entry.config.merge_bind.items():
            app = self._source(source)
            model = final.get(param)
            if model is not None and not isinstance(model, Mapping):
                return final, GateRefusal(
                    "merge_bind_refused",
                    f"{name}: {param!r} must be an object (a mapping of fields), got "
                    f"{type(model).__name__}. Call it again with an object.",
                )
            if app is not None and not isinstance(app, Mapping):
                return final, GateRefusal(
                    "merge_bind_refused",
                    f"{name} cannot run: the application's value for {param!r} is not an object. This "
                    "is a configuration problem; tell the person it cannot be done now.",
                )
            final[param] = {**dict(model or {}), **dict(app or {})}
        return final, None

    def capture(self, name: str, result: Any) -> list[str]:
        """Copy the ``capture`` paths of ``result`` into variables; returns what was refused (one line
        each)."""
        entry = self.logic.get(name)
        problems: list[str] = []
        if entry is None:
            return problems
        for variable, path in entry.config.capture.items():
            value = extract_output_path(result, path)
            if value is None:
                continue
            try:
                self.store.set(variable, value, source=f"capture:{name}")
            except VariableWriteError as err:
                logger.warning("tool %s: capture %s refused: %s", name, variable, err)
                problems.append(f"{variable}: {err}")
        return problems

    async def unsafe(self, name: str, args: Mapping[str, Any]) -> GateRefusal | None:
        """The tool's safety check of its final arguments' text (the ``params`` named, else every string
        argument): a refusal when the classifier flags a category the profile blocks, or when the check
        fails and the policy's ``on_failure`` is ``block``."""
        entry = self.logic.get(name)
        policy = entry.safety if entry is not None else None
        if entry is None or policy is None:
            return None
        wanted = entry.config.safety.params if entry.config.safety is not None else None
        texts = [
            f"{param}: {value}"
            for param, value in args.items()
            if isinstance(value, str) and value.strip() and (wanted is None or param in wanted)
        ]
        if not texts:
            return None
        verdict = await check_safety(
            self.judging.classifier, policy, user=self.judging.message, text="\n".join(texts)
        )
        if verdict.violation is None:
            logger.warning("tool %s: safety check failed: %s", name, verdict.detail(policy))
        if not verdict.decided(policy):
            return None
        why = verdict.detail(policy)
        return GateRefusal(
            "safety_refused",
            f"{name} was not run: the safety check refused its content ({why}). Do not send this; answer the "
            "person without it.",
        )

    def progress(self, name: str) -> str | None:
        entry = self.logic.get(name)
        return entry.config.progress_message if entry is not None else None
