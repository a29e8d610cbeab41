"""Warm hand-off: ``handoff:`` gives the agent ``start_consult``; each destination's routing rule (an
expression or an LLM judge) gates it and fails open; a person's hand-off ends the session with the context
the receiver gets, another agent of the app takes the conversation over and reads that context."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent
from typing import Any

import pytest

from slotgraph.apps import load_app
from slotgraph.config import ConfigValidationError
from slotgraph.logic import load_definition
from slotgraph.models.protocol import ToolResultMessage
from slotgraph.runtime import Agent, AgentTransferEvent, ScriptedModel, ScriptedStep, call
from slotgraph.runtime.events import RefusalEvent, TransferEvent

AGENT = dedent(
    """\
    name: front_desk
    dag: {slots: [{name: account, source: user, setter: set_account, ask: "Your account number?"}]}
    variables:
      - {name: verified, type: boolean, default: false, description: The caller passed the identity check.}
      - {name: customer, type: string, description: The caller's name.}
      - {name: tier, type: string, description: The caller's tier (a caller fact)., linked_to: tier}
    handoff:
      destinations:
        - id: billing_desk
          description: Billing specialists for invoices and refunds.
          when: verified
          context: [customer, verified]
        - id: supervisor
          description: A supervisor, for complaints the desk cannot settle.
          mode: transfer
          when: tier + 1 > 0
    """
)
TOOLS = "def set_account(account: str) -> dict:\n    return {'value': account}\n"


def _agent(tmp_path: Path, model: ScriptedModel, agent: str = AGENT) -> Agent:
    (tmp_path / "agent.yaml").write_text(agent, encoding="utf-8")
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    return Agent.load(tmp_path, model=model)


def _consult(destination: str) -> Any:
    return call(
        "start_consult", destination=destination, reason="invoice dispute", summary="Ada disputes I-7."
    )


def test_the_routing_rule_gates_the_hand_off_and_the_person_gets_the_context(tmp_path: Path) -> None:
    def offered(request: Any) -> bool:
        [tool] = [t for t in request.tools if t.name == "start_consult"]
        destination = tool.parameters["properties"]["destination"]
        return destination["enum"] == ["billing_desk", "supervisor"] and (
            "- `billing_desk` (a person): Billing specialists" in destination["description"]
        )

    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("set_account", account="A-7"),), check=offered),
            ScriptedStep(tool_calls=(_consult("billing_desk"),)),
            ScriptedStep(tool_calls=(call("set_variables", verified=True, customer="Ada"),)),
            ScriptedStep(tool_calls=(_consult("billing_desk"),)),
        ]
    )
    session = _agent(tmp_path, model).session(metadata={"tier": 1})
    result = session.send("A-7, I need billing about an invoice")
    [refusal] = [e for e in result.events if isinstance(e, RefusalEvent)]
    assert (refusal.refused, refusal.by) == ("handoff_refused", "gate")
    assert (
        "cannot be handed to billing_desk now" in refusal.message
        and "open now: supervisor." in refusal.message
    )
    [transfer] = [e for e in result.events if isinstance(e, TransferEvent)]
    assert transfer.reason == "invoice dispute"
    assert transfer.details == {
        "destination": "billing_desk",
        "kind": "human",
        "mode": "consult",
        "reason": "invoice dispute",
        "summary": "Ada disputes I-7.",
        "variables": {"customer": "Ada", "verified": True},
        "filled": {"account": "A-7"},
    }
    assert session.ended
    model.assert_complete()


def test_a_routing_rule_that_cannot_be_decided_lets_the_hand_off_through(tmp_path: Path) -> None:
    model = ScriptedModel([ScriptedStep(tool_calls=(_consult("supervisor"),))])
    session = _agent(tmp_path, model).session(metadata={"tier": "gold"})  # "gold" + 1 fails: fail open
    result = session.send("I want a supervisor")
    [transfer] = [e for e in result.events if isinstance(e, TransferEvent)]
    assert transfer.details["destination"] == "supervisor" and transfer.details["mode"] == "transfer"
    assert session.ended


APP = dedent(
    """\
    name: clinic_team
    root: host
    agents:
      - agent:
          name: host
          description: Greets patients.
          dag: {slots: [], tasks: []}
          variables:
            - {name: patient, type: string, default: Ada, description: The patient's name.}
          handoff:
            destinations:
              - id: nurse
                kind: agent
                agent: triage
                description: A triage nurse agent, for symptoms.
                context: [patient]
      - agent:
          name: triage
          description: Asks about symptoms.
          dag: {slots: [], tasks: []}
    """
)


def test_a_hand_off_to_another_agent_of_the_app_carries_the_context_into_the_shared_history(
    tmp_path: Path,
) -> None:
    def reads_the_context(request: Any) -> bool:
        [result] = [m for m in request.messages if isinstance(m, ToolResultMessage)]
        context = result.result["context"]
        return context["variables"] == {"patient": "Ada"} and context["summary"] == "Ada has a fever."

    model = ScriptedModel(
        [
            ScriptedStep(
                tool_calls=(
                    call("start_consult", destination="nurse", reason="symptoms", summary="Ada has a fever."),
                )
            ),
            ScriptedStep(text="I'm the triage nurse. How high is the fever?", check=reads_the_context),
        ]
    )
    (tmp_path / "app.yaml").write_text(APP, encoding="utf-8")
    result = load_app(tmp_path, model=model).session().send("I have a fever")
    [moved] = [e for e in result.events if isinstance(e, AgentTransferEvent)]
    assert (moved.from_agent, moved.to_agent, moved.tool) == ("host", "triage", "start_consult")
    assert result.agent == "triage" and result.text == "I'm the triage nurse. How high is the fever?"
    model.assert_complete()


def test_validation_of_hand_offs(tmp_path: Path) -> None:
    broken = AGENT.replace("- id: supervisor", "- id: billing_desk").replace(
        "when: tier + 1 > 0", "when: verified +"
    )
    (tmp_path / "agent.yaml").write_text(broken, encoding="utf-8")
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    with pytest.raises(ConfigValidationError) as caught:
        load_definition(tmp_path)
    assert {(i.code, i.location, i.line) for i in caught.value.issues} == {
        ("duplicate_destination", "handoff.destinations[1].id", 13),
        ("bad_expression", "handoff.destinations[1].when", 16),
    }
    (tmp_path / "app.yaml").write_text(APP.replace("agent: triage", "agent: triag"), encoding="utf-8")
    with pytest.raises(ConfigValidationError, match=r"'triag' .*not another agent of the app"):
        load_app(tmp_path)
    (tmp_path / "tools.py").write_text(TOOLS + "\n\ndef start_consult(x: str) -> dict:\n    return {}\n")
    (tmp_path / "agent.yaml").write_text(AGENT, encoding="utf-8")
    with pytest.raises(ConfigValidationError, match="its own tool 'start_consult'"):
        Agent.load(tmp_path)
