"""The spec-compatible entry ``slotgraph.adapters.cxas`` (DESIGN.md "Public contracts" 1)."""

from __future__ import annotations

import copy
import random
import threading
from pathlib import Path
from typing import Any

import pytest
import yaml

from slotgraph.adapters.cxas import (
    PAYLOADS_KEY,
    action_dict,
    after_tool,
    confirm_pending,
    reject_pending,
    slot_filling_engine,
)
from slotgraph.config import ConfigValidationError, compile_config
from slotgraph.engine import EngineInputError, EngineStateError, run_engine

BELLA = Path(__file__).resolve().parents[2] / "examples" / "bella_notte" / "dag.yaml"
ACTION_KEYS = {
    "hide_tools", "preempt", "force_preempt", "message", "function_call", "si_suffix", "inline_confirmed",
    "response",
}  # fmt: skip


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(BELLA.read_text(encoding="utf-8"))
    return data


def engine(raw: dict[str, Any], sm: dict[str, Any], text: str = "", **extra: Any) -> dict[str, Any]:
    data = {"raw_config": raw, "sm": sm, "last_user_text": text, **extra}
    before = copy.deepcopy(data)
    out = slot_filling_engine(data)
    assert data == before, "input_data mutated"
    assert set(out) >= {"action", "sm"} and set(out["action"]) >= ACTION_KEYS
    return out


def test_first_turn_on_bella_notte(raw: dict[str, Any]) -> None:
    out = engine(raw, {})
    action, sm = out["action"], out["sm"]
    assert action["message"] == (
        "Welcome to Bella Notte! I'd be happy to help you with a reservation."
        " How many guests will be joining us?"
    )
    assert action["preempt"] is False  # the welcome announce is guided (preempt: false)
    assert sm["filled"] == {"welcome": True}
    assert "set_reservation_basics" not in action["hide_tools"]
    assert {"find_available_times", "book_reservation"} <= set(action["hide_tools"])
    # the time is accepted early (accept_early): its setter is visible before the times are known
    assert "set_selected_time" not in action["hide_tools"]
    assert "_debug_log" not in out


def test_multi_slot_setter_readback_and_auto_confirm(raw: dict[str, Any]) -> None:
    sm = engine(raw, {})["sm"]
    sm = after_tool(
        sm,
        raw,
        "set_reservation_basics",
        {"party_size": 4, "preferred_date": "2026-06-17"},
        {"stored": True, "values": {"party_size": 4, "preferred_date": "2026-06-17"}},
    )
    out = engine(raw, sm)
    assert out["action"]["message"] == "Just to confirm — 4 guests, on June 17th. Is that correct?"
    assert "confirm_pending" in out["action"]["hide_tools"]  # fresh
    out = engine(raw, out["sm"], "yes")
    assert out["action"]["function_call"] == {"name": "confirm_pending", "args": {}}
    sm = confirm_pending(out["sm"])
    out = engine(raw, sm)
    assert out["action"]["function_call"] == {
        "name": "find_available_times",
        "args": {"party_size": 4, "preferred_date": "2026-06-17"},
    }
    sm = after_tool(
        out["sm"], raw, "find_available_times", {}, {"success": True, "available_times": "6 PM, 8 PM"}
    )
    out = engine(raw, sm)
    assert out["action"]["message"] == "We have 6 PM, 8 PM. Which time works best for you?"
    assert out["action"]["preempt"] is True


def test_reject_pending_is_applied_on_the_next_invocation(raw: dict[str, Any]) -> None:
    sm = after_tool(engine(raw, {})["sm"], raw, "set_reservation_basics", {"party_size": 4},
                    {"stored": True, "values": {"party_size": 4}})  # fmt: skip
    sm = engine(raw, sm)["sm"]
    sm = reject_pending(sm)
    assert sm["_rejection_requested"] is True
    out = engine(raw, sm)
    assert out["sm"]["pending"] == {} and out["action"]["message"] == "How many guests will be joining us?"


