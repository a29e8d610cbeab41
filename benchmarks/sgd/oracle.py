"""The oracle model: what an ideal LLM would do in Slotgraph with the gold acts of each user turn.

:class:`OracleModel` implements the runtime's :class:`~slotgraph.runtime.Model` protocol. It is built from
the user turns only (:class:`~slotgraph.evals.sgd.data.UserTurn`: utterance, acts, dialogue state) and the
names of the converted agent's tools — never from a dialogue object — so it cannot read what the gold system
did: the engine alone decides the flow. Per model call it may use the current user turn's acts and what the
runtime shows it (the visible tools, the ``<system_directive>``, tool results in the conversation).

Act mapping (one user turn):

=================  ===============================================================================
``INFORM_INTENT``  ``set_intent(intent)`` when visible (services with a search); nothing otherwise
``INFORM``         every *visible* setter of the slot with the canonical value (search and booking copies)
``SELECT``         the choice slot's setter with the selected entity, spelled as the runtime offered it
``AFFIRM``         ``confirm_pending`` when visible (nothing pending: nothing to do)
``NEGATE``         ``reject_pending`` when visible and the turn informs nothing (else: inline correction)
``REQUEST_ALTS``   ``request_alternatives(exclude=<offers shown so far>)`` while nothing is selected
other acts         plain text (the directive relayed)
=================  ===============================================================================

An act the runtime is not ready for — an ``INFORM`` whose setters are all hidden (and whose value differs
from the one already given), a ``SELECT`` or ``REQUEST_ALTS`` after the choice is set — is a **desync**,
recorded in :attr:`OracleModel.desyncs`. Ops a turn could not place yet stay queued until the model answers
with text (the runtime may cascade a task in between, making a setter visible).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from slotgraph.runtime import (
    SENTINEL,
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

from .convert import (
    ALTERNATIVES_TOOL,
    DONTCARE,
    INTENT_SETTER,
    ConvertedAgent,
    from_sgd_value,
)
from .data import UserTurn

__all__ = ["Desync", "Op", "OracleModel", "plan_ops"]

OpKind = Literal["intent", "inform", "select", "affirm", "negate", "alts"]
_DIRECTIVE = re.compile(r"^<system_directive>\s*(.*?)\s*^</system_directive>", re.S | re.M)


@dataclass(frozen=True, slots=True)
class Op:
    """One thing the user's turn asks the model to do."""

    kind: OpKind
    slot: str = ""
    value: str = ""


@dataclass(frozen=True, slots=True)
class Desync:
    """An act the runtime was not ready for."""

    turn: int
    op: Op
    reason: str


def plan_ops(turn: UserTurn, agent: ConvertedAgent) -> list[Op]:
    """The ops of one user turn, in the order the model issues them."""
    ops: list[Op] = []
    for act in turn.acts:
        if act.act == "INFORM_INTENT" and act.values:
            ops.append(Op("intent", value=act.values[0]))
    for act in turn.acts:
        if act.act == "INFORM" and act.canonical_values:
            ops.append(Op("inform", act.slot, act.canonical_values[0]))
    if turn.has("SELECT") and agent.choice_slot is not None:
        chosen = turn.slot_values.get(agent.choice_slot, ())
        if chosen:
            ops.append(Op("select", agent.choice_slot, chosen[-1]))
    if turn.has("REQUEST_ALTS"):
        ops.append(Op("alts"))
    if turn.has("AFFIRM"):
        ops.append(Op("affirm"))
    if turn.has("NEGATE") and not any(op.kind == "inform" for op in ops):
        ops.append(Op("negate"))
    return ops


@dataclass
class _Turn:
    index: int
    ops: list[Op]
    done: list[Op] = field(default_factory=list)
    placed: dict[Op, set[str]] = field(default_factory=dict)
    """Setter tools already called for an inform/select op (a slot may have a search and a booking setter)."""


