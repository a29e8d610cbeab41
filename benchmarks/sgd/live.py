"""Replaying with a real model: record what it was shown and did, and find where it first left the oracle.

:class:`RecordingModel` wraps any runtime :class:`~slotgraph.runtime.Model` and keeps, per model call, the
tools it was shown and the tool calls it answered with. :func:`divergence` compares one user turn's calls
with what the oracle would have done with the same gold acts (:func:`~.oracle.plan_ops`) and the same
visible tools, and names the first difference, e.g. ``intent not recognised``, ``missed value: city``,
``wrong value: time``, ``value for a slot the user did not give: destination``, ``missed yes``.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from slotgraph.runtime import Model, ModelRequest, ModelResponse

from .convert import ALTERNATIVES_TOOL, INTENT_SETTER, ConvertedAgent, from_sgd_value
from .data import UserTurn
from .oracle import plan_ops

__all__ = ["ModelCall", "RecordingModel", "TurnReading", "divergence", "load_offline", "make_model"]


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One model call: the tools shown and the calls made (name, arguments)."""

    visible: frozenset[str]
    calls: tuple[tuple[str, Mapping[str, Any]], ...]


@dataclass
class RecordingModel:
    """A model wrapper that records every call, grouped by the user turn the replay is on."""

    inner: Model
    turn: int = -1
    calls: dict[int, list[ModelCall]] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)
    """Wall time of each call to the wrapped model."""

    async def generate(self, request: ModelRequest) -> ModelResponse:
        started = time.perf_counter()
        response = await self.inner.generate(request)
        self.seconds.append(time.perf_counter() - started)
        record = ModelCall(
            frozenset(request.tool_names), tuple((c.name, dict(c.args)) for c in response.tool_calls)
        )
        self.calls.setdefault(self.turn, []).append(record)
        return response


def load_offline() -> float:
    """Load the offline model's bundled data (embeddings, city names) now; the seconds it took."""
    from slotgraph.models.offline.gazetteer import city_index
    from slotgraph.models.offline.semantic import embedder

    started = time.perf_counter()
    embedder()
    city_index()
    return time.perf_counter() - started


def make_model(spec: str, today: datetime.datetime) -> Model:
    """``offline`` (its clock fixed at SGD's today) or any ``provider:model`` spec the registry resolves."""
    if spec == "offline":
        from slotgraph.models.offline import OfflineModel

        return OfflineModel(clock=lambda: today)
    from slotgraph.models.registry import resolve

    return resolve(spec)


@dataclass(frozen=True, slots=True)
class TurnReading:
    """Where a model's reading of a user turn first differed from the oracle's."""

    turn: int
    utterance: str
    reason: str
    detail: str = ""


def _same(value: Any, gold: str, agent: ConvertedAgent, slot: str, tool: str) -> bool:
    for ref in agent.setters.get(slot, ()):
        if ref.tool == tool:
            typed = from_sgd_value(gold, ref.kind, ref.choices, dontcare=ref.dontcare)
            if typed is not None:
                return bool(typed == value) or str(typed).strip().lower() == str(value).strip().lower()
    return str(value).strip().lower() == gold.strip().lower()


def divergence(turn: UserTurn, agent: ConvertedAgent, calls: Sequence[ModelCall]) -> TurnReading | None:
    """The first way the model's calls on ``turn`` differ from the oracle's; None when they agree."""
    visible: set[str] = set()
    made: list[tuple[str, Mapping[str, Any]]] = []
    for call in calls:
        visible |= call.visible
        made.extend(call.calls)
    names = [name for name, _ in made]
    slot_of = {ref.tool: ref for refs in agent.setters.values() for ref in refs}
    said: set[str] = set()

    def reading(reason: str, detail: str = "") -> TurnReading:
        return TurnReading(turn.index, turn.utterance, reason, detail)

    for op in plan_ops(turn, agent):
        if op.kind == "intent":
            if INTENT_SETTER not in visible or op.value not in agent.intents:
                continue
            got = [args.get("intent") for name, args in made if name == INTENT_SETTER]
            if not got:
                return reading("intent not recognised", op.value)
            if op.value not in got:
                return reading("wrong intent", f"{got[0]} for {op.value}")
        elif op.kind in ("inform", "select"):
            said.add(op.slot)
            tools = [ref.tool for ref in agent.setters.get(op.slot, ()) if ref.tool in visible]
            if not tools:
                continue
            got = [(name, args) for name, args in made if name in tools]
            label = "selection" if op.kind == "select" else "value"
            if not got:
                return reading(f"missed {label}: {op.slot}", op.value)
            for name, args in got:
                value = args.get(slot_of[name].param)
                if not _same(value, op.value, agent, op.slot, name):
                    return reading(f"wrong {label}: {op.slot}", f"{value!r} for {op.value!r}")
        elif op.kind == "affirm" and "confirm_pending" in visible and "confirm_pending" not in names:
            if not any(name in slot_of for name in names):
                return reading("missed yes")
        elif op.kind == "negate" and "reject_pending" in visible and "reject_pending" not in names:
            return reading("missed no")
        elif op.kind == "alts" and ALTERNATIVES_TOOL in visible and ALTERNATIVES_TOOL not in names:
            return reading("missed request for other options")
    ops = {op.kind for op in plan_ops(turn, agent)}
    for name, args in made:
        ref = slot_of.get(name)
        if ref is not None and ref.sgd_slot not in said and name != INTENT_SETTER:
            return reading(
                f"value for a slot the user did not give: {ref.sgd_slot}", repr(args.get(ref.param))
            )
        if name == "confirm_pending" and "affirm" not in ops:
            return reading("unwanted yes")
        if name == "reject_pending" and "negate" not in ops:
            return reading("unwanted no")
    return None
