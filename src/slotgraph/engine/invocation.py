"""Per-invocation context shared by the pipeline stages, and the stage outcome type.

An :class:`Invocation` lives for one engine call. It owns ``sm`` — the invocation's *working copy* of the
state (never the caller's dict) — and the facts earlier stages established for later ones (was pending fresh,
was the readback confirmed inline, which messages accumulated). Nothing here outlives the call, so two
sessions on two threads never share anything.

A stage either returns ``None`` (carry on) or a :class:`Reply` (the invocation ends with this reply).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from slotgraph.config.compiled import CompiledDag

__all__ = ["Choose", "FunctionCall", "Invocation", "Reply", "Trace"]

Choose = Callable[[Sequence[str]], str]
"""Picks one string from a non-empty sequence (the engine's only source of variety, injected)."""


@dataclass(frozen=True, slots=True)
class FunctionCall:
    """A tool call the host executes on the engine's behalf (task fire, auto-confirm, exhaustion)."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "args": dict(self.args)}


@dataclass(frozen=True, slots=True)
class Reply:
    """How an invocation ends: a message (preempted or relayed) and/or a function call."""

    message: str | None = None
    function_call: FunctionCall | None = None
    preempt: bool = False
    force_preempt: bool = False
    reason: str = ""
    """Which decision produced the reply (``fire``, ``slot_error``, ``auto_confirm``, ...), for the log."""


@dataclass(slots=True)
class Trace:
    """The opt-in structured event log (spec §19.4 ``_debug_log``). Records nothing unless enabled."""

    enabled: bool = False
    entries: list[dict[str, Any]] = field(default_factory=list)

    def emit(self, tag: str, **data: Any) -> None:
        if self.enabled:
            self.entries.append({"tag": tag, **data})


@dataclass(slots=True)
class Invocation:
    dag: CompiledDag
    sm: dict[str, Any]
    user_text: str
    choose: Choose
    trace: Trace
    event_data: Mapping[str, Any] | None = None
    prior_pending: bool = False
    """``pending`` was non-empty when the previous invocation ended (from ``_last_state``)."""
    fresh_pending: bool = False
    """``pending`` is non-empty now and was empty when the previous invocation ended (§4.3)."""
    inline_confirmed: bool = False
    readback_transition: bool = False
    event_prefilled: bool = False
    force_preempt: bool = False
    then_say: str | None = None
    """The rendered ``then_say`` of a non-terminal task that just succeeded (leads the next reply)."""
    messages: list[str] = field(default_factory=list)
    """Messages earlier stages produced that lead the final reply (announce texts, ``then_say``)."""

    @property
    def filled(self) -> dict[str, Any]:
        value: dict[str, Any] = self.sm["filled"]
        return value

    @property
    def pending(self) -> dict[str, Any]:
        value: dict[str, Any] = self.sm["pending"]
        return value

    @property
    def deferred(self) -> dict[str, Any]:
        value: dict[str, Any] = self.sm["deferred"]
        return value

    @property
    def retries(self) -> dict[str, int]:
        value: dict[str, int] = self.sm["_retries"]
        return value
