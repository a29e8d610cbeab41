"""The start of a user turn (the host's ``before_agent_callback``): ``begin_turn``.

Initialises every missing state key with its default (docs/engine.md#the-state-sm), clears the per-turn flag
``_event_prefilled_this_turn``, and processes a deferred rejection (see
:mod:`slotgraph.engine.stages.rejection`). Returns a new state; the given one is never mutated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from slotgraph.config.compiled import CompiledDag
from slotgraph.engine.stages.rejection import apply_rejection
from slotgraph.engine.state import checked_copy, with_defaults

__all__ = ["begin_turn"]


def begin_turn(dag: CompiledDag, sm: Mapping[str, Any]) -> dict[str, Any]:
    out = with_defaults(checked_copy(sm))
    out.pop("_event_prefilled_this_turn", None)
    apply_rejection(out)
    return out
