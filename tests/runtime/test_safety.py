"""Safety models in response guards and tool settings: a Llama Guard-style classifier behind the model
protocol, versioned profiles, a latency limit with a failure policy, and the offline stand-in.

The classifier is reached the way a deployment reaches it: an ``openai-compatible:`` spec naming a real
HTTP server on loopback (answering in Llama Guard's format), or ``offline-safety``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from textwrap import dedent
from typing import Any

import pytest
from tests.models.loopback import LoopbackServer, Reply
from tests.models.openai_bodies import completion

from slotgraph.config import ConfigValidationError
from slotgraph.logic import GuardEvent, load_definition
from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep, call
from slotgraph.runtime.events import RefusalEvent, ToolResultEvent

AGENT = dedent(
    """\
    name: careful
    dag: {slots: [{name: topic, source: user, setter: set_topic, ask: "What is it about?"}]}
    safety:
      model: CLASSIFIER
      timeout_seconds: 5
      profiles:
        standard:
          version: 3
          block: [S1, S9, S11]
    response_guards:
      - name: safe_replies
        check: {safety: standard}
        on_violation: replace
        message: I can't help with that.
    tool_logic:
      send_message:
        safety: {profile: standard, params: [body]}
    """
)
TOOLS = dedent(
    """\
    SENT = []


    def set_topic(topic: str) -> dict:
        return {"value": topic}


    def send_message(to: str, body: str) -> dict:
        SENT.append(body)
        return {"sent": True}
    """
)


def _agent(tmp_path: Path, model: ScriptedModel, classifier: str, **replace: str) -> Agent:
    text = AGENT.replace("CLASSIFIER", classifier)
    for old, new in replace.items():
        text = text.replace(old, new)
    (tmp_path / "agent.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    return Agent.load(tmp_path, model=model)


def _guards(result: Any) -> list[tuple[str, str, str]]:
    return [(e.check, e.action, e.detail) for e in result.events if isinstance(e, GuardEvent)]


@pytest.fixture
def guard_server() -> Iterator[LoopbackServer]:
    server = LoopbackServer().start()
    try:
        yield server
    finally:
        server.stop()
    assert not server.unexpected, server.unexpected


def test_a_llama_guard_endpoint_classifies_each_sentence_with_the_versioned_profile(
    tmp_path: Path, guard_server: LoopbackServer
) -> None:
    guard_server.queue_json(
        completion("safe"),
        completion("unsafe\nS2"),  # flagged, but the profile does not block S2: said
        completion("\n\nunsafe\nS9,S1"),  # blocked: replaced
    )
    model = ScriptedModel(
        [ScriptedStep(text="Sure. Shoplifting is a crime. Here is how to build a bomb. Step one.")]
    )
    spec = f"openai-compatible:{guard_server.url}/v1#llama-guard-3"
    result = _agent(tmp_path, model, spec).session().send("help me")
    assert result.text == "Sure. Shoplifting is a crime. I can't help with that."
    assert _guards(result) == [
        ("safety", "replace", "standard@3: unsafe (S9 Indiscriminate Weapons, S1 Violent Crimes)")
    ]
    first = guard_server.bodies[0]
    assert first["model"] == "llama-guard-3"
    # the conversation as Llama Guard's chat template reads it: no system prompt, no tools
    assert first["messages"] == [
        {"role": "user", "content": "help me"},
        {"role": "assistant", "content": "Sure."},
    ]
    assert "tools" not in first
    assert len(guard_server.requests) == 3  # the withheld rest of the reply is never classified


def test_the_latency_limit_fails_open_or_closed_as_configured(
    tmp_path: Path, guard_server: LoopbackServer
) -> None:
    spec = f"openai-compatible:{guard_server.url}/v1#llama-guard-3"
    guard_server.queue(Reply(hold=True))
    model = ScriptedModel([ScriptedStep(text="Our hours are nine to five.")])
    opened = _agent(tmp_path, model, spec, **{"timeout_seconds: 5": "timeout_seconds: 0.3"})
    result = opened.session().send("hours?")
    assert result.text == "Our hours are nine to five."  # on_failure: allow (the default)
    [(kind, action, detail)] = _guards(result)
    assert (kind, action) == ("safety", "check_failed")
    assert "did not answer within 0.3 s" in detail and "(allowed)" in detail

    guard_server.queue(Reply(hold=True))
    model = ScriptedModel([ScriptedStep(text="Our hours are nine to five.")])
    closed = _agent(
        tmp_path,
        model,
        spec,
        **{"timeout_seconds: 5": "timeout_seconds: 0.3\n  on_failure: block"},
    )
    result = closed.session().send("hours?")
    assert result.text == "I can't help with that."
    assert [a for _, a, _ in _guards(result)] == ["check_failed", "replace"]


def test_a_tool_whose_text_the_classifier_flags_is_refused_before_it_runs(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("send_message", to="ada", body="I will murder you [unsafe:S1]"),)),
            ScriptedStep(tool_calls=(call("send_message", to="ada", body="See you at nine."),)),
            ScriptedStep(text="Sent."),
        ]
    )
    agent = _agent(tmp_path, model, "offline-safety")
    result = agent.session().send("message ada")
    [refusal] = [e for e in result.events if isinstance(e, RefusalEvent)]
    assert (refusal.refused, refusal.by) == ("safety_refused", "gate")
    assert "standard@3: unsafe (S1 Violent Crimes)" in refusal.message
    sent = [e.result for e in result.events if isinstance(e, ToolResultEvent) and e.name == "send_message"]
    assert sent[-1] == {"sent": True}
    model.assert_complete()


def test_the_offline_stand_in_answers_in_llama_guard_format(tmp_path: Path) -> None:
    model = ScriptedModel([ScriptedStep(text="Here is how to build a bomb. Bye.")])
    result = _agent(tmp_path, model, "offline-safety").session().send("hi")
    assert result.text == "I can't help with that."
    assert _guards(result) == [("safety", "replace", "standard@3: unsafe (S9 Indiscriminate Weapons)")]


def test_validation_checks_profiles_categories_and_the_classifier(tmp_path: Path) -> None:
    broken = dedent(
        """\
        name: careful
        dag: {slots: [{name: topic, source: user, setter: set_topic, ask: "What is it about?"}]}
        safety:
          model: offline
          profiles:
            standard: {version: 1, block: [S1, S99]}
        response_guards:
          - {check: {safety: standrd}, message: No.}
        tool_logic:
          send_message:
            safety: {profile: strict}
        """
    )
    (tmp_path / "agent.yaml").write_text(broken, encoding="utf-8")
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    with pytest.raises(ConfigValidationError) as caught:
        load_definition(tmp_path)
    found = {(i.code, i.location, i.line) for i in caught.value.issues}
    assert found == {
        ("not_a_classifier", "safety.model", 4),
        ("unknown_category", "safety.profiles.standard.block[1]", 6),
        ("unknown_safety_profile", "response_guards[0].check.safety", 8),
        ("unknown_safety_profile", "tool_logic.send_message.safety", 11),
    }
    typo = next(i for i in caught.value.issues if i.location == "response_guards[0].check.safety")
    assert "did you mean 'standard'" in typo.message
    without = broken.replace(
        "safety:\n  model: offline\n  profiles:\n    standard: {version: 1, block: [S1, S99]}\n", ""
    )
    (tmp_path / "agent.yaml").write_text(without, encoding="utf-8")
    with pytest.raises(ConfigValidationError) as caught:
        load_definition(tmp_path)
    assert {i.code for i in caught.value.issues} == {"no_safety_classifier"}
