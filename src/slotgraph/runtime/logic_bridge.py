"""The runtime's side of the logic layer: the tool invoker rules and prompt programs run tools through.

:class:`LogicTools` is the :class:`~slotgraph.logic.ToolInvoker` of one turn. A ``{{run}}`` statement or a
``run_tool`` / ``end_session`` / ``escalate`` rule action takes the registered-tool path of model calls,
with the refusals that apply to the logic layer: an unknown tool, a DAG task executor (tasks run only
through the engine), a closed tool gate or arguments that do not match the tool's schema (bound arguments
are injected first, as for model calls). The call runs through the turn's
:class:`~slotgraph.runtime.tool_execution.ToolRunner`, so its result is made JSON and routed through the
engine's ``after_tool`` like any other, its events (``origin="logic"``) join the turn's events, and
``end_session``/``escalate`` end the session the usual way. Logic calls are not added to the conversation
history (a prompt program may run the same lookup before every model call) and do not fire ``tool_result``
rules (a rule's own tool call would otherwise re-trigger rules).
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from slotgraph.logic import RuleEffects, ToolRun
from slotgraph.models.protocol import Model, ModelResponse, ToolCall
from slotgraph.runtime.events import RefusalEvent, ToolCallEvent, ToolResultEvent
from slotgraph.runtime.reply_guard import ModelJudge
from slotgraph.runtime.tool_execution import ToolRunner, refusal_result

if TYPE_CHECKING:
    from slotgraph.runtime.turn_loop import TurnOutput

__all__ = ["LogicTools", "emit_effects"]

logger = logging.getLogger("slotgraph.runtime")


class LogicTools:
    """Runs tools for the logic layer during one turn (see the module docstring)."""

    def __init__(self, runner: ToolRunner, out: TurnOutput, model: Model | None = None) -> None:
        self.runner = runner
        self.out = out
        self._ids = itertools.count(1)
        self.judge = ModelJudge(model, on_response=self._count) if model is not None else None
        """The judge of the conditions an LLM decides (rules, gates, topics, hand-offs): a tool-less call of
        the agent's model, or the condition's own; its tokens count in the turn's usage."""

    def _count(self, response: ModelResponse) -> None:
        self.out.usage = self.out.usage + response.usage

    async def __call__(self, tool: str, args: Mapping[str, Any], *, origin: str) -> ToolRun:
        call = ToolCall(f"logic_{len(self.out.history)}_{next(self._ids)}", tool, dict(args))
        registered = self.runner.registry.get(tool)
        problem: str | None = None
        reason: Any = "unknown_tool"
        if self.out.ended:
            problem, reason = "the session has ended", "session_ended"
        elif registered is None:
            problem = f"there is no tool named {tool!r}"
        elif tool in self.runner.dag.executor_tasks:
            problem, reason = f"{tool} is a task executor; only the engine runs it", "executor"
        elif self.runner.gates is None:
            _, problem = registered.check_args(call.args)
            reason = "bad_arguments"
        # else: the runner's gate layer checks the gate, binds and validates the arguments (and refuses)
        if problem is not None:
            logger.warning("logic (%s) tool call %s refused: %s", origin, tool, problem)
            await self.out.emit(
                ToolCallEvent(call.id, tool, dict(call.args), "logic"),
                RefusalEvent(call.id, tool, dict(call.args), reason, problem),
                ToolResultEvent(call.id, tool, refusal_result(reason, problem), failed=True),
            )
            return ToolRun(False, error=problem)
        outcome = await self.runner.run(call, self.out.sm, origin="logic")
        self.out.sm = outcome.sm
        await self.out.emit(*outcome.events)
        self.out.ended = self.out.ended or outcome.ended
        failed = any(isinstance(e, ToolResultEvent) and e.failed for e in outcome.events)
        if failed:
            message = outcome.result.get("message") if isinstance(outcome.result, Mapping) else None
            return ToolRun(False, outcome.result, str(message or outcome.result))
        return ToolRun(True, outcome.result)


async def emit_effects(out: TurnOutput, effects: RuleEffects) -> None:
    """Add the rule events of ``effects`` to the turn (in order)."""
    await out.emit(*effects.events)
