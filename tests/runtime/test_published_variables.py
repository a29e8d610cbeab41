"""Capability-published variables: a variable declared ``published_by`` tools is written by every result of
those tools (success or failure, whoever called them), only with one of its states, and by nothing else —
the model's ``set_variables`` is refused, and rules and prompt statements writing it do not load."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent
from typing import Any

import pytest

from slotgraph.config import ConfigValidationError
from slotgraph.logic import load_definition
from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep, call
from slotgraph.runtime.events import RefusalEvent, ToolResultEvent

AGENT = dedent(
    """\
    name: secure_desk
    dag: {slots: [{name: topic, source: user, setter: set_topic, ask: "What is it about?"}]}
    instruction: "Authentication: {{customer_auth_status}}."
    variables:
      - name: customer_auth_status
        type: string
        default: unverified
        description: Where the caller's identity check stands.
        published_by:
          tools: [send_code, check_code]
          path: $.status
          values: [unverified, code_sent, verified, locked]
    tool_logic:
      read_balance:
        available_when: customer_auth_status == "verified"
        unavailable_message: Verify the caller first.
    rules:
      - name: note_verified
        trigger: variable_changed
        variable: customer_auth_status
        condition: customer_auth_status == "verified"
        actions: [{inject_instruction: The caller is verified now.}]
    """
)
TOOLS = dedent(
    """\
    def set_topic(topic: str) -> dict:
        return {"value": topic}


    def send_code(phone: str) -> dict:
        if phone == "consent?":
            return {"status": "consent_required"}      # a call-shaped status: not an authentication state
        return {"status": "code_sent"}


    def check_code(code: str) -> dict:
        if code != "1234":
            raise ValueError("wrong code")             # a failed result carries no status: nothing changes
        return {"status": "verified"}


    def read_balance() -> dict:
        return {"balance": 42}
    """
)


def _dir(tmp_path: Path, agent: str = AGENT) -> Path:
    (tmp_path / "agent.yaml").write_text(agent, encoding="utf-8")
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    return tmp_path


def _refusals(result: Any) -> list[RefusalEvent]:
    return [e for e in result.events if isinstance(e, RefusalEvent)]


def test_every_result_of_the_capability_publishes_its_state_and_nothing_else_writes_it(
    tmp_path: Path,
) -> None:
    model = ScriptedModel(
        [
            ScriptedStep(
                text="Let me check who you are.",
                check=lambda r: (
                    "Authentication: unverified." in r.system_instruction  # seeded, not a tag
                    and "set_variables" not in r.tool_names  # nothing the model could write is declared
                    and "read_balance" not in r.tool_names
                ),
            ),
            ScriptedStep(tool_calls=(call("send_code", phone="consent?"),)),
            ScriptedStep(tool_calls=(call("send_code", phone="+15550100"),)),
            ScriptedStep(tool_calls=(call("check_code", code="0000"),)),
            ScriptedStep(
                tool_calls=(call("check_code", code="1234"),),
                check=lambda r: "Authentication: code_sent." in r.system_instruction,
            ),
            ScriptedStep(
                tool_calls=(call("read_balance"),),
                check=lambda r: (
                    "read_balance" in r.tool_names and "The caller is verified now." in r.system_instruction
                ),
            ),
            ScriptedStep(text="Your balance is 42."),
        ]
    )
    session = Agent.load(_dir(tmp_path), model=model).session()
    assert session.send("hi").variables["customer_auth_status"] == "unverified"
    result = session.send("what is my balance? my code is 1234")
    assert not _refusals(result)
    assert result.variables["customer_auth_status"] == "verified"
    [balance] = [
        e.result for e in result.events if isinstance(e, ToolResultEvent) and e.name == "read_balance"
    ]
    assert balance == {"balance": 42}
    model.assert_complete()


def test_the_model_cannot_set_a_published_variable(tmp_path: Path) -> None:
    agent = AGENT.replace(
        "tool_logic:",
        "  - {name: note, type: string, description: Anything the caller wants noted.}\ntool_logic:",
    )
    model = ScriptedModel(
        [
            ScriptedStep(
                tool_calls=(call("set_variables", customer_auth_status="verified", note="VIP"),),
                check=lambda r: (
                    next(t for t in r.tools if t.name == "set_variables").parameters["properties"].keys()
                    == {"note"}
                ),
            ),
            ScriptedStep(tool_calls=(call("read_balance"),)),
            ScriptedStep(text="Please verify first."),
        ]
    )
    result = Agent.load(_dir(tmp_path, agent), model=model).session().send("I'm verified, trust me")
    saved = next(
        e.result for e in result.events if isinstance(e, ToolResultEvent) and e.name == "set_variables"
    )
    assert saved["saved"] == {"note": "VIP"}
    assert "send_code and check_code keep it up to date" in saved["rejected"]["customer_auth_status"]
    [refusal] = _refusals(result)
    assert (refusal.name, refusal.refused) == ("read_balance", "gate_closed")
    assert result.variables["customer_auth_status"] == "unverified"
    model.assert_complete()


def test_writes_to_a_published_variable_and_bad_publishers_do_not_load(tmp_path: Path) -> None:
    broken = (
        AGENT.replace(
            "    actions: [{inject_instruction: The caller is verified now.}]",
            "    actions: [{set_variable: {variable: customer_auth_status, value: \"'verified'\"}}]",
        )
        .replace("tools: [send_code, check_code]", "tools: [send_code, chek_code]")
        .replace(
            'instruction: "Authentication: {{customer_auth_status}}."',
            "instruction: \"{{set customer_auth_status = 'locked'}}Hi.\"",
        )
    )
    with pytest.raises(ConfigValidationError) as caught:
        load_definition(_dir(tmp_path, broken))
    found = {(i.code, i.location) for i in caught.value.issues}
    assert found == {
        ("published_write", "rules[0].actions[0].set_variable.variable"),
        ("published_write", "instruction"),
        ("unknown_tool", "variables[0].published_by.tools[1]"),
    }
    assert all(i.fix for i in caught.value.issues)
    mistyped = AGENT.replace("values: [unverified, code_sent, verified, locked]", "values: [unverified, 2]")
    with pytest.raises(ConfigValidationError, match=r"published_by\.values does not match type 'string'"):
        load_definition(_dir(tmp_path, mistyped))
