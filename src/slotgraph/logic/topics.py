"""Topics (subagents): named specialists of one agent the conversation moves between.

A topic has its own instructions, which **take over** the prompt while it is active (history and variables
carry over; a topic without instructions keeps the main prompt). The active topic *is* the
``current_topic`` session variable, which this module maintains (a capability-published variable: ``#when``
sections, rules and gates read it; ``""`` is the main conversation).

Moves:

* ``transition_topic(topic)`` — the model's tool, whose ``topic`` parameter enumerates the topic ids plus
  ``__return__``; its result carries the entered topic's **resolved** instructions (rendered against the
  live variables, never the raw template), so the model reads them in the same turn;
* a rule's ``transition`` action — one injected instruction, worded as a replacement;
* ``return_when`` — evaluated at the end of every turn in a topic: when true, the conversation returns.

``control: refer`` (default) remembers where the conversation was (a return stack); ``__return__`` and
``return_when`` pop it — a return is never a new entry, so it cannot bounce. ``control: transfer`` clears the
stack: a full hand-over, after which ``__return__`` answers that there is nothing to return to.
``entry_when`` must be true to enter (an expression that fails to evaluate keeps the topic closed); a return
does not recheck the entry condition of where it returns to. Every move — and every refused move — is a
typed :class:`TopicEvent`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from slotgraph.config.logic import TopicConfig
from slotgraph.logic.conditions import CompiledCondition, Compose, Judging, compile_condition, judge_prompt
from slotgraph.logic.templates import Template, parse_template
from slotgraph.logic.variables import VariableStore
from slotgraph.names import TRANSITION_TOPIC

__all__ = [
    "MAIN",
    "RETURN",
    "TOPIC_VARIABLE",
    "TRANSITION_TOPIC",
    "CompiledTopic",
    "TopicEvent",
    "TopicManager",
    "TopicMove",
    "compile_topics",
    "transition_description",
    "transition_parameters",
]

logger = logging.getLogger("slotgraph.logic")

TOPIC_VARIABLE: Final = "current_topic"
RETURN: Final = "__return__"
MAIN: Final = ""
"""The main conversation (no topic active)."""

Via = Literal["model", "rule", "return_when"]


@dataclass(frozen=True, slots=True)
class TopicEvent:
    """The conversation moved between topics (``""`` is the main conversation), or a move was refused
    (``ok`` false, ``message`` says why). ``via``: the model's ``transition_topic``, a rule, or
    ``return_when``."""

    from_topic: str
    to_topic: str
    via: Via
    ok: bool = True
    message: str = ""
    kind: Literal["topic"] = "topic"


@dataclass(frozen=True, slots=True)
class CompiledTopic:
    id: str
    config: TopicConfig
    template: Template | None
    entry_when: CompiledCondition | None
    return_when: CompiledCondition | None


def compile_topics(configs: Sequence[TopicConfig]) -> tuple[CompiledTopic, ...]:
    """Compile topics (a bad expression raises ExpressionSyntaxError; validation reports it first)."""
    return tuple(
        CompiledTopic(
            c.id,
            c,
            parse_template(c.instruction) if c.instruction is not None else None,
            compile_condition(c.entry_when) if c.entry_when else None,
            compile_condition(c.return_when) if c.return_when else None,
        )
        for c in configs
    )


def _entry_prompt(topic: str) -> Compose:
    """The topic-entry call site's judge prompt."""
    return lambda prompt: judge_prompt(
        prompt,
        f"You decide whether the conversation may move to the topic {topic!r} now, from the person's latest "
        "message (the user message).",
        "it may",
        "it may not",
    )


def _return_prompt(topic: str) -> Compose:
    """The topic-return call site's judge prompt."""
    return lambda prompt: judge_prompt(
        prompt,
        f"You decide whether the work of the topic {topic!r} is done, so that the conversation goes back to "
        "where it came from, from the person's latest message (the user message).",
        "it is done",
        "it is not",
    )


