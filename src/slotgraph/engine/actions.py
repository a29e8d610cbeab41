"""What the engine decides, typed: the DAG's decision and the invocation's action for the host.

* :data:`DagAction` — the closed set of DAG decisions returned by
  :func:`slotgraph.engine.dag.compute_dag_state` (docs/engine.md#the-dag-decision). Each decision is a frozen
  dataclass with a ``kind`` tag; callers match on the union exhaustively (``assert_never`` on the
  fall-through), so adding a decision is a type error everywhere it is not yet handled.
* :class:`EngineAction` — what one engine invocation tells the host (docs/engine.md "The action"): which
  :class:`Reason` produced the reply, the tools to hide, whether to speak instead of the model, the message,
  the task call to run, the instruction hints and the rich parts to show after the model's reply. It is
  frozen and its :class:`Reason` is a closed set. The spec's action *dict* exists only at the
  spec-compatible entry, :func:`slotgraph.adapters.cxas.action_dict`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

__all__ = [
    "AllDone",
    "Announce",
    "Ask",
    "AwaitReadback",
    "DagAction",
    "EngineAction",
    "Fire",
    "FunctionCall",
    "Phase",
    "Reason",
]


@dataclass(frozen=True, slots=True)
class Fire:
    """A task's active inputs and requires are all filled and it has not succeeded: call its tool.

    ``parallel``: other ``parallel`` tasks ready at the same moment and independent of this one (and of each
    other) — fired in the same decision, their calls run concurrently (docs/engine.md "Parallel tasks")."""

    task: str
    tool: str
    args: Mapping[str, Any] = field(default_factory=dict)
    kind: Literal["fire"] = "fire"
    parallel: tuple[Fire, ...] = ()

    @property
    def group(self) -> tuple[Fire, ...]:
        """This fire and its parallel ones, in task declaration order."""
        return (self, *self.parallel)


@dataclass(frozen=True, slots=True)
class AwaitReadback:
    """Values wait in ``pending`` for the user's confirmation; ``slots`` in slot declaration order."""

    slots: tuple[str, ...]
    kind: Literal["awaiting_readback"] = "awaiting_readback"


@dataclass(frozen=True, slots=True)
class Ask:
    """The next question: the first unfilled, active, dependency-met user slot."""

    slot: str
    kind: Literal["next_question"] = "next_question"


@dataclass(frozen=True, slots=True)
class Announce:
    """The next eligible announce slot (docs/engine.md#announce-slots): deliver its message and fill its
    completion bit."""

    slot: str
    kind: Literal["announce"] = "announce"


@dataclass(frozen=True, slots=True)
class AllDone:
    """Nothing to fire, confirm, ask or announce."""

    kind: Literal["all_done"] = "all_done"


DagAction = Fire | AwaitReadback | Ask | Announce | AllDone


class Reason(StrEnum):
    """Which decision produced an invocation's reply — a closed set (the action's ``reason``)."""

    NEXT_QUESTION = "next_question"
    READBACK = "readback"
    READBACK_QUIET = "readback_quiet"
    FIRE = "fire"
    FIRE_HELD = "fire_held"
    ANNOUNCE = "announce"
    DONE = "done"
    AUTO_CONFIRM = "auto_confirm"
    SLOT_ERROR = "slot_error"
    SLOT_ERROR_EXHAUST = "slot_error_exhaust"
    TASK_RETRY = "task_retry"
    TASK_EXHAUST = "task_exhaust"
    TASK_COMPLETE = "task_complete"
    TASK_LOOP = "task_loop"
    STEER_BACK_ARMED = "steer_back_armed"
    STEER_BACK_HARD = "steer_back_hard"
    STEER_BACK_ESCALATE = "steer_back_escalate"
    TERMINAL = "terminal"


Phase = Literal["collection", "readback", "terminal"]
"""The conversation's phase after an invocation: values wait for confirmation (``readback``), the session
is complete or escalated (``terminal``), or slots are being collected."""


@dataclass(frozen=True, slots=True)
class FunctionCall:
    """A tool call the host executes on the engine's behalf (task fire, auto-confirm, exhaustion)."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "args": dict(self.args)}


@dataclass(frozen=True, slots=True)
class EngineAction:
    """What one engine invocation tells the host. Frozen; every field has its "nothing to do" default."""

    reason: Reason
    phase: Phase = "collection"
    hidden_tools: tuple[str, ...] = ()
    """Tools the model must not see on the next call (every executor is hidden by the host anyway)."""
    message: str | None = None
    """The reply's text: said verbatim when preempting, else relayed by the model (``<system_directive>``)."""
    function_call: FunctionCall | None = None
    """A tool the host runs for the engine (a task fire, ``confirm_pending``, an ``on_exhaust.then``)."""
    parallel_calls: tuple[FunctionCall, ...] = ()
    """Task calls fired in the same decision as :attr:`function_call` (``parallel`` tasks): the host runs them
    all concurrently and routes each result (``after_tool``) before the next invocation. A host that runs
    only ``function_call`` still works: the others fire on the following invocations."""
    preempt: bool = False
    """Speak instead of the model — on the first call of a session only with :attr:`force_preempt`."""
    force_preempt: bool = False
    response: tuple[Mapping[str, Any], ...] | None = None
    """The rich parts of a preempting reply (docs/engine.md#rich-responses), in order; ``None`` when there are
    none."""
    stash: tuple[Mapping[str, Any], ...] = ()
    """Rich parts of a reply the model relays: shown after the model's last reply of the turn."""
    si_suffix: str = ""
    """The engine's part of the instruction suffix (``<deferred_collection>``, ``<readback_scope>`` ...)."""
    inline_confirmed: bool = False
    steer_back_directive: str | None = None
    event_prefilled: bool = False
    gate_open: bool = True
    recheck_after_model: bool = False
    """Invoke the engine once more after the model's step even when the model called no tool (a held fire,
    an armed steer-back tier): the decision depends on what the model makes of the user's message."""

    def preempts(self, conversation_length: int) -> bool:
        """The spec's rule: ``preempt and (contents > 1 or force_preempt)`` (the first call of a session is
        the model's, so it can greet naturally — unless the engine forces its reply)."""
        return self.preempt and (conversation_length > 1 or self.force_preempt)
