"""Lifecycle rules: at a trigger, when a condition holds, run ordered actions — and never break the turn.

Triggers: ``session_start`` (the first turn of a session), ``user_message`` (a turn with user text),
``turn_start`` (every turn), ``turn_end``, ``tool_result`` (after a tool's result; optionally only for one
``tool``; the result is the name ``result`` in the condition, and ``set_variable`` may read it through an
``output_path``), ``variable_changed`` (optionally only for one ``variable``; fired after the rule whose
write changed it, at most :data:`MAX_CASCADE` levels deep, and a rule never re-fires on its own change).

Actions, in order: ``set_variable``, ``run_tool`` (through the registered-tool path, with captures),
``inject_instruction`` (added to the system prompt of the model calls that follow), ``end_session`` and
``escalate`` (through the agent's built-in tools of those names, so the session ends the usual way), and
``transition`` (sets ``current_topic``). The first failing action stops its rule; the failure is recorded
in the rule's :class:`RuleEvent` and logged, and the other rules and the turn go on. A condition that fails
to evaluate does not fire the rule (fail closed) and is reported the same way.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from slotgraph.config.logic import RuleConfig
from slotgraph.expr import Expression, ExpressionError, extract_output_path
from slotgraph.logic.conditions import CompiledCondition, Compose, Judging, compile_condition, judge_prompt
from slotgraph.logic.errors import VariableWriteError
from slotgraph.logic.render import render_template
from slotgraph.logic.templates import Template, compile_logic_expression, parse_template
from slotgraph.logic.tooling import ToolInvoker
from slotgraph.logic.topics import TopicEvent, TopicManager, TopicMove
from slotgraph.logic.variables import VariableChange, VariableStore

__all__ = ["MAX_CASCADE", "CompiledRule", "RuleEffects", "RuleEngine", "RuleEvent", "compile_rules"]

logger = logging.getLogger("slotgraph.logic")

MAX_CASCADE: Final = 3
"""How deep ``variable_changed`` rules may fire each other."""

TOPIC_VARIABLE: Final = "current_topic"


@dataclass(frozen=True, slots=True)
class RuleEvent:
    """A rule fired: which rule, at which trigger, the actions it completed, and its error if one failed."""

    rule: str
    trigger: str
    actions: tuple[str, ...] = ()
    ok: bool = True
    error: str | None = None
    kind: Literal["rule"] = "rule"


@dataclass(frozen=True, slots=True)
class _Action:
    kind: str
    variable: str = ""
    expression: Expression | None = None
    output_path: str | None = None
    tool: str = ""
    args: tuple[tuple[str, Expression], ...] = ()
    capture: tuple[tuple[str, str], ...] = ()
    template: Template | None = None
    text: str = ""


@dataclass(frozen=True, slots=True)
class CompiledRule:
    name: str
    trigger: str
    condition: CompiledCondition | None
    actions: tuple[_Action, ...]
    tool: str | None = None
    variable: str | None = None


def _rule_prompt(rule: CompiledRule) -> Compose:
    """The rule call site's judge prompt: the author's prompt, then whether the rule applies now."""
    return lambda prompt: judge_prompt(
        prompt,
        f"You decide whether the rule {rule.name!r} of this conversation applies now, from the person's "
        "latest message (the user message).",
        "it applies",
        "it does not",
    )


def compile_rules(rules: Sequence[RuleConfig]) -> tuple[CompiledRule, ...]:
    """Compile rule configs; a bad expression raises ExpressionSyntaxError (validation reports it first)."""
    out: list[CompiledRule] = []
    for index, rule in enumerate(rules):
        actions: list[_Action] = []
        for action in rule.actions:
            kind = action.kind
            if action.set_variable is not None:
                spec = action.set_variable
                expression = compile_logic_expression(spec.value) if spec.value is not None else None
                actions.append(_Action(kind, spec.variable, expression, spec.output_path))
            elif action.run_tool is not None:
                run = action.run_tool
                args = tuple((k, compile_logic_expression(v)) for k, v in run.args.items())
                actions.append(_Action(kind, tool=run.tool, args=args, capture=tuple(run.capture.items())))
            elif action.inject_instruction is not None:
                actions.append(_Action(kind, template=parse_template(action.inject_instruction.text)))
            elif action.end_session is not None:
                actions.append(_Action(kind, text=action.end_session.reason))
            elif action.escalate is not None:
                actions.append(_Action(kind, text=action.escalate.reason))
            elif action.transition is not None:
                actions.append(_Action(kind, text=action.transition.topic))
        condition = compile_condition(rule.condition) if rule.condition else None
        name = rule.name or f"rules[{index}]"
        out.append(CompiledRule(name, rule.trigger, condition, tuple(actions), rule.tool, rule.variable))
    return tuple(out)


@dataclass(slots=True)
class RuleEffects:
    """What rules did: their events, instructions to inject, and whether the session was ended."""

    events: list[RuleEvent | TopicEvent] = field(default_factory=list)
    """The rules' events and the topic moves their ``transition`` actions made, in order."""
    instructions: list[str] = field(default_factory=list)
    ended: bool = False

    def extend(self, other: RuleEffects) -> None:
        self.events.extend(other.events)
        self.instructions.extend(other.instructions)
        self.ended = self.ended or other.ended


class _ActionFailed(Exception):
    pass


