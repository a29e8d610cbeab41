"""The LLM-judge condition kind (``{kind: llm, prompt: ...}``) beyond response guards: rule conditions, tool
gates, topic entry and return. Each call site sends the author's prompt verbatim with its own question,
the judge reads the person's latest message, and an undecided judge fails the way its call site does."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent
from typing import Any

from slotgraph.logic import RuleEvent, TopicEvent
from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep, call
from slotgraph.runtime.events import RefusalEvent

AGENT = dedent(
    """\
    name: judged
    dag: {slots: [{name: topic, source: user, setter: set_topic, ask: "What is it about?"}]}
    instruction: Help the caller.
    tool_logic:
      offer_discount:
        available_when: {kind: llm, prompt: The caller threatens to cancel their subscription.}
    rules:
      - name: calm_down
        trigger: user_message
        condition: {kind: llm, prompt: The caller is angry or upset.}
        actions: [{inject_instruction: Apologise before anything else.}]
    topics:
      - id: complaints
        description: A complaint about the service.
        entry_when: {kind: llm, prompt: The caller has a complaint.}
        return_when: {kind: llm, prompt: The caller says the complaint is settled.}
    """
)
TOOLS = dedent(
    """\
    def set_topic(topic: str) -> dict:
        return {"value": topic}


    def offer_discount() -> dict:
        return {"discount": "20%"}
    """
)


def _agent(tmp_path: Path, model: ScriptedModel) -> Agent:
    (tmp_path / "agent.yaml").write_text(AGENT, encoding="utf-8")
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    return Agent.load(tmp_path, model=model)


def _judge(answer: str, prompt: str, question: str, message: str) -> ScriptedStep:
    """A judge call: tool-less, the author's prompt verbatim then the call site's question, the message."""

    def check(request: Any) -> bool:
        return (
            not request.tools
            and request.system_instruction.startswith(prompt + "\n\n")
            and question in request.system_instruction
            and request.messages[-1].text == message
        )

    return ScriptedStep(text=answer, check=check)


GATE = "The caller threatens to cancel their subscription."
RULE = "The caller is angry or upset."
ENTRY = "The caller has a complaint."
RETURN = "The caller says the complaint is settled."


def test_rules_gates_and_topics_ask_the_judge_with_their_own_prompt(tmp_path: Path) -> None:
    first = "This is useless, I'm cancelling!"
    second = "Thanks, that settles it."
    model = ScriptedModel(
        [
            # turn 1: the gate is judged once at the start of the turn, then the rule's condition
            _judge("ALLOW", GATE, "may use the tool 'offer_discount'", first),
            _judge("ALLOW", RULE, "the rule 'calm_down'", first),
            ScriptedStep(
                tool_calls=(call("transition_topic", topic="complaints"),),
                check=lambda r: (
                    "offer_discount" in r.tool_names
                    and "Apologise before anything else." in r.system_instruction
                ),
            ),
            _judge("ALLOW", ENTRY, "may move to the topic 'complaints'", first),
            ScriptedStep(tool_calls=(call("offer_discount"),)),
            ScriptedStep(text="I'm sorry. Here is 20% off."),
            _judge("DENY", RETURN, "the work of the topic 'complaints' is done", first),  # turn end
            # turn 2: the gate says no now; return_when says yes at the end of the turn
            _judge("DENY", GATE, "offer_discount", second),
            _judge("DENY", RULE, "calm_down", second),
            ScriptedStep(text="Glad to help.", check=lambda r: "offer_discount" not in r.tool_names),
            _judge("ALLOW", RETURN, "complaints", second),
        ]
    )
    session = _agent(tmp_path, model).session()
    result = session.send(first)
    assert [e.rule for e in result.events if isinstance(e, RuleEvent)] == ["calm_down"]
    assert [(e.to_topic, e.ok) for e in result.events if isinstance(e, TopicEvent)] == [("complaints", True)]
    assert result.model_calls == 3  # judge calls are not model calls of the conversation...
    assert result.usage.prompt_tokens > 0  # ...but their tokens count
    again = session.send(second)
    assert [(e.to_topic, e.via) for e in again.events if isinstance(e, TopicEvent)] == [("", "return_when")]
    model.assert_complete()


def test_an_undecided_judge_closes_the_gate_and_the_topic_and_does_not_fire_the_rule(tmp_path: Path) -> None:
    message = "hmm"
    model = ScriptedModel(
        [
            _judge("maybe?", GATE, "offer_discount", message),
            _judge("I cannot tell", RULE, "calm_down", message),
            ScriptedStep(
                tool_calls=(call("offer_discount"), call("transition_topic", topic="complaints")),
                check=lambda r: "offer_discount" not in r.tool_names,
            ),
            _judge("", ENTRY, "complaints", message),
            ScriptedStep(text="How can I help?"),
        ]
    )
    result = _agent(tmp_path, model).session().send(message)
    [rule] = [e for e in result.events if isinstance(e, RuleEvent)]
    assert not rule.ok and "neither ALLOW nor DENY" in (rule.error or "")
    refusals = [(e.name, e.refused, e.by) for e in result.events if isinstance(e, RefusalEvent)]
    assert refusals == [("offer_discount", "gate_closed", "gate")]
    [topic] = [e for e in result.events if isinstance(e, TopicEvent)]
    assert not topic.ok and "entry condition" in topic.message
    model.assert_complete()


def test_validation_locates_bad_judge_conditions_and_warns_about_an_offline_judge(tmp_path: Path) -> None:
    import pytest

    from slotgraph.config import ConfigValidationError
    from slotgraph.logic import load_definition

    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    (tmp_path / "agent.yaml").write_text(AGENT, encoding="utf-8")
    warned = {(w.code, w.location) for w in load_definition(tmp_path).report.warnings if w.code != "no_tasks"}
    assert warned == {
        ("offline_judge", "tool_logic.offer_discount.available_when"),
        ("offline_judge", "rules[0].condition"),
        ("offline_judge", "topics[0].entry_when"),
        ("offline_judge", "topics[0].return_when"),
    }
    judged = AGENT.replace("name: judged\n", "name: judged\nmodel: openai:gpt-4o-mini\n")
    (tmp_path / "agent.yaml").write_text(judged, encoding="utf-8")
    assert {w.code for w in load_definition(tmp_path).report.warnings} == {"no_tasks"}
    broken = AGENT.replace("{kind: llm, prompt: The caller is angry or upset.}", "{kind: llm, promt: upset}")
    (tmp_path / "agent.yaml").write_text(broken, encoding="utf-8")
    with pytest.raises(ConfigValidationError) as caught:
        load_definition(tmp_path)
    assert {(i.location, i.line) for i in caught.value.issues} >= {("rules[0].condition.promt", 10)}
