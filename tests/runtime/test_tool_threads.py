"""A synchronous tool runs in a worker thread: one slow tool never stalls the other sessions of the loop.

Each sync tool has its own threads (``limits.tool_threads``, 32 by default), whatever loop runs the turn: the
server runs turns on its own event loop, whose default executor asyncio sizes ``min(32, cpu_count + 4)`` (six
threads on a two-core machine), so sync tools of a seventh concurrent turn would wait for a thread. (Tools
that hang, and the wait for a thread: tests/runtime/test_tool_limits.py.)
"""

from __future__ import annotations

import asyncio
import contextvars
import datetime
import threading
from collections.abc import Mapping
from typing import Any

import pytest

from slotgraph.config.limits import DEFAULT_TOOL_THREADS
from slotgraph.runtime import Agent, ScriptedModel, ScriptedStep, call, tool_from_function
from slotgraph.runtime.tool_threads import THREAD_PREFIX, ToolThreads
from slotgraph.runtime.tools import Tool, ToolContext

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


PARTIES = 12
"""More concurrent turns than asyncio's default pool has threads on a machine with fewer than 8 cores."""

REQUEST: contextvars.ContextVar[str] = contextvars.ContextVar("request", default="none")


def test_sync_tools_of_concurrent_turns_on_one_loop_run_side_by_side() -> None:
    """Twelve turns on one loop (as in a server worker), each with a sync tool that waits for all twelve."""
    assert PARTIES <= DEFAULT_TOOL_THREADS
    barrier = threading.Barrier(PARTIES, timeout=20)
    threads: set[tuple[int, str]] = set()

    def rendezvous() -> dict[str, Any]:
        """Wait until every turn's tool is running."""
        threads.add((threading.get_ident(), threading.current_thread().name))
        return {"arrived": barrier.wait()}

    async def converse() -> str:
        model = ScriptedModel([ScriptedStep(tool_calls=(call("rendezvous"),)), ScriptedStep(text="met")])
        agent = Agent.from_config(
            toy_dag(), tools=[*Backend().tools(), rendezvous], instruction="Host.", model=model, name="toy"
        )
        return (await agent.session(clock=clock).asend("hello")).text

    async def all_at_once() -> list[str]:
        return list(await asyncio.gather(*(converse() for _ in range(PARTIES))))

    assert asyncio.run(all_at_once()) == ["met"] * PARTIES
    assert not barrier.broken and len(threads) == PARTIES
    assert all(name.startswith(THREAD_PREFIX) for _, name in threads)


def test_the_callers_context_travels_with_the_call() -> None:
    async def body() -> str:
        REQUEST.set("r-7")
        return str(await ToolThreads("lookup").run(REQUEST.get))

    assert asyncio.run(body()) == "r-7"


def test_a_tool_gets_the_session_context_only_when_it_reads_it() -> None:
    """The context (clock, a state snapshot, the channel) is built for a tool that injects a value of it,
    and for a subclass with its own ``invoke`` (it may read it); a plain tool without injected parameters
    is called without one."""
    contexts: list[ToolContext | None] = []

    class Recording(Tool):
        async def invoke(self, args: Mapping[str, Any], context: ToolContext | None = None) -> Any:
            contexts.append(context)
            return await super().invoke(args, context)

    def plain(value: str) -> dict[str, Any]:
        """Plain."""
        return {"stored": True, "value": value}

    def dated(value: str, today: datetime.date) -> dict[str, Any]:
        """Dated."""
        return {"stored": True, "value": f"{value}@{today.isoformat()}"}

    base = tool_from_function(plain)
    subclass = Recording(base.name, base.fn, base.schema, base.injected, base.validator)
    assert not base.needs_context and subclass.needs_context and tool_from_function(dated).needs_context
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("plain", value="x"), call("dated", value="y"))),
            ScriptedStep(text="ok"),
        ]
    )
    session = _agent(model, [subclass, dated]).session(clock=clock)
    result = session.send("go")
    assert [e.result for e in result.events if e.kind == "tool_result"] == [
        {"stored": True, "value": "x"},
        {"stored": True, "value": f"y@{clock().date().isoformat()}"},
    ]
    (context,) = contexts
    assert context is not None and context.now == clock()
    model.assert_complete()


def test_a_tool_that_injects_session_values_needs_its_context() -> None:
    def dated(today: datetime.date) -> dict[str, Any]:
        """Dated."""
        return {"today": today.isoformat()}

    with pytest.raises(ValueError, match=r"takes \['today'\] from the session: pass its context"):
        asyncio.run(tool_from_function(dated).invoke({}))