def test_the_spec_entry_gives_what_the_typed_engine_gives(raw: dict[str, Any]) -> None:
    """The entry turns the engine's action fields into the spec's dict without building the typed action: the
    dict, the state and the debug log are those of ``run_engine`` plus ``action_dict``, turn after turn."""
    dag = compile_config(raw)
    seeded = random.Random

    def typed(sm: dict[str, Any], text: str) -> tuple[dict[str, Any], dict[str, Any], list[Any]]:
        result = run_engine(dag, sm, last_user_text=text, debug=True,
                            choose=lambda options: seeded(7).choice(list(options)))  # fmt: skip
        new_sm = result.sm
        if result.action.stash or sm.get(PAYLOADS_KEY):
            new_sm[PAYLOADS_KEY] = [dict(part) for part in result.action.stash]
        return new_sm, action_dict(result.action), list(result.debug_log)

    basics = {"party_size": 4, "preferred_date": "2026-06-17"}
    sm: dict[str, Any] = {}
    steps = [
        ("", None),
        ("", ("set_reservation_basics", basics, {"stored": True, "values": basics})),
        ("yes", None),
        ("", "confirm"),
        ("", ("find_available_times", {}, {"success": True, "available_times": "6 PM, 8 PM"})),
        ("what about parking?", None),
        ("hm", None),
        ("", ("book_reservation", {}, {"success": True, "confirmation_number": "X1"})),
    ]
    for text, before in steps:
        if before == "confirm":
            sm = confirm_pending(sm)
        elif before is not None:
            tool, args, result = before
            sm = after_tool(sm, raw, tool, args, result)
        out = engine(raw, sm, text, debug=True, seed=7, rechecks_after_model=True)
        assert (out["sm"], out["action"], out["_debug_log"]) == typed(sm, text)
        sm = out["sm"]


def test_debug_log(raw: dict[str, Any]) -> None:
    out = engine(raw, {}, debug=True)
    assert isinstance(out["_debug_log"], list) and out["_debug_log"]
    assert {"announce", "invoke"} <= {entry["tag"] for entry in out["_debug_log"]}


@pytest.mark.parametrize(
    ("input_data", "code"),
    [
        ({"sm": {}}, "missing_raw_config"),
        ({"raw_config": "slots: []", "sm": {}}, "invalid_raw_config"),
        ({"raw_config": {"slots": []}, "sm": {}, "typo": 1}, "unknown_input_key"),
        ({"raw_config": {"slots": []}, "sm": {}, "debug": "yes"}, "invalid_debug"),
    ],
)
def test_bad_input_data(input_data: dict[str, Any], code: str) -> None:
    with pytest.raises(EngineInputError) as info:
        slot_filling_engine(input_data)
    assert info.value.code == code and "fix:" in str(info.value)


def test_input_data_must_be_a_dict() -> None:
    with pytest.raises(EngineInputError):
        slot_filling_engine([])  # type: ignore[arg-type]


def test_sm_not_a_dict(raw: dict[str, Any]) -> None:
    with pytest.raises(EngineStateError, match="sm"):
        slot_filling_engine({"raw_config": raw, "sm": "oops", "last_user_text": ""})


def test_invalid_config_raises_config_validation_error() -> None:
    bad = {"slots": [{"name": "a", "setter": "set_a", "requires": ["ghost"]}]}
    with pytest.raises(ConfigValidationError):
        slot_filling_engine({"raw_config": bad, "sm": {}, "last_user_text": ""})


def test_sessions_on_threads_never_interact(raw: dict[str, Any]) -> None:
    """Two (here: eight) sessions driven concurrently give exactly the sequential results."""
    scripts = [({"party_size": n}, {"stored": True, "values": {"party_size": n}}) for n in range(1, 9)]

    def conversation(args: dict[str, Any], result: dict[str, Any]) -> list[Any]:
        trail = []
        sm = engine(raw, {})["sm"]
        sm = after_tool(sm, raw, "set_reservation_basics", args, result)
        for text in ("", "hmm", "yes"):
            out = engine(raw, sm, text)
            trail.append(out["action"])
            sm = out["sm"]
        return trail

    expected = [conversation(*s) for s in scripts]
    got: list[Any] = [None] * len(scripts)

    def worker(i: int) -> None:
        for _ in range(20):
            got[i] = conversation(*scripts[i])

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(scripts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == expected
