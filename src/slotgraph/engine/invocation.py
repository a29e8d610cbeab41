"""Per-invocation context shared by the pipeline stages, the stage outcome type, and the trace
(docs/engine.md#observability).

An :class:`Invocation` lives for one engine call. It owns ``sm`` — the invocation's *working copy* of the
state (never the caller's dict) — and the facts earlier stages established for later ones (was pending fresh,
was the readback confirmed inline, which message segments accumulated). Nothing here outlives the call, so
two sessions on two threads never share anything.

A stage either returns ``None`` (carry on) or a :class:`Reply` (the invocation ends with this reply). A
reply's text is made of :class:`Segment` s, each remembering the config location it came from, so the rich
response parts of that location can be resolved later.

:class:`Trace` is the structured event log: every ``emit(tag, ...)`` becomes a ``_debug_log``
entry when debug is on, and a ``[slot-filling:<tag>] k='v' ...`` line on the ``slotgraph.engine`` logger when
that logger is enabled for INFO. When neither is on, ``emit`` returns at once (no formatting at all), and call
sites that would build costly data check :attr:`Trace.active` first.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from slotgraph.config.compiled import NO_RESPONSES, CompiledDag, Responses
from slotgraph.engine.actions import FunctionCall, Reason
from slotgraph.engine.readback import format_value

__all__ = [
    "LOGGER_NAME",
    "Choose",
    "FunctionCall",
    "Invocation",
    "Reply",
    "RetryLead",
    "Segment",
    "Trace",
    "format_line",
]

LOGGER_NAME: Final = "slotgraph.engine"
_LOGGER: Final = logging.getLogger(LOGGER_NAME)  # a logger object, not state: configuration lives in logging

Choose = Callable[[Sequence[str]], str]
"""Picks one string from a non-empty sequence (the engine's only source of variety, injected)."""


class Segment:
    """One piece of a reply's text and the rich response parts configured at the same location
    (docs/engine.md#rich-responses).

    ``question`` marks a user slot's ``ask`` (its parts are stashed as ``stash_question``). ``values``
    replaces ``filled`` as the source of the parts' placeholders (a task's result fields, pending values);
    ``attach`` makes the parts follow the text instead of replacing it.

    A plain slotted class, not a frozen dataclass: one invocation builds several and nothing outside the
    engine ever sees them; no code mutates one after it is made.
    """

    __slots__ = ("attach", "question", "responses", "text", "values")

    def __init__(
        self,
        text: str,
        responses: Responses = NO_RESPONSES,
        question: bool = False,
        values: Mapping[str, Any] | None = None,
        attach: bool = False,
    ) -> None:
        self.text = text
        self.responses = responses
        self.question = question
        self.values = values
        """What the parts' ``{placeholders}`` are filled from (default: ``filled``)."""
        self.attach = attach
        """The parts come *with* the text (``readback_response``) instead of standing for it."""

    def __repr__(self) -> str:
        return f"Segment({self.text!r}, question={self.question}, attach={self.attach})"


class Reply:
    """How an invocation ends: a message (preempted or relayed) and/or a function call.

    A plain slotted class like :class:`Segment` (internal to one invocation, never mutated once made)."""

    __slots__ = (
        "force_preempt",
        "function_call",
        "message",
        "parallel_calls",
        "preempt",
        "reason",
        "segments",
    )

    def __init__(
        self,
        message: str | None = None,
        function_call: FunctionCall | None = None,
        parallel_calls: tuple[FunctionCall, ...] = (),
        preempt: bool = False,
        force_preempt: bool = False,
        reason: Reason = Reason.DONE,
        segments: tuple[Segment, ...] = (),
    ) -> None:
        self.message = message
        self.function_call = function_call
        self.parallel_calls = parallel_calls
        """Task calls fired in the same decision as ``function_call`` (parallel tasks)."""
        self.preempt = preempt
        self.force_preempt = force_preempt
        self.reason = reason
        """Which decision produced the reply (``fire``, ``slot_error``, ``auto_confirm`` ...), for the log."""
        self.segments = segments
        """Where the message came from, in order; empty when no location has response parts to offer."""

    def __repr__(self) -> str:
        return f"Reply(reason={self.reason!s}, message={self.message!r}, preempt={self.preempt})"


class RetryLead:
    """A failed task fired again with the same inputs in this invocation; ``say`` leads the fire."""

    __slots__ = ("say", "task")

    def __init__(self, task: str, say: Segment) -> None:
        self.task = task
        self.say = say


def format_line(tag: str, data: Mapping[str, Any]) -> str:
    """The log line format: ``[slot-filling:tag] k='v' ...`` (values through ``repr``)."""
    parts = " ".join(f"{k}={v!r}" for k, v in data.items())
    return f"[slot-filling:{tag}]" + (f" {parts}" if parts else "")


class Trace:
    """The structured event log of one invocation: ``_debug_log`` entries and log lines.

    ``enabled`` collects ``_debug_log`` entries (the ``debug`` input); ``log`` emits log lines (decided
    once, when the trace is created, from the ``slotgraph.engine`` logger's level unless given)."""

    __slots__ = ("enabled", "entries", "log")

    def __init__(
        self, enabled: bool = False, entries: list[dict[str, Any]] | None = None, log: bool | None = None
    ) -> None:
        self.enabled = enabled
        self.entries: list[dict[str, Any]] = [] if entries is None else entries
        self.log = _LOGGER.isEnabledFor(logging.INFO) if log is None else log

    @property
    def active(self) -> bool:
        """Whether anything is recorded at all; call sites building costly data check this first."""
        return self.enabled or self.log

    def emit(self, tag: str, **data: Any) -> None:
        if not (self.enabled or self.log):
            return
        if self.enabled:
            self.entries.append({"tag": tag, **data})
        if self.log:
            _LOGGER.info("%s", format_line(tag, data))


class Invocation:
    """One invocation's context (see the module docstring). A plain slotted class with a hand-written
    ``__init__``: it is built once per call, on every call, and a dataclass's generated one with seven
    default factories cost ~2x as much."""

    __slots__ = (
        "candidates_used",
        "choose",
        "dag",
        "deferred",
        "event_data",
        "event_prefilled",
        "filled",
        "force_preempt",
        "formatted",
        "fresh_deferred",
        "fresh_pending",
        "gate_user_text",
        "host_rechecks",
        "inline_confirmed",
        "messages",
        "pending",
        "prior_pending",
        "promoted",
        "readback_transition",
        "recheck_after_model",
        "retries",
        "retrying",
        "sm",
        "state_changed",
        "steer_armed",
        "steer_back_directive",
        "steer_yield",
        "then_say",
        "trace",
        "user_text",
        "variables",
    )

    def __init__(
        self,
        dag: CompiledDag,
        sm: dict[str, Any],
        user_text: str,
        choose: Choose,
        trace: Trace,
        event_data: Mapping[str, Any] | None = None,
        variables: Mapping[str, Any] | None = None,
        host_rechecks: bool = True,
        gate_user_text: str = "",
    ) -> None:
        self.dag = dag
        self.sm = sm
        self.user_text = user_text
        self.choose = choose
        self.trace = trace
        self.event_data = event_data
        self.variables: Mapping[str, Any] = {} if variables is None else variables
        """The agent's session variables, which slot and task conditions may read (a filled slot wins)."""
        self.host_rechecks = host_rechecks
        """The host invokes the engine again after the model's step when ``recheck_after_model`` asks it to
        (the runtime and the ADK adapter do). When False (a spec host that does not), the hard and escalate
        steer-back tiers apply on the user's own invocation, as on the original platform."""
        self.gate_user_text = gate_user_text
        """What the user said while the gate slot was closed (kept by the host), handed back to the model as
        a ``<user_context>`` block on this invocation (docs/engine.md#gate-slot)."""
        self.prior_pending = False
        """``pending`` was non-empty when the previous invocation ended (from ``_last_state``)."""
        self.state_changed = False
        """``filled``/``pending``/``deferred`` differ from what the previous invocation left
        (``_last_state``)."""
        self.fresh_pending = False
        """``pending`` is non-empty now and was empty when the previous invocation ended, or values were
        just promoted from ``deferred``."""
        self.inline_confirmed = False
        self.readback_transition = False
        self.event_prefilled = False
        self.force_preempt = False
        self.then_say: Segment | None = None
        """The rendered ``then_say`` of a non-terminal task that just succeeded (leads the next reply)."""
        self.retrying: list[RetryLead] = []
        """Failed tasks to fire again at once (same inputs, attempts left): their ``retry_say`` leads."""
        self.messages: list[Segment] = []
        """Segments earlier stages produced that lead the final reply (announce texts)."""
        self.fresh_deferred: list[str] = []
        """Slots routed from ``pending`` to ``deferred`` in this invocation."""
        self.promoted: list[str] = []
        """Slots promoted from ``deferred`` to ``pending`` in this invocation (group completion)."""
        self.steer_back_directive: str | None = None
        """The soft steer-back directive of this invocation."""
        self.recheck_after_model = False
        """The host must invoke the engine once more after the model's step, even without tool calls (a
        held fire, an armed steer-back tier): the decision depends on what the model does with the user's
        message."""
        self.steer_armed: str | None = None
        """The steer-back tier (``hard``/``escalate``) armed on this user invocation (see steer_back)."""
        self.steer_yield = False
        """This user turn is the yield after a hard steer-back: no tier applies."""
        self.candidates_used: list[str] = []
        """Early answers and held values used in this invocation (``_candidates``/``_held``)."""
        self.formatted: dict[str, tuple[Any, str]] = {}
        """``{slot: (value, readback text)}``: values formatted in this invocation (the readback, its scope
        and a steer-back target format the same pending values)."""
        self.filled: dict[str, Any] = sm["filled"]
        """``sm["filled"]`` (the same dict: the invocation changes these four containers in place and never
        rebinds them in ``sm``)."""
        self.pending: dict[str, Any] = sm["pending"]
        self.deferred: dict[str, Any] = sm["deferred"]
        self.retries: dict[str, int] = sm["_retries"]
        """``sm["_retries"]``."""

    def format_value(self, name: str, value: Any) -> str:
        """``value`` as the readback says it (:func:`~slotgraph.engine.readback.format_value`), formatted
        once per invocation for the same value object."""
        known = self.formatted.get(name)
        if known is not None and known[0] is value:
            return known[1]
        text = format_value(self.dag, name, value)
        self.formatted[name] = (value, text)
        return text
