"""Response guards: checks on the assistant's text before the person sees it.

A guard has one **check** — ``pattern`` (a regular expression searched in the sentence), ``code`` (an
expression over the session's variables and ``text``, the sentence; true is a violation), ``llm`` (one
ALLOW/DENY judge call) or ``safety`` (a Llama Guard-style classifier and a versioned profile,
:mod:`slotgraph.logic.safety`) — and one action **on violation**:

* ``replace`` — the violating sentence and the rest of the reply give way to the guard's ``message``;
* ``redact`` — the match (the whole sentence for ``code`` and ``llm`` checks) is replaced by ``redaction``
  and the reply goes on; later guards see the redacted sentence;
* ``regenerate`` — the host asks the model for a new reply (bounded by ``max_regenerations``), which is
  guarded from the start again; once the attempts are used up the guard acts as ``replace`` when it has a
  ``message``, else as ``suppress``;
* ``suppress`` — the violating sentence and the rest of the reply are dropped, with no replacement.

Evaluation is **sentence-buffered**: :class:`SentenceBuffer` cuts text into sentences as it arrives and
only a *complete* sentence is checked. A terminator (``.``, ``!``, ``?``, ``…``) ends a sentence only when
whitespace follows it, so ``4.5%`` never splits — also when the text arrives in pieces and a piece ends on
``4.`` — and common abbreviations (``e.g.``, ``Dr.``) do not end one either. Sentences before the violating
one are kept.

A check that cannot decide (an expression that fails to evaluate, a judge that errs or answers neither
ALLOW nor DENY) is reported with a ``check_failed`` event and then counts as a pass — unless the guard is
``strict``, which fails closed and counts it as a violation.

Everything a guard does is a typed :class:`GuardEvent` (which guard, which check, which action, which
sentence); the events never carry the text that was withheld. Nothing here does I/O: the host passes the
judge (:class:`GuardJudge`) and the regeneration callback (:data:`Regenerate`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from slotgraph.config.logic import ResponseGuardConfig, SafetyConfig
from slotgraph.expr import Expression, ExpressionError
from slotgraph.logic.conditions import LogicJudge, evaluate_llm_judge, judge_prompt
from slotgraph.logic.safety import SafetyClassifier, SafetyPolicy, check_safety, resolve_safety
from slotgraph.logic.templates import compile_logic_expression

__all__ = [
    "CompiledGuard",
    "GuardEvent",
    "GuardJudge",
    "GuardedReply",
    "Regenerate",
    "SentenceBuffer",
    "compile_guards",
    "guard_reply",
    "judge_system_prompt",
    "split_sentences",
]

logger = logging.getLogger("slotgraph.logic")

GuardEventAction = Literal["replace", "redact", "regenerate", "suppress", "check_failed"]
CheckKind = Literal["pattern", "code", "llm", "safety"]

_TERMINATORS: Final = ".!?…"
_CLOSERS: Final = "\"')]}»”’"
_ABBREVIATIONS: Final = frozenset(
    {"e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "prof", "st", "approx", "incl"}
)


@dataclass(frozen=True, slots=True)
class GuardEvent:
    """A response guard acted on the assistant's text (or could not decide: ``check_failed``).

    ``sentence`` is the 0-based index of the sentence in the reply that was checked; ``detail`` says why
    (the judge's answer, the evaluation error, "attempts used up"), never the withheld text."""

    guard: str
    check: CheckKind
    action: GuardEventAction
    sentence: int
    detail: str = ""
    kind: Literal["guard"] = "guard"


GuardJudge = LogicJudge
"""The host's LLM judge (:class:`~slotgraph.logic.conditions.LogicJudge`): for a guard, ``system`` is the
guard's prompt and ``text`` the sentence."""


Regenerate = Callable[[str], Awaitable[str | None]]
"""The host's regeneration: given feedback for the model, the text of a new reply (None: none came)."""


@dataclass(frozen=True, slots=True)
class CompiledGuard:
    """A guard, compiled once: its config, its name, and its regex, expression or safety policy."""

    name: str
    config: ResponseGuardConfig
    regex: re.Pattern[str] | None = None
    expression: Expression | None = None
    safety: SafetyPolicy | None = None

    @property
    def check(self) -> CheckKind:
        return self.config.check.kind


def compile_guards(
    configs: Sequence[ResponseGuardConfig], safety: SafetyConfig | None = None
) -> tuple[CompiledGuard, ...]:
    """Compile guards (a bad regex raises ``re.error``, a bad expression ExpressionSyntaxError, a safety
    check without its profile ValueError; the agent's validation reports them with their locations first)."""
    out: list[CompiledGuard] = []
    for index, config in enumerate(configs):
        check = config.check
        out.append(
            CompiledGuard(
                name=config.name or f"response_guards[{index}]",
                config=config,
                regex=re.compile(check.pattern) if check.pattern is not None else None,
                expression=compile_logic_expression(check.code) if check.code is not None else None,
                safety=resolve_safety(safety, check.safety) if check.safety is not None else None,
            )
        )
    return tuple(out)


class SentenceBuffer:
    """Cuts text into sentences as it arrives; each sentence keeps its trailing whitespace, so the
    sentences joined give back the text exactly.

    :meth:`feed` returns the sentences completed by a piece of text; :meth:`flush` the rest at the end."""

    def __init__(self) -> None:
        self._pending = ""

    def feed(self, chunk: str) -> list[str]:
        self._pending += chunk
        out: list[str] = []
        start = 0
        for end in _boundaries(self._pending):
            out.append(self._pending[start:end])
            start = end
        self._pending = self._pending[start:]
        return out

    def flush(self) -> list[str]:
        rest, self._pending = self._pending, ""
        return [rest] if rest else []


def _boundaries(text: str) -> list[int]:
    """Where sentences end in ``text``: after a terminator run (and closing quotes) followed by
    whitespace, or after a newline; the whitespace belongs to the sentence before it."""
    out: list[int] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == "\n":
            j = i
            while j < n and text[j].isspace():
                j += 1
            if j < n:  # whitespace at the very end may still grow: wait
                out.append(j)
            i = j
            continue
        if char in _TERMINATORS:
            j = i
            while j < n and text[j] in _TERMINATORS:
                j += 1
            while j < n and text[j] in _CLOSERS:
                j += 1
            if j >= n or not text[j].isspace():
                i = j if j > i else i + 1  # "4.5%", "a.m.", or the end of what arrived: not yet
                continue
            if char == "." and _abbreviation(text, i):
                i = j
                continue
            k = j
            while k < n and text[k].isspace():
                k += 1
            if k < n:
                out.append(k)
            i = k
            continue
        i += 1
    return out


def _abbreviation(text: str, dot: int) -> bool:
    start = dot
    while start > 0 and (text[start - 1].isalpha() or text[start - 1] == "."):
        start -= 1
    word = text[start:dot].lower()
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha() and text[start].isupper())


