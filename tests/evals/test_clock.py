"""The wall clock tools read, moved to a test's day: goldens whose dates are past, and what must keep working
while the clock is moved (timeouts, store leases)."""

from __future__ import annotations

import asyncio
import datetime
import json
import time
from pathlib import Path
from typing import Any

from slotgraph.evals import Case, CaseRunner, LoadFailure, RunOptions, load_cases
from slotgraph.evals.clock import moment_of, wall_clock_at
from slotgraph.models import ModelRequest, ModelResponse, ToolCall, UserMessage
from slotgraph.runtime import Agent, ToolResultEvent
from slotgraph.stores import SQLiteStore

PAST = datetime.date(2025, 3, 14)


def test_inside_the_block_tools_see_the_day_and_the_clock_ticks_on() -> None:
    before = time.monotonic()
    with wall_clock_at(moment_of(PAST)):
        assert datetime.date.today() == PAST
        first = datetime.datetime.now()
        assert first.date() == PAST and first.hour == 12
        while datetime.datetime.now() == first:  # the clock moves on (tick), it does not stand still
            pass
    assert datetime.date.today() != PAST
    assert 0 <= time.monotonic() - before < 60  # the monotonic clock (timeouts, asyncio) was never moved


def test_no_moment_leaves_the_real_clock() -> None:
    real = datetime.date.today()
    with wall_clock_at(None):
        assert datetime.date.today() == real


# --- a golden dated in the past, against a tool that reads the date itself --------------------------------

_DAG = """\
slots:
  - name: visit_date
    source: user
    setter: set_visit_date
    ask: Which day?
tasks: []
"""

_TOOLS = '''\
import datetime


def set_visit_date(visit_date: str = "") -> dict:
    """Record the day of the visit (YYYY-MM-DD).

    Args:
        visit_date: The day, YYYY-MM-DD.
    """
    day = datetime.date.fromisoformat(visit_date)
    if day < datetime.date.today():  # the platform's tools read the date themselves
        return {"error": True, "error_code": "past_date"}
    return {"stored": True, "value": visit_date}
'''


def _agent_with_golden(tmp_path: Path, golden: dict[str, Any]) -> Path:
    agent = tmp_path / "clinic"
    (agent / "evaluations" / "Past_Day").mkdir(parents=True)
    (agent / "agent.yaml").write_text(
        "name: clinic\ninstruction: Book visits.\ntools: tools.py\ndag: dag.yaml\n"
    )
    (agent / "dag.yaml").write_text(_DAG)
    (agent / "tools.py").write_text(_TOOLS)
    file = agent / "evaluations" / "Past_Day" / "Past_Day.json"
    file.write_text(json.dumps(golden))
    return file


def _golden(**extra: Any) -> dict[str, Any]:
    turn = {
        "steps": [
            {"userInput": {"text": "March 20th, 2025"}},
            {"expectation": {"toolCall": {"tool": "set_visit_date", "args": {"visit_date": "2025-03-20"}}}},
            {"expectation": {"updatedVariables": {"sm": {"filled": {"visit_date": "2025-03-20"}}}}},
        ]
    }
    return {"displayName": "Past day", "golden": {"turns": [turn]}, **extra}


def test_a_golden_dated_in_the_past_passes_with_today_and_fails_without(tmp_path: Path) -> None:
    file = _agent_with_golden(tmp_path, _golden())
    (case,) = load_cases([file])
    failed = CaseRunner(RunOptions()).run(case)
    assert failed.outcome == "failed"  # the tool compares with the real today: the date is past
    (case,) = load_cases([file], today=PAST)
    assert CaseRunner(RunOptions(today=PAST)).run(case).outcome == "passed"


def test_a_golden_may_carry_its_own_today(tmp_path: Path) -> None:
    file = _agent_with_golden(tmp_path, _golden(today=PAST.isoformat()))
    (case,) = load_cases([file])
    assert isinstance(case, Case) and case.scenario.now == moment_of(PAST)
    assert CaseRunner(RunOptions()).run(case).outcome == "passed"


def test_a_golden_today_that_is_not_a_date_is_a_located_error(tmp_path: Path) -> None:
    file = _agent_with_golden(tmp_path, _golden(today="14/03/2025"))
    (failure,) = load_cases([file])
    assert isinstance(failure, LoadFailure)
    assert failure.error.location == "today" and "YYYY-MM-DD" in str(failure.error.fix)


# --- what the runtime keeps doing while the clock is moved ------------------------------------------------


class _CallsOnce:
    """Calls ``tool`` on the user's message, then says "ok"."""

    def __init__(self, tool: str, args: dict[str, Any]) -> None:
        self.tool, self.args = tool, args

    async def generate(self, request: ModelRequest) -> ModelResponse:
        if isinstance(request.messages[-1], UserMessage):
            return ModelResponse(tool_calls=(ToolCall("c1", self.tool, self.args),))
        return ModelResponse(text="ok")


_NOTES = {"slots": [{"name": "topic", "source": "user", "setter": "set_topic", "ask": "Topic?"}], "tasks": []}


def test_a_tool_timeout_still_fires_while_the_clock_is_moved() -> None:
    async def set_topic(topic: str) -> dict[str, Any]:
        """Record the topic (hangs)."""
        await asyncio.Event().wait()
        return {}

    agent = Agent.from_config(
        _NOTES, tools=[set_topic], model=_CallsOnce("set_topic", {"topic": "x"}), limits={"tool_timeout": 0.1}
    )
    with wall_clock_at(moment_of(PAST)):
        result = agent.session(session_id="s").send("cats")
    (failed,) = [e for e in result.events if isinstance(e, ToolResultEvent)]
    assert failed.failed and "did not answer within 0.1s" in failed.result["message"]


def test_store_leases_are_taken_given_back_and_lapse_while_the_clock_is_moved(tmp_path: Path) -> None:
    def set_topic(topic: str) -> dict[str, Any]:
        """Record the topic."""
        return {"stored": True, "value": topic}

    store = SQLiteStore(tmp_path / "sessions.db", lock_ttl=0.2)
    agent = Agent.from_config(_NOTES, tools=[set_topic], model=_CallsOnce("set_topic", {"topic": "cats"}))

    async def lapsed_lease_is_taken_over() -> bool:
        conn = store._db()
        taken = store._try_lock(conn, "crashed", "a holder that died")
        expires, give_up = time.time() + store.lock_ttl, time.monotonic() + 10
        while time.time() <= expires:  # the moved clock ticks, so the dead holder's lease runs out
            assert time.monotonic() < give_up, "the moved wall clock stands still: leases never lapse"
            await asyncio.sleep(0.01)
        async with store.lock("crashed"):
            return taken

    with wall_clock_at(moment_of(PAST)):
        session = agent.session(session_id="s", store=store)
        first = session.send("cats")
        again = agent.session(session_id="s", store=store).send(
            "dogs"
        )  # the first turn's lease was given back
        assert asyncio.run(lapsed_lease_is_taken_over())
    assert first.state["pending"] == {"topic": "cats"} or first.state["filled"] == {"topic": "cats"}
    assert again.status == "in_progress"
