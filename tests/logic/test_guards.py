"""Response guards (slotgraph.logic.guards), from the spec's "Response guards" paragraphs: pattern, code
and llm checks; replace, redact, regenerate (bounded) and suppress; sentence-buffered with a decimal-safe
splitter; strict fails closed; every action a typed event that never carries the withheld text."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from pydantic import ValidationError

from slotgraph.config.logic import ResponseGuardConfig
from slotgraph.logic import GuardedReply, SentenceBuffer, guard_reply, split_sentences
from slotgraph.logic.conditions import parse_verdict
from slotgraph.logic.guards import compile_guards
from slotgraph.logic.validation import logic_issues


def _guards(*configs: Mapping[str, Any]) -> tuple[Any, ...]:
    return compile_guards([ResponseGuardConfig.model_validate(c) for c in configs])


def _run(
    text: str,
    configs: Sequence[Mapping[str, Any]],
    variables: Mapping[str, Any] | None = None,
    **kw: Any,
) -> GuardedReply:
    return asyncio.run(guard_reply(text, _guards(*configs), variables or {}, **kw))


# --- the sentence splitter -------------------------------------------------------------------------------


def test_a_dot_between_digits_never_splits() -> None:
    assert split_sentences("Rates rose 4.5% this year. That is all.") == [
        "Rates rose 4.5% this year. ",
        "That is all.",
    ]


def test_a_piece_ending_on_a_decimal_dot_waits_for_the_next_piece() -> None:
    buffer = SentenceBuffer()
    assert buffer.feed("It costs 4.") == []
    assert buffer.feed("5% more! Really") == ["It costs 4.5% more! "]
    assert buffer.feed("?") == []
    assert buffer.flush() == ["Really?"]


def test_sentences_join_back_to_the_text_and_abbreviations_do_not_split() -> None:
    text = 'Dr. Rossi said "yes." Then, e.g. on Friday, we open…  Line\nnext line'
    parts = split_sentences(text)
    assert "".join(parts) == text
    assert parts == ['Dr. Rossi said "yes." ', "Then, e.g. on Friday, we open…  ", "Line\n", "next line"]


# --- actions ---------------------------------------------------------------------------------------------


def test_replace_keeps_the_sentences_before_and_drops_the_rest() -> None:
    guard = {"name": "no_discounts", "check": {"pattern": "(?i)discount"}, "message": "Prices are fixed."}
    reply = _run("Welcome back. You get a 10% discount. Enjoy it.", [guard])
    assert reply.text == "Welcome back. Prices are fixed."
    [event] = reply.events
    assert (event.guard, event.check, event.action, event.sentence) == (
        "no_discounts",
        "pattern",
        "replace",
        1,
    )
    assert "discount" not in event.detail


def test_redact_masks_the_match_and_goes_on() -> None:
    guard = {"check": {"pattern": r"\b\d{4}-\d{4}\b"}, "on_violation": "redact", "redaction": "****"}
    reply = _run("Your card 1234-5678 is on file. Anything else?", [guard])
    assert reply.text == "Your card **** is on file. Anything else?"
    assert [e.action for e in reply.events] == ["redact"]
    assert reply.events[0].guard == "response_guards[0]"


def test_redact_with_a_code_check_masks_the_whole_sentence() -> None:
    guard = {"check": {"code": "'secret' in text"}, "on_violation": "redact"}
    assert _run("Hi. The secret is 42. Bye.", [guard]).text == "Hi. [redacted] Bye."


def test_suppress_drops_the_sentence_and_the_rest_without_replacement() -> None:
    """The spec's example: an anchored pattern consumes an authored waiting-turn control token."""
    guard = {"check": {"pattern": r"^\s*VOICE_ONLY[.!]?\s*$"}, "on_violation": "suppress"}
    assert _run("VOICE_ONLY.", [guard]).text == ""
    reply = _run("One moment. VOICE_ONLY. More text.", [guard])
    assert reply.text == "One moment."
    assert [(e.action, e.sentence) for e in reply.events] == [("suppress", 1)]


def test_regenerate_asks_for_a_new_reply_and_guards_it_again() -> None:
    asked: list[str] = []

    async def regenerate(feedback: str) -> str | None:
        asked.append(feedback)
        return "We have a table at eight."

    guard = {"name": "no_promises", "check": {"pattern": "(?i)guarantee"}, "on_violation": "regenerate"}
    reply = _run("I guarantee a window seat.", [guard], regenerate=regenerate)
    assert reply.text == "We have a table at eight."
    assert reply.regenerations == 1
    assert [e.action for e in reply.events] == ["regenerate"]
    assert "no_promises" in asked[0] and "guarantee a window" not in asked[0]


@pytest.mark.parametrize(("message", "expected"), [("Let me check that.", "Let me check that."), (None, "")])
def test_regeneration_is_bounded_then_falls_back(message: str | None, expected: str) -> None:
    calls = 0

    async def regenerate(feedback: str) -> str | None:
        nonlocal calls
        calls += 1
        return "I guarantee it, again."

    guard: dict[str, Any] = {"check": {"pattern": "guarantee"}, "on_violation": "regenerate"}
    guard["max_regenerations"] = 2
    if message is not None:
        guard["message"] = message
    reply = _run("I guarantee it.", [guard], regenerate=regenerate)
    assert calls == 2
    assert reply.text == expected
    assert [e.action for e in reply.events] == [
        "regenerate",
        "regenerate",
        "replace" if message else "suppress",
    ]
    assert reply.events[-1].detail == "no regeneration left"


def test_regenerate_without_a_host_callback_falls_back_at_once() -> None:
    guard = {"check": {"pattern": "x"}, "on_violation": "regenerate", "message": "Sorry."}
    reply = _run("x marks it.", [guard])
    assert reply.text == "Sorry." and reply.events[0].detail == "the host cannot regenerate"


