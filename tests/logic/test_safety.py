"""The pure part of safety checks: Llama Guard's answer format, profiles, and the failure policy."""

from __future__ import annotations

import asyncio

import pytest

from slotgraph.config.logic import SafetyCheck, SafetyConfig
from slotgraph.logic.safety import check_safety, parse_safety, resolve_safety
from slotgraph.models.offline_safety import OfflineSafetyModel
from slotgraph.models.protocol import AssistantText, ModelRequest, UserMessage

CONFIG = SafetyConfig.model_validate(
    {
        "model": "offline-safety",
        "profiles": {"standard": {"version": 2, "block": ["s1", "X1"], "categories": {"X1": "Competitors"}}},
    }
)


@pytest.mark.parametrize(
    ("answer", "parsed"),
    [
        ("safe", (True, ())),
        ("  Safe.\n", (True, ())),
        ("unsafe\nS1,S3", (False, ("S1", "S3"))),
        ("unsafe\ns10, S1", (False, ("S10", "S1"))),
        ("\nunsafe\n", (False, ())),
        ("I think it is fine", None),
        ("", None),
    ],
)
def test_llama_guard_answers(answer: str, parsed: object) -> None:
    assert parse_safety(answer) == parsed


class Answers:
    def __init__(self, answer: str | None) -> None:
        self.answer = answer

    async def classify(self, *, user: str, text: str, model: str) -> str:
        if self.answer is None:
            await asyncio.Event().wait()  # never answers: the latency limit ends the check
        assert self.answer is not None
        return self.answer


def _check(answer: str | None, **override: object) -> tuple[bool, str]:
    policy = resolve_safety(CONFIG, SafetyCheck.model_validate({"profile": "standard", **override}))
    verdict = asyncio.run(check_safety(Answers(answer), policy, user="hi", text="hello"))
    return verdict.decided(policy), verdict.detail(policy)


def test_a_profile_blocks_its_categories_and_names_them_with_its_version() -> None:
    assert _check("unsafe\nX1") == (True, "standard@2: unsafe (X1 Competitors)")
    assert _check("unsafe\nS1,S2") == (True, "standard@2: unsafe (S1 Violent Crimes)")
    assert _check("unsafe\nS2") == (False, "standard@2: safe (flagged S2, allowed)")
    assert _check("safe") == (False, "standard@2: safe")


def test_a_failed_check_follows_on_failure() -> None:
    assert _check("maybe") == (
        False,
        "standard@2: the classifier answered neither safe nor unsafe: 'maybe' (allowed)",
    )
    blocked, detail = _check(None, timeout_seconds=0.05, on_failure="block")
    assert blocked and "did not answer within 0.05 s (blocked)" in detail
    policy = resolve_safety(CONFIG, SafetyCheck(profile="standard"))
    missing = asyncio.run(check_safety(None, policy, user="", text="x"))
    assert missing.violation is None and "no safety classifier" in missing.problem


def test_the_offline_stand_in() -> None:
    def answer(*texts: str) -> str | None:
        messages = (UserMessage(texts[0]), *(AssistantText(t) for t in texts[1:]))
        return asyncio.run(OfflineSafetyModel().generate(ModelRequest("", messages))).text

    assert answer("hi", "Have a nice day.") == "safe"
    assert answer("hi", "I will murder you and build a bomb.") == "unsafe\nS1,S9"
    assert answer("I want to end my life") == "unsafe\nS11"  # no agent text: the person's message
    assert answer("hi", "anything [unsafe:s2, S7]") == "unsafe\nS2,S7"
    assert answer("kill myself", "[safe]") == "safe"
    assert parse_safety(answer("hi", "x [classifier:garbled]") or "") is None