class OracleModel:
    """A :class:`~slotgraph.runtime.Model` replaying the gold user acts of one dialogue."""

    def __init__(self, user_turns: Sequence[UserTurn], agent: ConvertedAgent) -> None:
        self._turns = tuple(user_turns)
        self._agent = agent
        self._ids = itertools.count(1)
        self._turn: _Turn | None = None
        self.desyncs: list[Desync] = []
        self.given: dict[str, str] = {}
        """SGD slot → the last value the model passed to a setter (the model's memory of the dialogue)."""
        self.intent: str | None = None
        self.alternative: dict[str, str] | None = None
        """The booking record a failed transaction offered instead, until the user answers it."""
        self.given_this_session: set[str] = set()
        self._offers: list[str] = []
        self._last_alt_id: str | None = None
        self._alt_turn = -1

    # --- driven by the replay --------------------------------------------------------------------------
    def start_turn(self, index: int, *, carry_over: bool = False) -> None:
        """The replay is about to send user turn ``index``; ``carry_over`` re-informs the known booking."""
        turn = self._turns[index]
        ops = plan_ops(turn, self._agent)
        if carry_over:
            informed = {op.slot for op in ops if op.kind == "inform"}
            carried = [
                Op("inform", slot, value)
                for slot, value in self.given.items()
                if slot in self._agent.booking_slots and slot not in informed
            ]
            ops = (
                [op for op in ops if op.kind == "intent"]
                + carried
                + [op for op in ops if op.kind != "intent"]
            )
        self._turn = _Turn(index, ops)

    def end_turn(self) -> list[Op]:
        """The ops of the turn that never found a visible tool (the replay judges them)."""
        turn, self._turn = self._turn, None
        if turn is None:
            return []
        return [op for op in turn.ops if not turn.placed.get(op)]

    def accepted_alternative(self, index: int) -> dict[str, str] | None:
        """If turn ``index`` affirms an offered alternative booking: the booking values to start from."""
        turn = self._turns[index]
        if self.alternative is None or index != self._alt_turn + 1:
            self.alternative = None
            return None
        if not turn.has("AFFIRM"):
            return None
        values = {k: v for k, v in self.alternative.items() if k in self._agent.booking_slots}
        self.given.update(values)
        self.alternative = None
        return values

    def record(self, turn: int, op: Op, reason: str) -> None:
        self.desyncs.append(Desync(turn, op, reason))

    # --- the Model protocol ----------------------------------------------------------------------------
    async def generate(self, request: ModelRequest) -> ModelResponse:
        self._offers = self.offers(request)
        turn = self._turn
        last_user = next((m for m in reversed(request.messages) if isinstance(m, UserMessage)), None)
        if turn is None or last_user is None or last_user.event is not None or not last_user.text:
            return ModelResponse(text=self._relay(request))
        visible = set(request.tool_names)
        calls: list[ToolCall] = []
        informed_now = False
        for op in list(turn.ops):
            if op.kind in ("inform", "select"):
                placed = turn.placed.setdefault(op, set())
                value = self._spelled_as_offered(op.value) if op.kind == "select" else op.value
                new = self._inform(op, value, visible, placed)
                calls.extend(new)
                informed_now = informed_now or bool(new)
                if placed >= {ref.tool for ref in self._agent.setters.get(op.slot, ())}:
                    turn.ops.remove(op)
                    turn.done.append(op)
                continue
            call = self._place(op, visible, informed_now or any(o.kind == "inform" for o in turn.done))
            if call is None:
                continue
            turn.ops.remove(op)
            turn.done.append(op)
            if call == ():
                continue
            for c in call:
                calls.append(c)
            informed_now = informed_now or op.kind == "inform"
        if calls:
            return ModelResponse(tool_calls=tuple(calls))
        return ModelResponse(text=self._relay(request))

    # --- helpers ----------------------------------------------------------------------------------------
    def _call(self, name: str, **args: Any) -> ToolCall:
        return ToolCall(f"oracle_{next(self._ids)}", name, args)

    def _relay(self, request: ModelRequest) -> str:
        found = _DIRECTIVE.findall(request.system_instruction.rpartition(SENTINEL)[2])
        return str(found[-1]) if found else "Okay."

    def observe_tool_result(self, call_id: str, name: str, result: Any) -> None:
        """The runtime showed a tool result (fed by the replay from the turn's events)."""
        if name not in self._agent.transactional_tools or not isinstance(result, Mapping):
            return
        alt = result.get("alternative")
        if not result.get("success") and isinstance(alt, Mapping) and self._last_alt_id != call_id:
            self._last_alt_id = call_id
            self.alternative = {k: str(v) for k, v in alt.items()}
            self._alt_turn = self._turn.index if self._turn is not None else -1

    def offers(self, request: ModelRequest) -> list[str]:
        """Every entity the runtime has offered so far (search results' first offer, alternatives)."""
        out: list[str] = []
        for message in request.messages:
            if not isinstance(message, ToolResultMessage) or not isinstance(message.result, Mapping):
                continue
            if message.name in self._agent.search_tools or message.name == ALTERNATIVES_TOOL:
                offer = message.result.get("offer")
                if offer:
                    out.append(str(offer))
        return out

    def _place(self, op: Op, visible: set[str], informed: bool) -> tuple[ToolCall, ...] | None:
        """Tool calls for ``op`` now; ``()`` when it needs none (done); None when it must wait."""
        assert self._turn is not None
        if op.kind == "intent":
            if INTENT_SETTER in visible and op.value in self._agent.intents:
                self.intent = op.value
                return (self._call(INTENT_SETTER, intent=op.value),)
            return None if op.value != self.intent and op.value not in self._agent.transactionals else ()
        if op.kind == "affirm":
            if "confirm_pending" in visible and not informed:
                return (self._call("confirm_pending"),)
            return None
        if op.kind == "negate":
            if "reject_pending" in visible:
                return (self._call("reject_pending"),)
            return None
        if op.kind == "alts":
            if ALTERNATIVES_TOOL in visible and self._agent.choice_slot not in self.given_this_session:
                return (self._call(ALTERNATIVES_TOOL, exclude=self._offers),)
            return None
        return ()

    def reset_session(self) -> None:
        """A new runtime session starts: nothing has been set in it yet."""
        self.given_this_session = set()

    def _spelled_as_offered(self, value: str) -> str:
        for offer in self._offers:
            if offer.strip().lower() == value.strip().lower():
                return offer
        return value

    def _inform(self, op: Op, value: str, visible: set[str], placed: set[str]) -> list[ToolCall]:
        """Call every visible, not yet called setter of the op's slot with the typed value."""
        calls = []
        for ref in self._agent.setters.get(op.slot, ()):
            if ref.tool not in visible or ref.tool in placed:
                continue
            if value == DONTCARE and DONTCARE not in ref.choices and not ref.dontcare:
                continue
            typed = from_sgd_value(value, ref.kind, ref.choices, dontcare=ref.dontcare)
            if typed is None:
                continue
            placed.add(ref.tool)
            calls.append(self._call(ref.tool, **{ref.param: typed}))
        if calls:
            self.given[op.slot] = value
            self.given_this_session.add(op.slot)
        return calls
