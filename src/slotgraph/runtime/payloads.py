"""After-model payload delivery (spec §8a ``after_model_callback``).

When the engine has rich response parts but is not preempting, its action *stashes* them
(:attr:`slotgraph.engine.EngineAction.stash`) for the model call it prepared. They belong to what that call
is meant to say — typically the question being asked — so the runtime delivers them only after a model
reply that *ends the step chain* (a response without tool calls), right after its text, at most once per
turn. A response with tool calls is answering something (often the very question whose card is stashed):
nothing is delivered, and the engine invocation after the tools stashes what the next reply needs.

The stash travels in the action, not in the session state (the spec-compatible entry alone writes it to
``sm["_pending_payloads"]`` for hosts that expect it there).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from slotgraph.runtime.events import Event
from slotgraph.runtime.preemption import part_events

__all__ = ["stash_events"]


def stash_events(stash: Sequence[Mapping[str, Any]]) -> list[Event]:
    """The events of a stash's parts (payload, audio, text, end_session, transfer), in order."""
    return part_events(list(stash)) if stash else []
