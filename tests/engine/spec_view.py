"""The engine as the spec-compatible entry shows it: the action as the spec's dict, the stash in ``sm``.

The engine tests check decisions against the spec's action keys (docs/engine.md "The action"), so they run
the engine through this view: :func:`run_engine` is :func:`slotgraph.engine.run_engine` with its typed
action turned into the spec's dict by :func:`slotgraph.adapters.cxas.action_dict` — the same conversion the
spec entry makes — and the action's stash written to ``sm["_pending_payloads"]`` as that entry does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from slotgraph.adapters.cxas import PAYLOADS_KEY, action_dict
from slotgraph.engine import run_engine as _run_engine

__all__ = ["SpecResult", "run_engine"]


@dataclass(frozen=True, slots=True)
class SpecResult:
    sm: dict[str, Any]
    action: dict[str, Any]
    debug_log: tuple[dict[str, Any], ...] = field(default=())


def run_engine(dag: Any, sm: Mapping[str, Any], **kwargs: Any) -> SpecResult:
    result = _run_engine(dag, sm, **kwargs)
    new_sm = result.sm
    if result.action.stash or (isinstance(sm, Mapping) and sm.get(PAYLOADS_KEY)):
        new_sm[PAYLOADS_KEY] = [dict(part) for part in result.action.stash]
    return SpecResult(new_sm, action_dict(result.action), result.debug_log)
