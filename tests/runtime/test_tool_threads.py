"""A synchronous tool runs in a worker thread: one slow tool never stalls the other sessions of the loop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep, call

from .toy_agent import Backend, clock, toy_dag


def _agent(model: ScriptedModel, tools: list[Any]) -> Agent:
    return Agent.from_config(
        toy_dag(), tools=[*Backend().tools(), *tools], instruction="Host.", model=model, name="threads"
    )


def test_a_blocking_sync_tool_does_not_stall_another_session() -> None:
    other_turn_done = threading.Event()

    def slow_lookup() -> dict[str, Any]:
        """Look something up slowly (blocks until the other session's turn has been played)."""
        # On the event loop this would block the loop: the other session could never play, and the wait
        # would time out. In a worker thread the loop plays the other turn meanwhile.
        return {"other_session_played_meanwhile": other_turn_done.wait(timeout=20)}

    slow_model = ScriptedModel(
        [ScriptedStep(tool_calls=(call("slow_lookup"),)), ScriptedStep(text="Here you are.")]
    )
    quick_model = ScriptedModel([ScriptedStep(text="How many guests?")])
    slow = _agent(slow_model, [slow_lookup]).session(clock=clock)
    quick = _agent(quick_model, [slow_lookup]).session(clock=clock)

    async def quick_turn() -> None:
        await quick.asend("hello")
        other_turn_done.set()

    async def both() -> Any:
        return await asyncio.gather(slow.asend("look it up"), quick_turn())

    slow_result, _ = asyncio.run(both())
    results = [e for e in slow_result.events if e.kind == "tool_result" and e.name == "slow_lookup"]
    assert [e.result for e in results] == [{"other_session_played_meanwhile": True}]
    slow_model.assert_complete()
    quick_model.assert_complete()


def test_sync_tools_run_in_a_worker_thread() -> None:
    seen: list[str] = []

    def where_am_i() -> dict[str, Any]:
        """Report the thread."""
        seen.append(threading.current_thread().name)
        return {"ok": True}

    model = ScriptedModel([ScriptedStep(tool_calls=(call("where_am_i"),)), ScriptedStep(text="Done.")])
    session = _agent(model, [where_am_i]).session(clock=clock)
    result = session.send("check")
    assert seen and seen[0] != threading.main_thread().name
    assert any(e.kind == "tool_result" and e.result == {"ok": True} for e in result.events)
    model.assert_complete()
