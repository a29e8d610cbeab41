"""A separate process playing turns against a durable store, for the crash and load tests.

python child_session.py crash URL SESSION_ID     one turn, then one that blocks in a tool (prints READY)
python child_session.py load URL WORKER TURNS N  TURNS turns over N sessions, concurrently; prints DONE
"""

from __future__ import annotations

import asyncio
import sys

import agent_kit  # this script's directory is on sys.path

from slotgraph.runtime import ScriptedModel, ScriptedStep, call
from slotgraph.stores import open_store


async def crash(url: str, session_id: str) -> None:
    store = open_store(url)
    agent = agent_kit.agent()
    model = ScriptedModel([ScriptedStep(text="first done")])
    await agent.session(session_id=session_id, store=store, clock=agent_kit.clock, model=model).asend("first")
    blocking = ScriptedModel(
        [ScriptedStep(tool_calls=(call("set_topic", topic="BLOCK"),)), ScriptedStep(text="-")]
    )
    await agent.session(session_id=session_id, store=store, clock=agent_kit.clock, model=blocking).asend(
        "second"
    )


async def load(url: str, worker: int, turns: int, sessions: int) -> None:
    store = open_store(url)
    agent = agent_kit.agent()

    async def one(turn: int) -> None:
        session = agent.session(
            session_id=agent_kit.load_session_id(worker, turn, turns, sessions),
            store=store,
            clock=agent_kit.clock,
            model=ScriptedModel([ScriptedStep(text="ok")]),
        )
        await session.asend(f"w{worker}-t{turn}")

    try:
        await asyncio.gather(*(one(turn) for turn in range(turns)))
    finally:
        await store.close()
    print("DONE", flush=True)


if __name__ == "__main__":
    mode, url, *rest = sys.argv[1:]
    if mode == "crash":
        asyncio.run(crash(url, rest[0]))
    else:
        asyncio.run(load(url, int(rest[0]), int(rest[1]), int(rest[2])))
