"""The cxas entry's additions: ``seed`` for the transition prefix, the spec's in-place ``fill_slots`` with
skip reasons, the content-verified config memo, and the new action keys."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from slotgraph.adapters.cxas import confirm_pending, fill_slots, slot_filling_engine
from slotgraph.config import clear_compile_cache
from slotgraph.config import compile as compile_module
from slotgraph.engine import EngineInputError

BELLA = Path(__file__).resolve().parents[2] / "examples" / "bella_notte" / "dag.yaml"
PREFIXES = {"Wonderful!", "Perfect!", "Great!"}
QUESTION = "What name should I put the reservation under?"


@pytest.fixture
def raw() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(BELLA.read_text(encoding="utf-8"))
    return data


def _confirmed_time() -> dict[str, Any]:
    filled = {"welcome": True, "party_size": 4, "preferred_date": "2026-06-17", "available_times": "20:30"}
    sm = {"filled": filled, "pending": {"selected_time": "20:30"},
          "task_results": {"FindAvailableTimes": {"success": True, "available_times": "20:30"}}}  # fmt: skip
    return confirm_pending(sm)


def _prefix(raw: dict[str, Any], **extra: Any) -> str:
    out = slot_filling_engine({"raw_config": raw, "sm": _confirmed_time(), "last_user_text": "", **extra})
    message: str = out["action"]["message"]
    assert message.endswith(QUESTION) and out["action"]["preempt"] is True
    return message.removesuffix(QUESTION).strip()


def test_a_seed_makes_the_transition_prefix_reproducible(raw: dict[str, Any]) -> None:
    picks = {seed: _prefix(raw, seed=seed) for seed in range(12)}
    assert all(_prefix(raw, seed=seed) == pick for seed, pick in picks.items())
    assert set(picks.values()) <= PREFIXES and len(set(picks.values())) > 1
    assert _prefix(raw, random_seed=3) == picks[3]
    assert _prefix(raw, seed="session-42") == _prefix(raw, seed="session-42")


def test_without_a_seed_the_prefix_varies(raw: dict[str, Any]) -> None:
    # 60 draws from 3 options all equal has probability 3 * 3**-60: never.
    assert len({_prefix(raw) for _ in range(60)}) > 1


@pytest.mark.parametrize("extra", [{"seed": 1.5}, {"seed": True}, {"seed": 1, "random_seed": 2}])
def test_bad_seed(raw: dict[str, Any], extra: dict[str, Any]) -> None:
    with pytest.raises(EngineInputError) as info:
        slot_filling_engine({"raw_config": raw, "sm": {}, **extra})
    assert info.value.code == "invalid_seed" and "fix:" in str(info.value)


def test_fill_slots_updates_sm_in_place_and_reports_reasons(raw: dict[str, Any]) -> None:
    sm: dict[str, Any] = {"filled": {"party_size": 4}}
    same = sm
    report = fill_slots(
        sm, raw, {"guest_name": "Chen", "party_size": 6, "ghost": 1, "large_party_phone": "5"}
    )
    assert sm is same and sm["filled"] == {"party_size": 4, "guest_name": "Chen"}
    assert report == {
        "filled": ["guest_name"],
        "skipped": ["party_size", "ghost", "large_party_phone"],
        "skipped_reasons": {
            "party_size": "already_filled",
            "ghost": "unknown",
            "large_party_phone": "inactive",
        },
    }
    out = slot_filling_engine({"raw_config": raw, "sm": sm, "last_user_text": ""})
    assert out["action"]["message"].endswith(" What date would you like to join us?")


def test_fill_slots_through_readback(raw: dict[str, Any]) -> None:
    sm: dict[str, Any] = {}
    assert fill_slots(sm, raw, {"party_size": 4}, skip_readback=False)["filled"] == ["party_size"]
    assert sm["pending"] == {"party_size": 4}


def test_fill_slots_needs_a_dict(raw: dict[str, Any]) -> None:
    with pytest.raises(EngineInputError, match="in place"):
        fill_slots(None, raw, {})  # type: ignore[arg-type]


def test_the_config_memo_notices_a_config_changed_in_place(raw: dict[str, Any]) -> None:
    clear_compile_cache()
    first = slot_filling_engine({"raw_config": raw, "sm": {}, "last_user_text": ""})
    assert first["action"]["message"].startswith("Welcome to Bella Notte!")
    raw["slots"][0]["message"] = "Buonasera!"  # same object, new content
    second = slot_filling_engine({"raw_config": raw, "sm": {}, "last_user_text": ""})
    assert second["action"]["message"].startswith("Buonasera!")
    copied = copy.deepcopy(raw)  # equal content, another object: same answer
    third = slot_filling_engine({"raw_config": copied, "sm": {}, "last_user_text": ""})
    assert third["action"] == second["action"]


def test_a_new_but_equal_config_dict_is_not_compiled_again(
    raw: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A host that deserialises the config on every tool call passes a new, equal dict each time.
    clear_compile_cache()
    slot_filling_engine({"raw_config": raw, "sm": {}, "last_user_text": ""})
    compiled: list[object] = []

    def compile_again(config: object, *args: object, **kwargs: object) -> None:
        compiled.append(config)
        raise LookupError("compiled")

    monkeypatch.setattr(compile_module, "_validated_build", compile_again)
    for _ in range(3):
        out = slot_filling_engine({"raw_config": copy.deepcopy(raw), "sm": {}, "last_user_text": ""})
        assert out["action"]["message"].startswith("Welcome to Bella Notte!")
    assert compiled == []
    changed = copy.deepcopy(raw)
    changed["slots"][0]["message"] = "Buonasera!"
    with pytest.raises(LookupError, match="compiled"):  # a different config reaches the compiler
        slot_filling_engine({"raw_config": changed, "sm": {}, "last_user_text": ""})
    assert compiled == [changed]


def test_new_action_keys(raw: dict[str, Any]) -> None:
    action = slot_filling_engine({"raw_config": raw, "sm": {}, "last_user_text": ""})["action"]
    assert action["gate_open"] is True and action["event_prefilled"] is False
    assert action["steer_back_directive"] is None and action["response"] is None
