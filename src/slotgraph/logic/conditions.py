"""Conditions of the logic layer: expressions, and the LLM judge shared by every call site.

A condition is an :class:`~slotgraph.expr.Expression` (a string in the config) or a :class:`JudgeCondition`
(``{kind: llm, prompt: ..., model: ...}``): one cheap ALLOW/DENY completion. Response guards, rule
conditions, tool gates' ``available_when``, topics' ``entry_when``/``return_when`` and hand-off routing
rules accept both.

The LLM judge has one core, :func:`evaluate_llm_judge`: one call of the host's :class:`LogicJudge` with a
system prompt and the text to judge, and the answer read as ALLOW, DENY or undecided. The core never writes
prompt wording — LLM prompt wording is behaviour — so each call site composes its own system prompt around
the author's prompt, which it keeps verbatim (:func:`judge_prompt`: the author's prompt, then one line
saying what ALLOW and DENY mean *there*). What the judge reads is the call site's too: a guard judges the
sentence about to be said; rules, gates, topics and hand-offs judge the person's latest message.

The failure policy is the call site's, as for expressions (:class:`Verdict` carries ``None`` and the problem
when nothing was decided): tool gates and topic entries fail **closed**, rules do not fire, ``return_when``
does not return, guards count a pass unless ``strict``, hand-off routing rules fail **open**. Nothing here
raises into a turn.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from slotgraph.config.logic import Condition, LlmCondition
from slotgraph.expr import Expression, ExpressionError
from slotgraph.logic.safety import SafetyClassifier
from slotgraph.logic.templates import compile_logic_expression

__all__ = [
    "CompiledCondition",
    "Compose",
    "JudgeCondition",
    "Judging",
    "LogicJudge",
    "Verdict",
    "compile_condition",
    "evaluate_llm_judge",
    "judge_prompt",
    "parse_verdict",
]

logger = logging.getLogger("slotgraph.logic")


class LogicJudge(Protocol):
    """The host's LLM judge: one tool-less completion for ``system`` and ``text`` (the user message) with
    ``model`` (a "provider:model" spec; None: the agent's model). Returns the model's answer text."""

    async def __call__(self, *, system: str, text: str, model: str | None) -> str: ...


@dataclass(frozen=True, slots=True)
class JudgeCondition:
    """A condition an LLM decides: the author's ``prompt`` (verbatim) and the judge ``model``."""

    prompt: str
    model: str | None = None


CompiledCondition = Expression | JudgeCondition


def compile_condition(source: Condition) -> CompiledCondition:
    """Compile a condition of the config (a bad expression raises ExpressionSyntaxError; validation reports
    it with its location first)."""
    if isinstance(source, LlmCondition):
        return JudgeCondition(source.prompt, source.model)
    return compile_logic_expression(source)


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a condition holds: ``value`` True or False, or None when nothing was decided (``problem``
    says why: an evaluation error, no judge, a judge that failed or answered neither ALLOW nor DENY)."""

    value: bool | None
    problem: str = ""

    def decided(self, *, default: bool) -> bool:
        """The value, or the call site's ``default`` (its failure policy) when nothing was decided."""
        return default if self.value is None else self.value


def parse_verdict(answer: str) -> bool | None:
    """A judge's answer: True for ALLOW, False for DENY, None when it is neither (the first word decides)."""
    words = re.findall(r"[A-Za-z]+", answer)
    first = words[0].upper() if words else ""
    if first == "ALLOW":
        return True
    if first == "DENY":
        return False
    return None


def judge_prompt(prompt: str, question: str, allow: str, deny: str) -> str:
    """A call site's system prompt: the author's ``prompt`` verbatim, then the call site's ``question`` and
    the one-word answer format (what ``allow`` and ``deny`` mean there)."""
    return f"{prompt.strip()}\n\n{question} Answer with one word: ALLOW if {allow}, DENY if {deny}."


async def evaluate_llm_judge(
    judge: LogicJudge | None, *, system: str, text: str, model: str | None
) -> Verdict:
    """The shared core: one ALLOW/DENY completion of ``judge`` for the composed ``system`` prompt and
    ``text``. ALLOW is True, DENY False; no judge, a judge that raises, or another answer is undecided."""
    if judge is None:
        return Verdict(None, "no judge is available to this host")
    try:
        answer = await judge(system=system, text=text, model=model)
    except Exception as err:  # a judge backend failing must never break the turn
        return Verdict(None, f"the judge failed: {type(err).__name__}: {err}")
    value = parse_verdict(answer if isinstance(answer, str) else "")
    if value is None:
        return Verdict(None, f"the judge answered neither ALLOW nor DENY: {str(answer).strip()!r:.80}")
    return Verdict(value)


Compose = Callable[[str], str]
"""A call site's composer: the author's prompt in, the judge's system prompt out (:func:`judge_prompt`)."""


@dataclass(slots=True)
class Judging:
    """What one session's conditions are judged with: the host's judge (bound per turn) and the person's
    latest message, the text every condition's judge reads."""

    judge: LogicJudge | None = None
    message: str = ""
    classifier: SafetyClassifier | None = None
    """The host's safety classifier (bound per turn with the judge), for safety checks."""

    async def holds(
        self, condition: CompiledCondition, context: Mapping[str, Any], compose: Compose
    ) -> Verdict:
        """Evaluate ``condition``: an expression against ``context`` (its truthiness), or the judge with the
        system prompt ``compose`` makes of the author's prompt, on the person's latest message."""
        if isinstance(condition, JudgeCondition):
            text = self.message if self.message.strip() else "(no message: this turn was started by an event)"
            return await evaluate_llm_judge(
                self.judge, system=compose(condition.prompt), text=text, model=condition.model
            )
        try:
            return Verdict(bool(condition.evaluate(context)))
        except ExpressionError as err:
            return Verdict(None, err.one_line())
        except Exception as err:  # a value without a truth value
            return Verdict(None, f"the condition has no truth value ({type(err).__name__})")
