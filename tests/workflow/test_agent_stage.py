"""A workflow's agent stage on the real runtime: the child session gets the projected slots as event data,
plays one turn, and its filled slots land in slots[stage_id]."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from slotgraph.adapters.runtime_agents import RuntimeAgentPort
from slotgraph.workflow import WorkflowRunner, load_workflow

AGENT = """\
name: refund_desk
instruction: You file refunds.
model: offline
dag: dag.yaml
"""
DAG = """\
slots:
  - {name: account_id, source: event}
  - {name: amount, source: event}
  - {name: reason, source: user, setter: set_reason, ask: "Why do you want a refund?"}
  - {name: ticket, source: "task:FileRefund"}
tasks:
  - name: FileRefund
    tool: file_refund
    inputs: [account_id, amount, reason]
    outputs: {ticket: ticket}
    success_check: success
    terminal: true
    then_say: "Filed as {ticket}."
"""
TOOLS = """\
def set_reason(reason: str) -> dict:
    return {"stored": True, "value": reason}


def file_refund(account_id: str, amount: float, reason: str) -> dict:
    return {"success": True, "ticket": f"T-{account_id}-{int(amount)}"}
"""


def test_an_agent_stage_runs_a_child_session_with_the_slots_it_is_given(tmp_path: Path) -> None:
    agent = tmp_path / "refund_desk"
    agent.mkdir()
    (agent / "agent.yaml").write_text(AGENT, encoding="utf-8")
    (agent / "dag.yaml").write_text(DAG, encoding="utf-8")
    (agent / "tools.py").write_text(TOOLS, encoding="utf-8")
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps([{"tool_calls": [{"name": "set_reason", "args": {"reason": "it arrived broken"}}]},
                   ]),
        encoding="utf-8",
    )  # fmt: skip
    workflow_file = tmp_path / "wf.yaml"
    workflow_file.write_text(
        "workflow: refund\nstages:\n  - id: desk\n    kind: agent\n    agent: refund_desk\n"
        "    slots: {account_id: goal.account_id, amount: goal.amount}\n    utterance: goal.message\n",
        encoding="utf-8",
    )
    runner = WorkflowRunner(load_workflow(workflow_file), agents=RuntimeAgentPort(model=f"scripted:{script}"))
    goal = {"account_id": "A-77", "amount": 42.5, "message": "it arrived broken"}
    record = asyncio.run(runner.run(goal))
    assert record.status == "succeeded", record.error
    child = record.slots["desk"]
    assert child["filled"]["account_id"] == "A-77" and child["filled"]["amount"] == 42.5
    assert child["filled"]["reason"] == "it arrived broken"
    assert child["filled"]["ticket"] == "T-A-77-42"
    assert record.stages[0].detail["given"] == {"account_id": "A-77", "amount": 42.5}