def test_an_empty_regeneration_falls_back_on_the_guard() -> None:
    async def regenerate(feedback: str) -> str | None:
        return None

    guard = {"check": {"pattern": "x"}, "on_violation": "regenerate", "max_regenerations": 3}
    reply = _run("x marks it.", [guard], regenerate=regenerate)
    assert reply.text == "" and reply.regenerations == 1
    assert [e.action for e in reply.events] == ["regenerate", "suppress"]


# --- checks ----------------------------------------------------------------------------------------------


def test_a_code_check_reads_the_variables_and_the_sentence() -> None:
    guard = {
        "check": {"code": "'upgrade' in text and not is_member"},
        "message": "Members get upgrades.",
    }
    assert _run("Free upgrade today.", [guard], {"is_member": True}).text == "Free upgrade today."
    assert _run("Free upgrade today.", [guard], {"is_member": False}).text == "Members get upgrades."


def test_an_erroring_code_check_fails_open_unless_strict() -> None:
    guard: dict[str, Any] = {"check": {"code": "text + 1"}, "message": "Withheld."}
    reply = _run("Hello.", [guard])
    assert reply.text == "Hello."
    assert [e.action for e in reply.events] == ["check_failed"] and not reply.changed
    reply = _run("Hello.", [{**guard, "strict": True}])
    assert reply.text == "Withheld."
    assert [e.action for e in reply.events] == ["check_failed", "replace"]


class _Judge:
    def __init__(self, answers: list[str | Exception]) -> None:
        self.answers = answers
        self.calls: list[dict[str, Any]] = []

    async def __call__(self, *, system: str, text: str, model: str | None) -> str:
        self.calls.append({"system": system, "text": text, "model": model})
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_an_llm_check_makes_one_allow_deny_call_per_sentence_with_the_configured_model() -> None:
    judge = _Judge(["ALLOW", "DENY."])
    guard = {
        "name": "medical",
        "check": {"llm": "Deny medical advice.", "model": "openai:gpt-4o-mini"},
        "message": "Please ask your doctor.",
    }
    reply = _run("Hello there. Take two aspirin.", [guard], judge=judge)
    assert reply.text == "Hello there. Please ask your doctor."
    assert [c["text"] for c in judge.calls] == ["Hello there.", "Take two aspirin."]
    assert judge.calls[0]["model"] == "openai:gpt-4o-mini"
    assert judge.calls[0]["system"].startswith("Deny medical advice.")
    assert "ALLOW" in judge.calls[0]["system"] and "DENY" in judge.calls[0]["system"]


@pytest.mark.parametrize("answer", ["maybe", RuntimeError("backend down")])
def test_an_undecided_judge_fails_open_and_strict_fails_closed(answer: str | Exception) -> None:
    guard = {"check": {"llm": "Deny rudeness."}, "on_violation": "suppress"}
    open_reply = _run("Hi.", [guard], judge=_Judge([answer]))
    assert open_reply.text == "Hi." and open_reply.events[0].action == "check_failed"
    closed = _run("Hi.", [{**guard, "strict": True}], judge=_Judge([answer]))
    assert closed.text == "" and [e.action for e in closed.events] == ["check_failed", "suppress"]


def test_no_judge_is_undecided() -> None:
    reply = _run("Hi.", [{"check": {"llm": "Deny."}, "strict": True, "on_violation": "suppress"}])
    assert reply.text == "" and "no judge" in reply.events[0].detail


def test_verdicts_are_read_from_the_first_word() -> None:
    assert parse_verdict(" deny - medical advice") is False
    assert parse_verdict("**ALLOW**") is True
    assert parse_verdict("I think DENY") is None


def test_guards_run_in_order_and_a_later_guard_sees_the_redacted_sentence() -> None:
    redact = {"check": {"pattern": r"\d{3}-\d{4}"}, "on_violation": "redact", "redaction": "[number]"}
    forbid = {"check": {"pattern": r"\d"}, "message": "No numbers."}
    assert _run("Call 555-1234 now.", [redact, forbid]).text == "Call [number] now."


# --- configuration ---------------------------------------------------------------------------------------


def test_config_shapes_are_checked() -> None:
    with pytest.raises(ValidationError, match="exactly one of pattern, code, llm"):
        ResponseGuardConfig.model_validate({"check": {"pattern": "a", "code": "b"}, "message": "m"})
    with pytest.raises(ValidationError, match="needs a 'message'"):
        ResponseGuardConfig.model_validate({"check": {"pattern": "a"}})
    with pytest.raises(ValidationError, match="only applies to an llm check"):
        ResponseGuardConfig.model_validate({"check": {"pattern": "a", "model": "offline"}, "message": "m"})
    with pytest.raises(ValidationError, match="less than or equal to 3"):
        ResponseGuardConfig.model_validate(
            {"check": {"pattern": "a"}, "on_violation": "regenerate", "max_regenerations": 9}
        )


def test_validation_reports_bad_patterns_and_expressions_with_locations() -> None:
    raw = {
        "response_guards": [
            {"check": {"pattern": "(unclosed"}, "message": "m"},
            {"check": {"code": "text ==="}, "message": "m"},
            {"check": {"code": "'x' in text and vip"}, "message": "m"},
        ]
    }
    issues = logic_issues(raw, None)
    errors = {(i.code, i.location) for i in issues if i.severity == "error"}
    assert errors == {
        ("bad_pattern", "response_guards[0].check.pattern"),
        ("bad_expression", "response_guards[1].check.code"),
    }
    warnings = [(i.code, i.location, i.message) for i in issues if i.severity == "warning"]
    assert len(warnings) == 1 and "'vip'" in warnings[0][2]  # `text` is the guard's own name
