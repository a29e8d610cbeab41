"""After-model payload injection (spec §8a ``after_model_callback``).

When the engine has rich response parts but is not preempting, it stashes them (``sm["_pending_payloads"]``)
for the model call it prepared. They belong to what that call is meant to say — typically the question
being asked — so the runtime delivers them only after a model reply that *ends the step chain* (a
response without tool calls), right after its text, at most once per turn:

- a response with tool calls is answering something (often the very question whose card is stashed); its
  stash is dropped, and the engine invocation after the tools stashes what the next reply needs;
- the stash is cleared after every model response, delivered or not, so nothing leaks into a later call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from slotgraph.runtime.events import Event
from slotgraph.runtime.preemption import part_events

__all__ = ["PAYLOADS_KEY", "take_pending_payloads"]

PAYLOADS_KEY = "_pending_payloads"


def take_pending_payloads(sm: Mapping[str, Any], *, deliver: bool) -> tuple[dict[str, Any], list[Event]]:
    """``(sm with the stash cleared, the stash's events when deliver else [])``."""
    stash = sm.get(PAYLOADS_KEY) or []
    if not stash:
        return dict(sm), []
    new_sm = dict(sm)
    new_sm[PAYLOADS_KEY] = []
    return new_sm, part_events(list(stash)) if deliver else []