class RuleEngine:
    """Fires the compiled rules of one agent against one session's store."""

    def __init__(
        self,
        rules: Sequence[CompiledRule],
        store: VariableStore,
        invoker: ToolInvoker | None,
        *,
        topics: TopicManager | None = None,
        judging: Judging | None = None,
    ) -> None:
        self.rules = tuple(rules)
        self.store = store
        self.invoker = invoker
        self.judging = judging or Judging()
        """The judge and the person's latest message, for conditions an LLM decides."""
        self.topics = topics
        """With topics, a ``transition`` action is a topic move (``entry_when`` applies)."""
        self.moved: Callable[[TopicMove], Awaitable[str]] | None = None
        """Renders the one instruction a rule-initiated move delivers (set by the session)."""

    def has(self, trigger: str) -> bool:
        return any(rule.trigger == trigger for rule in self.rules)

    async def fire(self, trigger: str, *, tool: str | None = None, result: Any = None) -> RuleEffects:
        """Fire every rule of ``trigger`` in order, then the ``variable_changed`` rules their writes cause."""
        effects = RuleEffects()
        extra = {"result": result} if trigger == "tool_result" else {}
        for rule in self.rules:
            if rule.trigger != trigger or (trigger == "tool_result" and rule.tool not in (None, tool)):
                continue
            await self._fire_one(rule, extra, result, effects, depth=0)
        return effects

    async def _fire_one(
        self, rule: CompiledRule, extra: Mapping[str, Any], result: Any, effects: RuleEffects, *, depth: int
    ) -> None:
        context = self.store.context(extra)
        if rule.condition is not None:
            verdict = await self.judging.holds(rule.condition, context, _rule_prompt(rule))
            if verdict.value is None:
                self._report(effects, rule, (), f"condition failed, rule not fired: {verdict.problem}")
                return
            if not verdict.value:
                return
        changes: list[VariableChange] = []
        unsubscribe = self.store.subscribe(changes.append)
        done: list[str] = []
        error: str | None = None
        try:
            for action in rule.actions:
                try:
                    await self._act(rule, action, context, result, effects)
                except _ActionFailed as failed:
                    error = f"{action.kind} failed: {failed}"
                    break
                done.append(action.kind)
        finally:
            unsubscribe()
        if error is not None:
            self._report(effects, rule, tuple(done), error)
        else:
            effects.events.append(RuleEvent(rule.name, rule.trigger, tuple(done)))
        if depth >= MAX_CASCADE:
            if changes and any(r.trigger == "variable_changed" for r in self.rules):
                logger.warning("rule %s: variable_changed rules stop at depth %d", rule.name, MAX_CASCADE)
            return
        for change in changes:
            for other in self.rules:
                if other.trigger != "variable_changed" or other is rule:
                    continue
                if other.variable not in (None, change.name):
                    continue
                await self._fire_one(other, {}, None, effects, depth=depth + 1)

    async def fire_changes(self, changes: Sequence[VariableChange]) -> RuleEffects:
        """Fire the ``variable_changed`` rules of writes made outside the rules (the model's
        ``set_variables``, tool captures, background extraction), one level below a rule's own writes."""
        effects = RuleEffects()
        for change in changes:
            for rule in self.rules:
                if rule.trigger == "variable_changed" and rule.variable in (None, change.name):
                    await self._fire_one(rule, {}, None, effects, depth=1)
        return effects

    def _report(self, effects: RuleEffects, rule: CompiledRule, done: tuple[str, ...], error: str) -> None:
        logger.warning("rule %s (%s): %s", rule.name, rule.trigger, error)
        effects.events.append(RuleEvent(rule.name, rule.trigger, done, ok=False, error=error))

    def _write(self, rule: CompiledRule, variable: str, value: Any) -> None:
        try:
            self.store.set(variable, value, source=f"rule:{rule.name}")
        except VariableWriteError as err:
            raise _ActionFailed(str(err)) from None

    async def _act(
        self,
        rule: CompiledRule,
        action: _Action,
        context: Mapping[str, Any],
        result: Any,
        effects: RuleEffects,
    ) -> None:
        if action.kind == "set_variable":
            if action.output_path is not None:
                value = extract_output_path(result, action.output_path)
            else:
                assert action.expression is not None
                try:
                    value = action.expression.evaluate(context)
                except ExpressionError as err:
                    raise _ActionFailed(err.one_line()) from None
            self._write(rule, action.variable, value)
        elif action.kind == "run_tool":
            args: dict[str, Any] = {}
            for name, expression in action.args:
                try:
                    args[name] = expression.evaluate(context)
                except ExpressionError as err:
                    raise _ActionFailed(f"argument {name}: {err.one_line()}") from None
            outcome = await self._invoke(action.tool, args)
            for variable, path in action.capture:
                value = extract_output_path(outcome, path)
                if value is not None:
                    self._write(rule, variable, value)
        elif action.kind == "inject_instruction":
            assert action.template is not None
            rendered = await render_template(action.template, self.store, label=f"rule {rule.name}")
            if rendered.text.strip():
                effects.instructions.append(rendered.text.strip())
        elif action.kind == "end_session":
            await self._invoke("end_session", {"reason": action.text or f"rule {rule.name}"})
            effects.ended = True
        elif action.kind == "escalate":
            await self._invoke("escalate", {"reason": action.text or f"rule {rule.name}"})
            effects.ended = True
        elif action.kind == "transition" and self.topics is not None:
            move = await self.topics.move(action.text or "", via="rule")
            effects.events.append(move.event)
            if not move.ok:
                raise _ActionFailed(f"transition to {action.text!r}: {move.event.message}")
            if move.moved and self.moved is not None:
                effects.instructions.append(await self.moved(move))
        elif action.kind == "transition":
            self._write(rule, TOPIC_VARIABLE, action.text)

    async def _invoke(self, tool: str, args: Mapping[str, Any]) -> Any:
        if self.invoker is None:
            raise _ActionFailed(f"no tool runner: {tool} cannot run here")
        outcome = await self.invoker(tool, args, origin="rule")
        if not outcome.ok:
            raise _ActionFailed(f"{tool}: {outcome.error or 'failed'}")
        return outcome.result
