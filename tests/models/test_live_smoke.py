"""A live model through the whole runtime: the Bella Notte booking and a correction (marked ``llm``).

Excluded from the default run (``-m "not llm"``) and skipped unless ``SLOTGRAPH_LIVE_MODEL`` names a model,
e.g.::

    SLOTGRAPH_LIVE_MODEL=openai:gpt-4o-mini OPENAI_API_KEY=sk-... pytest -m llm tests/models
    SLOTGRAPH_LIVE_MODEL='openai-compatible:http://localhost:11434/v1#qwen2.5' pytest -m llm tests/models
    SLOTGRAPH_LIVE_MODEL=gemini:gemini-2.5-flash GEMINI_API_KEY=... pytest -m llm tests/models

The user's lines are fixed (the engine owns the flow); the assertions are on the final state only, since the
model's wording varies.
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path

import pytest

from slotgraph.models import ModelSpecError, resolve
from slotgraph.runtime import Agent, Session

pytestmark = pytest.mark.llm

AGENT_DIR = Path(__file__).parents[2] / "examples" / "bella_notte"
NOW = datetime.datetime(2026, 7, 10, 12, 0)


def _session() -> Session:
    spec = os.environ.get("SLOTGRAPH_LIVE_MODEL", "").strip()
    if not spec:
        pytest.skip(
            "set SLOTGRAPH_LIVE_MODEL (e.g. openai:gpt-4o-mini) and its key to run the live smoke test"
        )
    try:
        model = resolve(spec)
    except ModelSpecError as err:
        pytest.skip(f"SLOTGRAPH_LIVE_MODEL={spec!r} cannot be used here: {err}")
    return Agent.load(AGENT_DIR, model=model).session(clock=lambda: NOW, seed=0)


def test_live_booking_happy_path() -> None:
    session = _session()
    for line in (
        "Hi",
        "A table for 4 on Friday July 17th 2026, please",
        "Yes, that's right",
        "7:30 PM please",
        "Yes",
        "The name is Chen",
        "No special requests",
        "Yes, all correct",
    ):
        session.send(line)
        if session.status == "complete":
            break
    filled = session.state["filled"]
    assert session.status == "complete", f"state: {session.state}"
    assert filled["party_size"] == 4
    assert filled["preferred_date"] == "2026-07-17"
    assert filled["selected_time"] == "19:30"
    assert "chen" in str(filled["guest_name"]).lower()
    assert filled["confirmation_number"]


def test_live_correction_during_readback() -> None:
    session = _session()
    session.send("Hi")
    session.send("A table for 4 on July 17th 2026")
    assert session.state["pending"].get("preferred_date") == "2026-07-17", f"state: {session.state}"
    session.send("Actually, make it the 18th instead")
    assert session.state["pending"].get("preferred_date") == "2026-07-18", f"state: {session.state}"
    session.send("Yes, that's correct")
    assert session.state["filled"]["party_size"] == 4
    assert session.state["filled"]["preferred_date"] == "2026-07-18"
    assert session.state["filled"].get("available_times"), f"state: {session.state}"