def split_sentences(text: str) -> list[str]:
    """The sentences of a whole text (see :class:`SentenceBuffer`)."""
    buffer = SentenceBuffer()
    return buffer.feed(text) + buffer.flush()


def judge_system_prompt(prompt: str) -> str:
    """The guard call site's judge prompt: the guard's prompt verbatim, then what ALLOW and DENY mean here."""
    return judge_prompt(
        prompt,
        "You are checking one sentence an assistant is about to say.",
        "it may be said",
        "it must not",
    )


@dataclass(frozen=True, slots=True)
class GuardedReply:
    """What the person may see (``""`` when everything was suppressed) and what the guards did."""

    text: str
    events: tuple[GuardEvent, ...] = ()
    regenerations: int = 0

    @property
    def changed(self) -> bool:
        return any(event.action != "check_failed" for event in self.events)


@dataclass(slots=True)
class _Run:
    guards: Sequence[CompiledGuard]
    variables: Mapping[str, Any]
    judge: GuardJudge | None
    regenerate: Regenerate | None
    classifier: SafetyClassifier | None = None
    user: str = ""
    events: list[GuardEvent] = field(default_factory=list)
    attempts: dict[str, int] = field(default_factory=dict)
    regenerating: str = ""
    detail: str = ""
    """What the last verdict found that its event may say (a safety check's profile and categories)."""

    async def verdict(self, guard: CompiledGuard, body: str, index: int) -> bool:
        """Whether ``body`` violates ``guard`` (an undecided check: reported, then strict decides)."""
        problem: str
        self.detail = ""
        try:
            if guard.regex is not None:
                return guard.regex.search(body) is not None
            if guard.expression is not None:
                return bool(guard.expression.evaluate({**self.variables, "text": body}))
            if guard.safety is not None:
                return await self.safe(guard, guard.safety, body, index)
            prompt = guard.config.check.llm or ""
            verdict = await evaluate_llm_judge(
                self.judge, system=judge_system_prompt(prompt), text=body, model=guard.config.check.model
            )
            if verdict.value is not None:
                return not verdict.value  # DENY is a violation
            problem = verdict.problem
        except ExpressionError as err:
            problem = err.one_line()
        logger.warning("response guard %s could not decide: %s", guard.name, problem)
        self.events.append(GuardEvent(guard.name, guard.check, "check_failed", index, problem))
        return guard.config.strict

    async def safe(self, guard: CompiledGuard, policy: SafetyPolicy, body: str, index: int) -> bool:
        """A safety check of ``body``: a violation when the classifier flags a category the profile blocks;
        a failed check is reported and follows the policy's ``on_failure`` (``strict`` blocks too)."""
        verdict = await check_safety(self.classifier, policy, user=self.user, text=body)
        self.detail = verdict.detail(policy)
        if verdict.violation is None:
            logger.warning("response guard %s could not decide: %s", guard.name, self.detail)
            self.events.append(GuardEvent(guard.name, guard.check, "check_failed", index, self.detail))
            return verdict.decided(policy) or guard.config.strict
        return verdict.violation

    async def once(self, text: str) -> tuple[str, str | None]:
        """Guard one reply: the released text, or the feedback of a regeneration to ask for."""
        released: list[str] = []
        for index, sentence in enumerate(split_sentences(text)):
            body = sentence.rstrip()
            tail = sentence[len(body) :]
            if not body:
                released.append(sentence)
                continue
            for guard in self.guards:
                if not await self.verdict(guard, body, index):
                    continue
                action = guard.config.on_violation
                detail = self.detail
                if action == "regenerate":
                    used = self.attempts.get(guard.name, 0)
                    if self.regenerate is not None and used < guard.config.max_regenerations:
                        self.attempts[guard.name] = used + 1
                        self.regenerating = guard.name
                        self.events.append(GuardEvent(guard.name, guard.check, "regenerate", index, detail))
                        return "", _feedback(guard)
                    action = "replace" if guard.config.message is not None else "suppress"
                    why = "no regeneration left" if self.regenerate else "the host cannot regenerate"
                    detail = f"{detail}; {why}" if detail else why
                self.events.append(GuardEvent(guard.name, guard.check, action, index, detail))
                if action == "redact":
                    body = _redact(guard, body)
                    continue
                if action == "replace":
                    released.append(f"{guard.config.message}{tail}")
                return "".join(released).strip(), None
            released.append(body + tail)
        return "".join(released).strip(), None


