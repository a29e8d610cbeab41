"""The gate layer: what the :class:`~slotgraph.runtime.tool_execution.ToolRunner` asks before and after
it runs a model or logic tool call of an agent with ``tool_logic:``, ``set_variables`` or
``builtin_tools:`` settings.

The layer composes with the DAG's own visibility, outside it: the DAG decides first (``hidden_tool``,
refused *by the DAG*), then the tool's gate (refused *by the gate*); a tool is offered to the model only when
both allow it (:meth:`GateLayer.schemas`). A call that passed both is *prepared*
(:meth:`GateLayer.prepare`): the gate is checked again (variables may have changed since the tools were
offered — a rule, a capture or ``set_variables`` in the same turn), bound arguments are injected, an
``end_session`` without a usable ``summary`` is refused when the agent requires one, and the final
arguments are validated against the tool's full schema. The model's own argument mistakes are refused
(``bad_arguments``) and the corrected call it sends next goes through every gate again — nothing is ever
"repaired" past a gate.

Every refusal is a :class:`GateDecision` with the refusing party (``by``: ``gate`` or ``contract``), which
the runner turns into an ordinary tool result and a :class:`~slotgraph.runtime.events.RefusalEvent`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from slotgraph.config.tool_logic import IdempotencyConfig, ReceiptConfig
from slotgraph.logic import LogicSession
from slotgraph.logic.handoff import START_CONSULT
from slotgraph.logic.set_variables import SET_VARIABLES, apply_set_variables
from slotgraph.logic.topics import TRANSITION_TOPIC, TopicEvent
from slotgraph.models.protocol import ToolSchema
from slotgraph.runtime.builtin_tools import END_SESSION
from slotgraph.runtime.events import RefusalReason, RefusedBy
from slotgraph.runtime.extraction import Extractions
from slotgraph.runtime.tools import Tool, ToolRegistry

__all__ = ["GateDecision", "GateLayer"]


@dataclass(frozen=True, slots=True)
class GateDecision:
    """A refusal by the gate layer: the reason (a RefusalEvent's ``refused``), the message, who refused."""

    reason: RefusalReason
    message: str
    by: RefusedBy = "gate"


class GateLayer:
    """The gates, ``set_variables`` and the summary requirement of one session's turn."""

    def __init__(self, logic: LogicSession, extractions: Extractions | None = None) -> None:
        self.logic = logic
        self.gates = logic.gates
        self.require_summary = logic.logic.builtin_tools.end_session.require_summary
        self.extractions = extractions

    def waits_for_extraction(self, name: str) -> bool:
        """Whether tool ``name`` binds a variable background extraction fills (so its gate waits for it)."""
        entry = self.gates.logic.get(name)
        if entry is None or self.extractions is None:
            return False
        sources = [*entry.config.bind.values(), *entry.config.merge_bind.values()]
        return any(s.kind == "variable" and s.name in self.extractions.eligible for s in sources)

    async def settle(self, name: str) -> GateDecision | None:
        """For a tool that binds extracted variables: wait (bounded) for the latest extraction; the refusal
        when it is still running or failed (an older value is never used)."""
        if self.extractions is None or not self.waits_for_extraction(name):
            return None
        problem = await self.extractions.settle(self.logic.store)
        if problem is None:
            return None
        return GateDecision(
            "extraction_pending",
            f"{name} was not run: {problem}. Confirm the details with the person, then call it again.",
        )

    # --- what the model is offered ---------------------------------------------------------------------

    def offered(self, visible: tuple[str, ...]) -> tuple[str, ...]:
        """The DAG-visible tools whose gate is open."""
        closed = self.gates.hidden(visible)
        return tuple(name for name in visible if name not in closed)

    def schema(self, tool: Tool) -> ToolSchema:
        """The schema the model sees: bound parameters removed; ``summary`` required on ``end_session``
        when the agent requires a summary."""
        parameters = self.gates.advertised(tool.name, tool.schema.parameters)
        if tool.name == END_SESSION and self.require_summary:
            required = [str(r) for r in parameters.get("required", []) if r != "summary"]
            parameters = {**parameters, "required": ["summary", *required]}
        if parameters is tool.schema.parameters:
            return tool.schema  # nothing bound or required: the tool's own schema, shared by every call
        return ToolSchema(tool.name, tool.schema.description, parameters)

    def schemas(self, registry: ToolRegistry, visible: tuple[str, ...]) -> tuple[ToolSchema, ...]:
        offered = set(self.offered(visible))
        return tuple(self.schema(tool) for tool in registry if tool.name in offered)

    # --- one call ---------------------------------------------------------------------------------------

    def closed_before_run(self, name: str) -> GateDecision | None:
        """The gate checked when a model call is admitted; a tool waiting for extraction is checked only
        once the extraction settled (in :meth:`prepare`)."""
        return None if self.waits_for_extraction(name) else self.closed(name)

    def closed(self, name: str) -> GateDecision | None:
        refusal = self.gates.closed(name)
        return GateDecision(refusal.reason, refusal.message) if refusal is not None else None

    def prepare(
        self, tool: Tool, args: Mapping[str, Any], *, origin: str
    ) -> tuple[dict[str, Any] | None, GateDecision | None]:
        """The call's validated final arguments, or the refusal (gate closed, binding, summary, schema)."""
        closed = self.closed(tool.name)
        if closed is not None:
            return None, closed
        final, refusal = self.gates.bind(tool.name, args)
        if refusal is not None:
            return None, GateDecision(refusal.reason, refusal.message)
        if tool.name == END_SESSION and self.require_summary and origin == "model":
            problem = _summary_problem(final)
            if problem is not None:
                return None, GateDecision(
                    "summary_required",
                    f"The session was not ended: {problem}. Call end_session again with a 'summary' that "
                    "says, from the actual conversation, who the person is, what was done and what is "
                    "still open.",
                )
        checked, problem = tool.check_args(final)
        if checked is None:
            return None, GateDecision(
                "bad_arguments",
                f"Invalid arguments for {tool.name}: {problem}. Call it again with arguments that match "
                "its schema.",
                "runtime",
            )
        return checked, None

    async def unsafe(self, name: str, args: Mapping[str, Any]) -> GateDecision | None:
        """The tool's safety check (``tool_logic.<tool>.safety``) of the final arguments' text."""
        refusal = await self.gates.unsafe(name, args)
        return GateDecision(refusal.reason, refusal.message) if refusal is not None else None

    def contracts_of(self, name: str) -> tuple[IdempotencyConfig | None, ReceiptConfig | None]:
        """The tool's execution contracts (``idempotency``, ``receipt``), if any."""
        entry = self.gates.logic.get(name)
        if entry is None:
            return None, None
        return entry.config.idempotency, entry.config.receipt

    def progress(self, name: str) -> str | None:
        return self.gates.progress(name)

    def capture(self, name: str, result: Any) -> list[str]:
        return self.gates.capture(name, result)

    def publish(self, name: str, result: Any) -> list[str]:
        """The variables tool ``name`` publishes, written from its result (every result, every origin)."""
        return self.logic.publish(name, result)

    def set_variables(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """Run the ``set_variables`` built-in: write through the session's store, rejections in the result."""
        result, _ = apply_set_variables(self.logic.store, args)
        return result

    async def run_builtin(
        self, name: str, args: Mapping[str, Any], sm: Mapping[str, Any], *, team: frozenset[str] = frozenset()
    ) -> tuple[dict[str, Any], tuple[TopicEvent, ...]] | GateDecision:
        """Run a built-in the layer owns: its result, and the events it makes (a topic move); or the refusal
        of a hand-off (``team``: the agents of the app the session plays, for ``kind: agent`` hand-offs)."""
        if name == SET_VARIABLES:
            return self.set_variables(args), ()
        if name == START_CONSULT:
            return await self._consult(args, sm, team)
        move, instructions = await self.logic.transition(str(args.get("topic", "")), sm)
        if not move.ok:
            return {"error": True, "moved": False, "message": move.event.message}, (move.event,)
        result: dict[str, Any] = {"moved": move.moved, "topic": move.event.to_topic or "main"}
        guidance = self._return_guidance()
        if guidance:
            result["return"] = guidance
        result["instructions"] = instructions
        return result, (move.event,)

    async def _consult(
        self, args: Mapping[str, Any], sm: Mapping[str, Any], team: frozenset[str]
    ) -> tuple[dict[str, Any], tuple[TopicEvent, ...]] | GateDecision:
        outcome = await self.logic.consult(args, sm)
        if not outcome.ok:
            return GateDecision("handoff_refused", str(outcome.result.get("message", "")))
        destination = outcome.destination
        assert destination is not None
        if destination.kind == "agent" and destination.target not in team:
            return GateDecision(
                "handoff_refused",
                f"The conversation cannot be handed to {destination.id}: the agent {destination.target!r} is "
                "not part of this conversation's app. Tell the person what you can do instead.",
            )
        return outcome.result, ()

    def _return_guidance(self) -> str:
        """How the active topic ends: an automatic return (``return_when``), ``__return__``, or none (the
        main conversation, or a transfer, which cleared the way back)."""
        topics = self.logic.topics
        active = topics.active() if topics is not None else None
        if active is None or topics is None or not topics.stack:
            return ""
        if active.return_when is not None:
            return "the conversation returns by itself when this topic's work is done (no __return__ needed)"
        return "call transition_topic with __return__ when this topic's work is done"

    def routes(self, name: str) -> bool:
        """Whether the layer itself runs the tool (``set_variables``, ``transition_topic``, and
        ``start_consult`` for an agent with ``handoff:``)."""
        return name in (SET_VARIABLES, TRANSITION_TOPIC) or (
            name == START_CONSULT and bool(self.logic.logic.handoff)
        )


def _summary_problem(args: Mapping[str, Any]) -> str | None:
    summary = args.get("summary")
    if "summary" not in args or summary is None:
        return "a summary is required and none was given"
    if not isinstance(summary, str):
        return f"the summary must be text, got {type(summary).__name__}"
    if not summary.strip():
        return "the summary is blank"
    return None
