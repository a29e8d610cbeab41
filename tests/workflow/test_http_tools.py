"""Agents' HTTP tools: a DAG task whose executor is an HTTP endpoint gets its body by the same assembly as a
workflow's HTTP stage (declared keys only, fail closed), against a real loopback server."""

from __future__ import annotations

import asyncio
import datetime
from pathlib import Path

import pytest

from slotgraph import Agent, ScriptedModel
from slotgraph.config import ConfigValidationError
from slotgraph.config.tool_sources import HttpToolConfig
from slotgraph.models.scripted import ScriptedStep, call
from slotgraph.runtime.http_tools import HttpToolError, http_tool
from slotgraph.runtime.tools import ToolContext

from .conftest import EchoServer

SCHEMA = {
    "type": "object",
    "properties": {"merchant": {"type": "string"}, "amount": {"type": "number"}},
    "required": ["merchant", "amount"],
}


def _context() -> ToolContext:
    now = datetime.datetime(2026, 11, 30, 12, 0)
    return ToolContext(now=now, today=now.date(), state={}, channel=None, session_id="s-1")


def test_the_body_keeps_declared_keys_and_fails_closed_on_a_missing_one(echo_server: EchoServer) -> None:
    tool = http_tool(HttpToolConfig(name="match", url=echo_server.url + "/match", input_schema=SCHEMA))
    body, problem = tool.check_args({"merchant": "Blue Bottle", "amount": 4.5, "utterance": "refund it"})
    assert problem is None and body == {"merchant": "Blue Bottle", "amount": 4.5}
    answer = asyncio.run(tool.invoke(body or {}, _context()))
    assert answer == {"ok": True, "echo": {"merchant": "Blue Bottle", "amount": 4.5}}
    missing, why = tool.check_args({"merchant": "Blue Bottle"})
    assert missing is None and why is not None
    assert "'amount'" in why and "was not made" in why
    assert tool.schema.parameters == SCHEMA  # the model sees the same schema
    failing = http_tool(HttpToolConfig(name="f", url=echo_server.url + "/fail"))
    with pytest.raises(HttpToolError, match="500"):
        asyncio.run(failing.invoke({}, _context()))


def test_a_bad_http_tool_is_a_config_error() -> None:
    with pytest.raises(ValueError, match="http"):
        HttpToolConfig(name="x", url="ftp://nowhere")
    with pytest.raises(ValueError, match="oneOf"):
        HttpToolConfig(name="x", url="http://127.0.0.1:1/", input_schema={"type": "object", "oneOf": []})


AGENT = """\
name: refunds
instruction: You match purchases.
model: offline
tools:
  module: tools.py
  http:
    - name: match_purchase
      url: {url}/purchases/match
      description: Find the purchase.
      input_schema:
        type: object
        properties: {{merchant: {{type: string}}, amount: {{type: number}}}}
        required: [merchant, amount]
dag: dag.yaml
"""
DAG = """\
slots:
  - {name: merchant, source: user, setter: set_merchant, ask: "Which merchant?"}
  - {name: amount, source: user, setter: set_amount, ask: "How much?"}
  - {name: note, source: user, setter: set_note, ask: "Any note?"}
  - {name: match, source: "task:MatchPurchase"}
tasks:
  - name: MatchPurchase
    tool: match_purchase
    inputs: [merchant, amount, note]
    outputs: {ok: match}
    success_check: ok
    terminal: true
    then_say: "Found it."
"""
TOOLS = """\
def set_merchant(merchant: str) -> dict:
    return {"stored": True, "value": merchant}


def set_amount(amount: float) -> dict:
    return {"stored": True, "value": amount}


def set_note(note: str) -> dict:
    return {"stored": True, "value": note}
"""


def _agent(tmp_path: Path, url: str) -> Path:
    (tmp_path / "agent.yaml").write_text(AGENT.format(url=url), encoding="utf-8")
    (tmp_path / "dag.yaml").write_text(DAG, encoding="utf-8")
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    return tmp_path


def test_a_dag_task_runs_on_an_http_endpoint_with_only_its_declared_keys(
    tmp_path: Path, echo_server: EchoServer
) -> None:
    model = ScriptedModel(
        [
            ScriptedStep(
                tool_calls=(
                    call("set_merchant", merchant="Blue Bottle"),
                    call("set_amount", amount=42.5),
                    call("set_note", note="it was cold"),
                )
            ),
        ]
    )
    agent = Agent.load(_agent(tmp_path, echo_server.url), model=model)
    session = agent.session()
    session.send("Blue Bottle, 42.50, it was cold")
    assert [r["body"] for r in echo_server.requests] == [{"merchant": "Blue Bottle", "amount": 42.5}]
    assert session.state["filled"]["match"] is True


def test_the_dag_may_name_http_tools_and_unknown_tools_are_still_caught(tmp_path: Path) -> None:
    root = _agent(tmp_path, "http://127.0.0.1:9")
    Agent.load(root, model=ScriptedModel([]))  # match_purchase is known: it is an HTTP tool
    (root / "dag.yaml").write_text(
        DAG.replace("tool: match_purchase", "tool: match_purchas"), encoding="utf-8"
    )
    with pytest.raises(ConfigValidationError, match="match_purchas"):
        Agent.load(root, model=ScriptedModel([]))
