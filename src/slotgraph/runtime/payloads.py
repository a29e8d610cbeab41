"""After-model payload delivery (the host's ``after_model_callback``, docs/engine.md#rich-responses).

When the engine has rich response parts but is not preempting, its action *stashes* them
(:attr:`slotgraph.engine.EngineAction.stash`) for the model call it prepared. They belong to what that call
is meant to say — typically the question being asked — so the runtime delivers them only after a model
reply that *ends the step chain* (a response without tool calls), right after its text, at most once per
turn. A response with tool calls is answering something (often the very question whose card is stashed):
nothing is delivered, and the engine invocation after the tools stashes what the next reply needs.

A stashed ``text`` part that the directive already carries is not delivered: the model was told to relay
the directive, so the words are said once — in the model's reply (an imported welcome whose ``response``
repeats its ``message`` beside a card is said once, followed by the card). Text the directive does not
carry (an error's "Please pick one of these:" before its chips) is delivered as written.

The stash travels in the action, not in the session state (the spec-compatible entry alone writes it to
``sm["_pending_payloads"]`` for hosts that expect it there).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from slotgraph.runtime.events import Event
from slotgraph.runtime.preemption import part_events

__all__ = ["stash_events", "stash_to_deliver"]


def stash_events(stash: Sequence[Mapping[str, Any]]) -> list[Event]:
    """The events of a stash's parts (payload, audio, text, end_session, transfer), in order."""
    return part_events(list(stash)) if stash else []


def stash_to_deliver(
    stash: Sequence[Mapping[str, Any]], directive: str | None
) -> tuple[Mapping[str, Any], ...]:
    """``stash`` without the text parts ``directive`` (what the model is told to relay) already carries."""
    relayed = _plain(directive or "")
    if not relayed:
        return tuple(stash)
    return tuple(part for part in stash if not _relayed(part, relayed))


def _plain(text: str) -> str:
    return " ".join(text.split())


def _relayed(part: Mapping[str, Any], directive: str) -> bool:
    if part.get("type") != "text":
        return False
    text = _plain(str(part.get("text") or ""))
    return bool(text) and text in directive