def transition_description() -> str:
    return (
        "Move the conversation to one of this agent's topics when the person needs what it handles (the "
        "choices say what each one does), or back with __return__ when the topic's work is done. The "
        "result carries the instructions to follow from now on."
    )


def transition_parameters(topics: Sequence[CompiledTopic]) -> dict[str, object]:
    """The ``transition_topic`` parameter schema: ``topic`` enumerates the ids and ``__return__``, each
    described on its own line (the routing-tool shape the offline model reads too)."""
    lines = [f"- `{t.id}`: {t.config.description}" for t in topics]
    lines.append(f"- `{RETURN}`: go back to where the conversation was before this topic")
    return {
        "type": "object",
        "properties": {
            "topic": {
                "type": "string",
                "enum": [*(t.id for t in topics), RETURN],
                "description": "Where to move the conversation. One of:\n" + "\n".join(lines),
            }
        },
        "required": ["topic"],
        "additionalProperties": False,
    }


@dataclass(frozen=True, slots=True)
class TopicMove:
    """What a move did: its event, and whether the conversation is now somewhere else."""

    event: TopicEvent
    moved: bool = False

    @property
    def ok(self) -> bool:
        return self.event.ok


@dataclass(slots=True)
class TopicManager:
    """One session's topics: the active one (``current_topic``) and the return stack."""

    topics: Mapping[str, CompiledTopic]
    store: VariableStore
    stack: list[str] = field(default_factory=list)
    judging: Judging = field(default_factory=Judging)
    """The judge and the person's latest message, for conditions an LLM decides."""

    @property
    def current(self) -> str:
        value = self.store.get(TOPIC_VARIABLE)
        return value if isinstance(value, str) and value in self.topics else MAIN

    def active(self) -> CompiledTopic | None:
        return self.topics.get(self.current)

    def _set(self, topic: str) -> None:
        self.store.set(TOPIC_VARIABLE, topic)

    def _refuse(self, target: str, via: Via, message: str) -> TopicMove:
        logger.info("topic move to %r refused: %s", target, message)
        return TopicMove(TopicEvent(self.current, target, via, ok=False, message=message))

    async def move(self, target: str, *, via: Via) -> TopicMove:
        """Enter ``target`` (a topic id) or go back (``__return__``)."""
        here = self.current
        if target == RETURN:
            if not self.stack:
                return self._refuse(target, via, "there is nothing to return to")
            back = self.stack.pop()
            self._set(back)
            return TopicMove(TopicEvent(here, back, via), moved=True)
        topic = self.topics.get(target)
        if topic is None:
            known = ", ".join([*self.topics, RETURN])
            return self._refuse(target, via, f"there is no topic {target!r}; choose one of {known}")
        if target == here:
            return TopicMove(TopicEvent(here, target, via))
        if topic.entry_when is not None:
            verdict = await self.judging.holds(topic.entry_when, self.store.context(), _entry_prompt(target))
            if verdict.value is None:  # fails closed
                logger.warning("topic %s: entry_when could not decide: %s", target, verdict.problem)
            if not verdict.decided(default=False):
                return self._refuse(
                    target, via, f"{target!r} cannot be entered now (its entry condition is false)"
                )
        if topic.config.control == "transfer":
            self.stack.clear()
        else:
            self.stack.append(here)
        self._set(target)
        return TopicMove(TopicEvent(here, target, via), moved=True)

    async def return_due(self) -> TopicMove | None:
        """At the end of a turn: the return ``return_when`` asks for, if any (nothing to return to: none)."""
        topic = self.active()
        if topic is None or topic.return_when is None or not self.stack:
            return None
        verdict = await self.judging.holds(topic.return_when, self.store.context(), _return_prompt(topic.id))
        if verdict.value is None:
            logger.warning("topic %s: return_when could not decide: %s", topic.id, verdict.problem)
        return await self.move(RETURN, via="return_when") if verdict.decided(default=False) else None
