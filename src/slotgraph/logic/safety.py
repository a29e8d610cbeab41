"""Safety checks: a Llama Guard-style classifier, versioned profiles, a latency limit and a failure policy.

A safety check asks a classifier whether a text the agent is about to say (a sentence, in a response guard)
or send (a tool's arguments, in ``tool_logic``) is safe. The classifier is any model behind the model
protocol that answers as Llama Guard does — ``safe``, or ``unsafe`` and a line of category codes
(``unsafe\\nS1,S10``) — typically an OpenAI-compatible server (vLLM, TGI, Ollama) serving Llama Guard with its
own chat template: the conversation goes in as the person's latest message and the agent's text, and the
template builds the classification prompt.

A **profile** (``safety.profiles``) is versioned and says which categories are violations (``block``);
other categories the classifier flags are allowed. Events and logs name the profile as ``name@version``,
so what was enforced is known after the profile changes.

The **latency limit** (``timeout_seconds``) bounds each check; a check that does not answer in time, fails,
or answers something that is neither ``safe`` nor ``unsafe`` follows ``on_failure``: ``allow`` (fail open,
the default) or ``block`` (fail closed). Nothing here does I/O: the host provides the
:class:`SafetyClassifier`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Protocol

from slotgraph.config.logic import LLAMA_GUARD_CATEGORIES, SafetyCheck, SafetyConfig, SafetyFailure

__all__ = [
    "SafetyClassifier",
    "SafetyPolicy",
    "SafetyVerdict",
    "check_safety",
    "parse_safety",
    "resolve_safety",
]

_CODE: Final = re.compile(r"[A-Za-z]+\d+")


class SafetyClassifier(Protocol):
    """The host's classifier: one completion of ``model`` (a "provider:model" spec) for a conversation of
    the person's latest message (``user``) and the agent's ``text``. Returns the model's answer text."""

    async def classify(self, *, user: str, text: str, model: str) -> str: ...


@dataclass(frozen=True, slots=True)
class SafetyPolicy:
    """One check's resolved settings: the profile (by name, with its version), what it blocks, the category
    names, the classifier, the latency limit and the failure policy."""

    profile: str
    version: int
    block: frozenset[str]
    names: Mapping[str, str]
    model: str
    timeout: float
    on_failure: SafetyFailure

    @property
    def label(self) -> str:
        return f"{self.profile}@{self.version}"


def resolve_safety(config: SafetyConfig | None, check: SafetyCheck) -> SafetyPolicy:
    """The settings of ``check`` against the agent's ``safety:`` (validation reports an unknown profile or
    a missing ``safety:`` first; here they raise ValueError)."""
    if config is None:
        raise ValueError(f"a safety check names profile {check.profile!r}, but the agent has no safety:")
    profile = config.profiles.get(check.profile)
    if profile is None:
        raise ValueError(f"there is no safety profile {check.profile!r}")
    return SafetyPolicy(
        profile=check.profile,
        version=profile.version,
        block=frozenset(code.upper() for code in profile.block),
        names={**LLAMA_GUARD_CATEGORIES, **{k.upper(): v for k, v in profile.categories.items()}},
        model=check.model or config.model,
        timeout=check.timeout_seconds or config.timeout_seconds,
        on_failure=check.on_failure or config.on_failure,
    )


def parse_safety(answer: str) -> tuple[bool, tuple[str, ...]] | None:
    """A Llama Guard answer: ``(True, ())`` for ``safe``, ``(False, codes)`` for ``unsafe`` (the codes on
    the following lines, upper-cased: ``unsafe\\nS1,S3``), None for anything else."""
    lines = [line.strip() for line in answer.strip().splitlines() if line.strip()]
    if not lines:
        return None
    first = lines[0].lower().rstrip(".")
    if first == "safe":
        return True, ()
    if first == "unsafe":
        return False, tuple(dict.fromkeys(code.upper() for code in _CODE.findall(" ".join(lines[1:]))))
    return None


@dataclass(frozen=True, slots=True)
class SafetyVerdict:
    """The outcome of one check: ``violation`` (True, False, or None when the check failed — ``problem``
    says how), the categories the classifier flagged and the ones the profile blocks."""

    violation: bool | None
    flagged: tuple[str, ...] = ()
    blocked: tuple[str, ...] = ()
    problem: str = ""

    def decided(self, policy: SafetyPolicy) -> bool:
        """Whether it counts as a violation: a failed check follows the policy's ``on_failure``."""
        return policy.on_failure == "block" if self.violation is None else self.violation

    def detail(self, policy: SafetyPolicy) -> str:
        """One line for events and logs (never the checked text)."""
        if self.violation is None:
            return f"{policy.label}: {self.problem} ({'blocked' if self.decided(policy) else 'allowed'})"
        if not self.violation:
            return f"{policy.label}: safe" + (
                f" (flagged {', '.join(self.flagged)}, allowed)" if self.flagged else ""
            )
        named = ", ".join(f"{code} {policy.names.get(code, '')}".strip() for code in self.blocked)
        return f"{policy.label}: unsafe ({named})"


async def check_safety(
    classifier: SafetyClassifier | None, policy: SafetyPolicy, *, user: str, text: str
) -> SafetyVerdict:
    """Classify ``text`` (the agent's) after ``user`` (the person's latest message) within the policy's
    latency limit; never raises."""
    if classifier is None:
        return SafetyVerdict(None, problem="no safety classifier is available to this host")
    try:
        answer = await asyncio.wait_for(
            classifier.classify(user=user, text=text, model=policy.model), policy.timeout
        )
    except TimeoutError:
        return SafetyVerdict(None, problem=f"the classifier did not answer within {policy.timeout:g} s")
    except Exception as err:  # a classifier backend failing must never break the turn
        return SafetyVerdict(None, problem=f"the classifier failed: {type(err).__name__}: {err}")
    parsed = parse_safety(answer if isinstance(answer, str) else "")
    if parsed is None:
        return SafetyVerdict(None, problem=f"the classifier answered neither safe nor unsafe: {answer!r:.60}")
    safe, flagged = parsed
    if safe:
        return SafetyVerdict(False)
    if not flagged:  # "unsafe" without categories: nothing to compare with the profile, so it is unsafe
        return SafetyVerdict(True, (), ("unspecified",))
    blocked = tuple(code for code in flagged if code in policy.block)
    return SafetyVerdict(bool(blocked), flagged, blocked)
