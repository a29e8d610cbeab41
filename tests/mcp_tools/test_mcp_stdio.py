"""Tools served by a real MCP server over stdio: the Bella Notte booking, and servers that die or hang.

The server serves Bella's two executors (fired by the engine) and one setter (called by the model).
"""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from tests.runtime.test_bella_notte import AGENT_DIR, _collect_until_booking, _opening, _time_and_name

from slotgraph.mcp_tools import McpTool
from slotgraph.runtime import Agent, ScriptedModel, Session

from .conftest import McpAgentDir

pytestmark = pytest.mark.slow  # a plain `pytest` skips it; `make test` and CI run it

NOW = datetime.datetime(2026, 7, 10, 12, 0)


def _session(agent: Agent) -> tuple[Session, ScriptedModel]:
    model = ScriptedModel([*_opening(), *_time_and_name()])
    return agent.session(model=model, clock=lambda: NOW, seed=0), model


def _booked_in_process() -> dict[str, object]:
    """The final state of the same booking with Bella's Python executors (the reference)."""
    session, _ = _session(Agent.load(AGENT_DIR))
    _collect_until_booking(session)
    session.send("Yes")
    return session.state["filled"]


def test_the_schemas_come_from_the_server(stdio_agent: McpAgentDir) -> None:
    agent = Agent.load(stdio_agent.path)
    try:
        tool = agent.tools.get("book_reservation")
        assert isinstance(tool, McpTool)
        schema = tool.schema.parameters
        assert schema["required"] == ["party_size", "preferred_date", "selected_time", "guest_name"]
        assert schema["properties"]["party_size"]["type"] == "integer"
        assert tool.schema.description.startswith("Book the table.")
        assert "fail_loudly" in agent.tools  # every listed tool, unless the config picks some
    finally:
        agent.close()


def test_a_booking_through_mcp_matches_the_python_tools(stdio_agent: McpAgentDir) -> None:
    agent = Agent.load(stdio_agent.path)
    try:
        session, model = _session(agent)
        _collect_until_booking(session)
        booked = session.send("Yes")
        assert booked.preempted and [e.name for e in booked.tool_calls] == [
            "confirm_pending",
            "book_reservation",
        ]
        assert session.status == "complete"
        assert session.state["filled"] == _booked_in_process()
        assert stdio_agent.ran() == ["find_available_times", "set_selected_time", "book_reservation"]
        model.assert_complete()
    finally:
        agent.close()


@pytest.mark.parametrize("failure", ["die", "hang"])
def test_a_server_that_dies_or_hangs_is_a_failed_task_then_a_retry(
    stdio_agent: McpAgentDir, failure: str, tmp_path: Path
) -> None:
    config = (stdio_agent.path / "agent.yaml").read_text(encoding="utf-8")
    (stdio_agent.path / "agent.yaml").write_text(config.replace("timeout: 5", "timeout: 1"), encoding="utf-8")
    agent = Agent.load(stdio_agent.path)
    try:
        session, model = _session(agent)
        _collect_until_booking(session)
        stdio_agent.control.write_text(f"{failure}-once", encoding="utf-8")
        turn = session.send("Yes")  # the same-input retry runs in the same turn and starts the server again
        assert turn.text.startswith(
            "I'm sorry, something went wrong while booking your table. Let me try that once more. "
        )
        first, second = [
            e for e in turn.events if type(e).__name__ == "ToolResultEvent" and e.name == "book_reservation"
        ]
        assert first.failed and first.result["success"] is False
        assert "McpToolError" in first.result["error"]
        assert not second.failed
        assert session.status == "complete" and "BookReservation" not in session.state["_retries"]
        assert session.state["filled"] == _booked_in_process()
        assert stdio_agent.ran().count("book_reservation") == 2
        assert stdio_agent.ran().count("set_selected_time") == 1
        model.assert_complete()
    finally:
        agent.close()
