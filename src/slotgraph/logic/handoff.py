"""Warm hand-off: ``start_consult`` and the routing rules that gate it.

An agent with ``handoff:`` gets the built-in ``start_consult(destination, reason, summary)``: ``destination``
enumerates the destinations, each described on its own line (how the model learns where to go). A call is
checked against the destination's **routing rule** (``when``: an expression, or an LLM judge reading the
person's latest message). A false rule refuses the hand-off, with the destinations that are open now; a
rule that cannot be decided lets it through — routing rules fail **open**, because a typo must not strand a
caller who needs a person.

What the receiver gets — the **context** — is built here, from the session: the destination, the mode, the
reason and the summary the model wrote, the variables the destination lists (``context``), and the filled
slots. For a person (``kind: human``) the host connects, it is the transfer's details; for another agent of
the app (``kind: agent``) it is the tool result the receiving agent reads in the shared history.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from slotgraph.config.logic import HandoffConfig, HandoffDestination
from slotgraph.logic.conditions import CompiledCondition, Compose, Judging, compile_condition, judge_prompt
from slotgraph.logic.variables import VariableStore
from slotgraph.names import START_CONSULT

__all__ = [
    "START_CONSULT",
    "CompiledDestination",
    "HandoffOutcome",
    "compile_handoff",
    "consult_description",
    "consult_parameters",
    "start_consult",
]

logger = logging.getLogger("slotgraph.logic")

_KINDS: Final = {"human": "a person", "agent": "another agent"}


@dataclass(frozen=True, slots=True)
class CompiledDestination:
    config: HandoffDestination
    when: CompiledCondition | None

    @property
    def id(self) -> str:
        return self.config.id


def compile_handoff(config: HandoffConfig | None) -> tuple[CompiledDestination, ...]:
    """Compile the destinations (a bad expression raises ExpressionSyntaxError; validation reports it with
    its location first)."""
    if config is None:
        return ()
    return tuple(
        CompiledDestination(d, compile_condition(d.when) if d.when is not None else None)
        for d in config.destinations
    )


def consult_description() -> str:
    return (
        "Hand the conversation over, warmly: the receiver gets your summary and what the conversation "
        "established. Use it when the person needs what a destination handles (the choices say what each "
        "one does) and you cannot help further yourself."
    )


def consult_parameters(destinations: Sequence[CompiledDestination]) -> dict[str, Any]:
    """The ``start_consult`` parameter schema: ``destination`` enumerates the ids, each described."""
    lines = [f"- `{d.id}` ({_KINDS[d.config.kind]}): {d.config.description}" for d in destinations]
    return {
        "type": "object",
        "properties": {
            "destination": {
                "type": "string",
                "enum": [d.id for d in destinations],
                "description": "Where to hand the conversation. One of:\n" + "\n".join(lines),
            },
            "reason": {"type": "string", "description": "Why the conversation is handed over."},
            "summary": {
                "type": "string",
                "description": "What the receiver should know, from the conversation: who the person is, "
                "what they need, what was done and what is still open.",
            },
        },
        "required": ["destination", "reason", "summary"],
        "additionalProperties": False,
    }


def _routing_prompt(destination: str) -> Compose:
    """The hand-off call site's judge prompt."""
    return lambda prompt: judge_prompt(
        prompt,
        f"You decide whether the conversation may be handed to {destination!r} now, from the person's latest "
        "message (the user message).",
        "it may",
        "it may not",
    )


@dataclass(frozen=True, slots=True)
class HandoffOutcome:
    """A ``start_consult`` call: its tool result, and — when the hand-off goes ahead — the destination and
    the context the receiver gets."""

    result: dict[str, Any]
    destination: HandoffDestination | None = None
    context: Mapping[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.destination is not None


async def _open(destination: CompiledDestination, store: VariableStore, judging: Judging) -> bool:
    if destination.when is None:
        return True
    verdict = await judging.holds(destination.when, store.context(), _routing_prompt(destination.id))
    if verdict.value is None:
        logger.warning(
            "hand-off to %s: the routing rule could not be decided (%s); the hand-off goes ahead (fail open)",
            destination.id,
            verdict.problem,
        )
    return verdict.decided(default=True)


async def start_consult(
    destinations: Sequence[CompiledDestination],
    args: Mapping[str, Any],
    store: VariableStore,
    judging: Judging,
    filled: Mapping[str, Any],
) -> HandoffOutcome:
    """Check the routing rule of the destination ``args`` names and build the context the receiver gets."""
    wanted = str(args.get("destination", ""))
    by_id = {d.id: d for d in destinations}
    destination = by_id.get(wanted)
    if destination is None:
        return HandoffOutcome(
            {
                "error": True,
                "handed_over": False,
                "message": f"There is no destination {wanted!r}; choose one of {', '.join(by_id)}.",
            }
        )
    if not await _open(destination, store, judging):
        others = [d.id for d in destinations if d.id != wanted and await _open(d, store, judging)]
        hint = (
            f" The destinations open now: {', '.join(others)}." if others else " No destination is open now."
        )
        return HandoffOutcome(
            {
                "error": True,
                "handed_over": False,
                "message": f"The conversation cannot be handed to {wanted} now (its routing rule does not "
                f"allow it).{hint} Tell the person what you can do instead.",
            }
        )
    config = destination.config
    context: dict[str, Any] = {
        "destination": config.id,
        "kind": config.kind,
        "mode": config.mode,
        "reason": str(args.get("reason", "")),
        "summary": str(args.get("summary", "")),
        "variables": {name: store.get(name) for name in config.context},
        "filled": dict(filled),
    }
    result: dict[str, Any] = {"handed_over": True, "destination": config.id, "context": context}
    if config.kind == "agent":
        result["target_agent"] = config.target
    return HandoffOutcome(result, config, context)
