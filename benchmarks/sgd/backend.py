"""A mock backend that answers from one dialogue's gold service calls.

The executor tools of a converted agent (:mod:`slotgraph.evals.sgd.convert`) call a :class:`Backend`. The
:class:`GoldBackend` answers a call with the result of the gold call of the same method and arguments: the
gold results (a search's list, a booking's record), or a failure where the gold system reported one (a
``NOTIFY_FAILURE`` system act; a failed booking that returned a record offers that record as an
alternative). A call the gold never made gets what a real backend would most plausibly answer — no
results for a search, a failure for a transaction — and is recorded as a mismatch.

A real booking backend also finds a business by the name a person says: "Kampai Bar" is the restaurant its
database spells "Kampai Bar And Grill" (the gold system confirms the long form). :class:`Catalogue` is that
database: every row the dataset's gold calls returned, per service; :meth:`Backend.find_name` looks a said
name up in it (see :func:`find_name` for the rule).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .data import Dialogue, GoldCall

__all__ = ["Backend", "BackendCall", "Catalogue", "GoldBackend", "find_name"]

Row = Mapping[str, str]


class Backend(Protocol):
    """What executor tools call: ``method`` (the SGD intent) with SGD-style string parameters."""

    def call(self, method: str, parameters: Mapping[str, str], *, transactional: bool) -> dict[str, Any]: ...

    def find_name(self, slot: str, said: str, known: Mapping[str, str]) -> str | None:
        """The database's spelling of the ``slot`` value a person said (``known``: the booking's other
        values, SGD slot → value), or None when the database has no single match."""
        ...


@dataclass(frozen=True, slots=True)
class Catalogue:
    """A service database: per service, every distinct row its gold calls returned in the loaded data, and
    the parameters of those calls (the names the gold system sent are ones its database knows)."""

    rows: Mapping[str, tuple[Row, ...]]

    @classmethod
    def of(cls, dialogues: Iterable[Dialogue]) -> Catalogue:
        rows: dict[str, dict[tuple[tuple[str, str], ...], Row]] = {}
        for dialogue in dialogues:
            seen = rows.setdefault(dialogue.service, {})
            for call in dialogue.gold_calls:
                # what the gold system sent is spelled as the database spells it, even when nothing came back
                for row in (call.parameters, *call.results):
                    if row:
                        seen.setdefault(tuple(sorted(row.items())), row)
        return cls({service: tuple(found.values()) for service, found in rows.items()})

    def of_service(self, service: str) -> tuple[Row, ...]:
        return self.rows.get(service, ())


_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> tuple[str, ...]:
    """The words of a name, a leading "the" left out."""
    words = tuple(_WORD.findall(text.lower().replace("&", " and ").replace("'", "")))
    return words[1:] if words[:1] == ("the",) else words


def _in_order(short: Sequence[str], full: Sequence[str]) -> bool:
    """``short`` is ``full`` with words left out, starting at the same word."""
    if not short or not full or short[0] != full[0]:
        return False
    rest = iter(full[1:])
    return all(word in rest for word in short[1:])


def find_name(rows: Sequence[Row], slot: str, said: str, known: Mapping[str, str]) -> str | None:
    """The one ``slot`` value of ``rows`` that ``said`` names: a name with the same first word and the said
    words in order ("Kampai Bar" → "Kampai Bar And Grill", "Wooden Charcoal Barbecue" → "Wooden Charcoal
    Korean Village Barbecue House"; case, punctuation, "&"/"and" and a leading "the" on either side ignored:
    "The Van's" → "The Van's Restaurant"). Of several, those whose rows agree with most ``known`` values
    (the booking's city); of those, the one spelt as said; a tie, or no match → None."""
    words = _words(said)
    if not words:
        return None
    wanted = {k: v.strip().lower() for k, v in known.items() if k != slot}
    agreement: dict[str, int] = {}
    for row in rows:
        if slot in row and _in_order(words, _words(row[slot])):
            agreed = sum(1 for k, v in wanted.items() if row.get(k, "").strip().lower() == v)
            agreement[row[slot]] = max(agreed, agreement.get(row[slot], 0))
    best = max(agreement.values(), default=0)
    names = [name for name, agreed in agreement.items() if agreed == best]
    if len(names) > 1:
        names = [name for name in names if _words(name) == words]
    if not names:
        return None
    spelt = [name for name in names if name.lower() == said.strip().lower()]
    return spelt[0] if spelt else names[0] if len(names) == 1 else None


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
    database: Sequence[Row] = ()
    """The service's rows (:class:`Catalogue`) that :meth:`find_name` searches."""
    calls: list[BackendCall] = field(default_factory=list)

    def find_name(self, slot: str, said: str, known: Mapping[str, str]) -> str | None:
        return find_name(self.database, slot, said, known)

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
