"""Copies of the state in one place: ``copy_state`` and the lazily copied ``StateSnapshot``."""

from __future__ import annotations

import copy
import datetime
import json
import pickle
from typing import Any

import pytest

from slotgraph.runtime import (
    Agent,
    ScriptedModel,
    ScriptedStep,
    StateSnapshotEvent,
    ToolContext,
    call,
    event_to_json,
)
from slotgraph.runtime.state_copy import StateSnapshot, copy_state

from .toy_agent import Backend, clock, toy_dag

STATE: dict[str, Any] = {
    "filled": {"name": "Chen", "tags": ["a", {"b": 1}]},
    "pending": {},
    "_slot_errors": [{"slot": "date", "code": "past"}],
    "_steer_back_turns": 0,
    "ratio": 1.5,
    "flag": True,
    "nothing": None,
}


def test_copy_state_copies_every_dict_and_list_and_shares_scalars() -> None:
    copied = copy_state(STATE)
    assert copied == STATE
    assert copied is not STATE and copied["filled"] is not STATE["filled"]
    assert copied["filled"]["tags"] is not STATE["filled"]["tags"]
    assert copied["filled"]["tags"][1] is not STATE["filled"]["tags"][1]
    assert copied["_slot_errors"][0] is not STATE["_slot_errors"][0]
    copied["filled"]["tags"][1]["b"] = 2
    assert STATE["filled"]["tags"][1]["b"] == 1


def test_copy_state_falls_back_to_deepcopy_for_what_is_not_json() -> None:
    when = datetime.date(2026, 7, 17)
    source = {"when": when, "pair": (1, [2]), "proxy": StateSnapshot({"x": [1]})}
    copied = copy_state(source)
    assert copied["when"] == when
    assert copied["pair"] == (1, [2]) and copied["pair"][1] is not source["pair"][1]
    assert copied["proxy"] == {"x": [1]} and type(copied["proxy"]) is dict


def test_a_snapshot_copies_its_source_on_first_read_and_never_shares_it() -> None:
    source = copy_state(STATE)
    snapshot = StateSnapshot(source)
    assert snapshot == STATE and len(snapshot) == len(STATE) and "filled" in snapshot
    snapshot["filled"]["name"] = "Mallory"  # the snapshot's own copy
    assert source["filled"]["name"] == "Chen"
    with pytest.raises(TypeError):
        snapshot["status"] = "complete"  # type: ignore[index]


def test_a_snapshot_becomes_plain_json_data() -> None:
    snapshot = StateSnapshot(STATE)
    plain = snapshot.to_dict()
    assert type(plain) is dict and json.loads(json.dumps(plain)) == STATE
    assert type(copy.deepcopy(snapshot)) is dict and copy.deepcopy(snapshot) == STATE
    assert pickle.loads(pickle.dumps(snapshot)) == STATE
    event = StateSnapshotEvent(snapshot, "set_name")
    assert event_to_json(event) == {"kind": "state_snapshot", "state": STATE, "after_tool": "set_name"}


def test_tools_and_events_read_copies_the_session_never_shares() -> None:
    """What a tool reads as ``context.state`` and what a snapshot event carries are the state of that moment;
    changing them changes nothing in the session."""
    seen: list[Any] = []

    def note(context: ToolContext) -> dict[str, Any]:
        """Note the state the tool sees."""
        seen.append(context.state)
        context.state["pending"]["name"] = "Mallory"  # a misbehaving tool
        return {"ok": True}

    backend = Backend()
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("set_name", name="Chen"),)),
            ScriptedStep(tool_calls=(call("note"),)),
            ScriptedStep(text="ok"),
        ]
    )
    agent = Agent.from_config(
        toy_dag(), tools=[*backend.tools(), note], instruction="Host.", model=model, name="toy"
    )
    session = agent.session(clock=clock)
    result = session.send("Chen")
    snapshots = [e for e in result.events if isinstance(e, StateSnapshotEvent)]
    assert snapshots and snapshots[0].state["pending"]["name"] == "Chen"
    snapshots[0].state["pending"]["name"] = "Eve"
    assert seen and seen[0]["pending"]["name"] == "Mallory"  # its own copy
    final = session.state
    assert final == result.state and "Mallory" not in json.dumps(final) and "Eve" not in json.dumps(final)
    result.state["filled"]["name"] = "Eve"  # type: ignore[index]
    assert session.state == final
