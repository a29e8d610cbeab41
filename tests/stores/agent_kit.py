"""A one-slot agent for store tests; importable from the tests and from the child processes they spawn.

Its one tool, ``set_topic``, blocks when the topic is ``BLOCK``: it prints ``READY`` on stdout (the parent
waits for that line) and waits forever, so a test can kill the process in the middle of a tool call.
"""

from __future__ import annotations

import asyncio
import datetime
from typing import Any

from slotgraph.runtime import Agent, Model

NOW = datetime.datetime(2026, 7, 11, 12, 0, tzinfo=datetime.UTC)
DAG: dict[str, Any] = {
    "slots": [{"name": "topic", "source": "user", "setter": "set_topic", "ask": "What is it about?"}],
}


def clock() -> datetime.datetime:
    return NOW


async def set_topic(topic: str) -> dict[str, Any]:
    """Record the topic of the conversation."""
    if topic == "BLOCK":
        print("READY", flush=True)
        await asyncio.Event().wait()
    return {"stored": True, "value": topic}


def agent(model: Model | None = None) -> Agent:
    return Agent.from_config(DAG, tools=[set_topic], instruction="You keep notes.", model=model, name="notes")


def user_texts(record: dict[str, Any]) -> list[str]:
    """The user's texts in a stored record's history, in order."""
    return [m["text"] for m in record["history"] if m["kind"] == "user" and not m.get("event")]


def load_session_id(worker: int, turn: int, turns: int, sessions: int) -> str:
    """Which session a load-test worker's turn goes to (spreads every worker over every session)."""
    return f"s{(worker * turns + turn) % sessions}"
