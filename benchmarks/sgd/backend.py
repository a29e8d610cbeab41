"""A mock backend that answers from one dialogue's gold service calls.

The executor tools of a converted agent (:mod:`slotgraph.evals.sgd.convert`) call a :class:`Backend`. The
:class:`GoldBackend` answers a call with the result of the gold call of the same method and arguments: the
gold results (a search's list, a booking's record), or a failure where the gold system reported one (a
``NOTIFY_FAILURE`` system act; a failed booking that returned a record offers that record as an
alternative). A call the gold never made gets what a real backend would most plausibly answer — no
results for a search, a failure for a transaction — and is recorded as a mismatch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .data import GoldCall

__all__ = ["Backend", "BackendCall", "GoldBackend"]


class Backend(Protocol):
    """What executor tools call: ``method`` (the SGD intent) with SGD-style string parameters."""

    def call(self, method: str, parameters: Mapping[str, str], *, transactional: bool) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class BackendCall:
    """One call the runtime made, and whether a gold call had the same method and arguments."""

    method: str
    parameters: Mapping[str, str]
    transactional: bool
    matched: bool


def _norm(parameters: Mapping[str, str]) -> dict[str, str]:
    return {k: str(v).strip().lower() for k, v in parameters.items()}


@dataclass
class GoldBackend:
    """Answers from ``gold_calls``; ``calls`` logs every call the runtime made, in order."""

    gold_calls: Sequence[GoldCall]
    calls: list[BackendCall] = field(default_factory=list)

    def _find(self, method: str, parameters: Mapping[str, str]) -> GoldCall | None:
        wanted = _norm(parameters)
        used = sum(1 for c in self.calls if c.method == method and _norm(c.parameters) == wanted)
        same = [g for g in self.gold_calls if g.method == method and _norm(g.parameters) == wanted]
        if not same:
            return None
        return same[min(used, len(same) - 1)]

    def call(self, method: str, parameters: Mapping[str, str], *, transactional: bool) -> dict[str, Any]:
        gold = self._find(method, parameters)
        self.calls.append(BackendCall(method, dict(parameters), transactional, gold is not None))
        if gold is None:
            if transactional:
                return {"success": False, "reason": "the booking could not be made"}
            return {"success": False, "count": 0, "results": []}
        results = [dict(r) for r in gold.results]
        if transactional:
            if gold.failed or not results:
                reply: dict[str, Any] = {"success": False, "reason": "the booking could not be made"}
                if results:
                    reply["alternative"] = results[0]
                return reply
            return {"success": True, **results[0]}
        return {"success": bool(results), "count": len(results), "results": results}