def _redact(guard: CompiledGuard, body: str) -> str:
    mask = guard.config.redaction
    if guard.regex is not None:
        return guard.regex.sub(lambda _match: mask, body)
    return mask


def _feedback(guard: CompiledGuard) -> str:
    rule = f": {guard.config.check.llm.strip()}" if guard.config.check.llm else ""
    return (
        f"Your previous reply was not sent to the person: it broke the response rule {guard.name!r}{rule}. "
        "Write the reply again without breaking it."
    )


async def guard_reply(
    text: str,
    guards: Sequence[CompiledGuard],
    variables: Mapping[str, Any],
    *,
    judge: GuardJudge | None = None,
    regenerate: Regenerate | None = None,
    classifier: SafetyClassifier | None = None,
    user: str = "",
) -> GuardedReply:
    """Check ``text`` sentence by sentence against ``guards`` (in order) and apply their actions.

    ``variables`` are what ``code`` checks read (``text`` is added: the sentence); a ``safety`` check asks
    ``classifier`` about the sentence after ``user`` (the person's latest message). A ``regenerate`` action
    calls ``regenerate`` with feedback for the model and guards the new reply from the start; the attempts
    are counted per guard over the whole call, so the loop is bounded."""
    run = _Run(guards, variables, judge, regenerate, classifier, user)
    current = text
    regenerations = 0
    while True:
        released, feedback = await run.once(current)
        if feedback is None:
            return GuardedReply(released, tuple(run.events), regenerations)
        assert regenerate is not None
        regenerations += 1
        new = await regenerate(feedback)
        if new and new.strip():
            current = new
        else:  # no new reply: the guard falls back on the reply it rejected
            run.attempts[run.regenerating] = 1 << 30
