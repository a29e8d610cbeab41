"""Configs in the original platform's spellings load and behave as they did there (docs/migration.md).

One test (or a few) per key of the platform's key list, each written from that key's description, through
the spec-compatible entry a platform host calls.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from slotgraph.adapters.cxas import after_tool, slot_filling_engine
from slotgraph.config import ConfigValidationError, compile_config, compile_formatter, validate_dag


def _config(**extra: Any) -> dict[str, Any]:
    """A small booking config; ``extra`` adds or replaces top-level keys."""
    config: dict[str, Any] = {
        "slots": [
            {
                "name": "party_size",
                "setter": "set_party_size",
                "ask": "How many guests?",
                "requires_readback": True,
            },
            {
                "name": "guest_name",
                "setter": "set_guest_name",
                "ask": "Under what name?",
                "requires_readback": True,
            },
            {"name": "booking_id", "source": "task:Book"},
        ],
        "tasks": [
            {
                "name": "Book",
                "tool": "book",
                "inputs": ["party_size", "guest_name"],
                "outputs": {"booking_id": "booking_id"},
                "success_check": "success",
                "terminal": True,
                "then_say": "Booked: {booking_id}.",
            }
        ],
    }
    config.update(extra)
    return config


def _run(config: dict[str, Any], sm: dict[str, Any], text: str = "", **extra: Any) -> dict[str, Any]:
    data = {"raw_config": config, "sm": sm, "last_user_text": text, **extra}
    out: dict[str, Any] = slot_filling_engine(data)
    return out


def _codes(config: dict[str, Any], severity: str) -> set[str]:
    report = validate_dag(config)
    issues = report.errors if severity == "error" else report.warnings
    return {issue.code for issue in issues}


# ── readback_fmt: prefix ``text`` and none_sub ``default`` ────────────────────────────────────────────


def test_prefix_formatter_in_the_platform_spelling_renders_text_then_value() -> None:
    assert compile_formatter({"type": "prefix", "text": "under the name"})("Chen") == "under the name Chen"
    assert compile_formatter({"type": "prefix", "prefix": "under the name"})("Chen") == "under the name Chen"


def test_none_sub_in_the_platform_spelling_replaces_exactly_none_no_nothing() -> None:
    fmt = compile_formatter({"type": "none_sub", "default": "no special requests"})
    for value in ("none", "No", "NOTHING", None):
        assert fmt(value) == "no special requests"
    # the platform compares str(value).lower() exactly: no trimming, no other none-like words
    for value in (" none", "n/a", "", "window seat"):
        assert fmt(value) == str(value)


def test_both_spellings_at_once_is_an_error() -> None:
    with pytest.raises(ConfigValidationError, match="both 'prefix' and its platform spelling 'text'"):
        compile_formatter({"type": "prefix", "prefix": "a", "text": "b"})


def test_readback_uses_the_platform_prefix_spelling() -> None:
    config = _config()
    config["slots"][1]["readback_fmt"] = {"type": "prefix", "text": "under the name"}
    out = _run(config, {"pending": {"guest_name": "Chen"}, "filled": {"party_size": 2}})
    assert "under the name Chen" in out["action"]["message"]


# ── channel_response ──────────────────────────────────────────────────────────────────────────────────


def test_channel_response_replaces_response_on_that_channel() -> None:
    config = _config()
    web = [{"type": "payload", "data": {"chips": ["2", "4"]}}]
    config["slots"][0]["response"] = [{"type": "text", "text": "How many?"}]
    config["slots"][0]["channel_response"] = {"web": web}
    first = _run(config, {"_last_state": {"filled": {}, "pending": {}, "deferred": {}}}, "hi", channel="web")
    assert first["sm"]["_pending_payloads"] == web
    other = _run(config, {"_last_state": {"filled": {}, "pending": {}, "deferred": {}}}, "hi", channel="sms")
    assert other["sm"]["_pending_payloads"] == [{"type": "text", "text": "How many?"}]


def test_channel_response_is_read_inside_on_exhaust() -> None:
    config = _config()
    config["slots"][0]["validation"] = {
        "max_retries": 1,
        "errors": {"bad": "Say a number."},
        "on_exhaust": {"say": "Call us.", "channel_response": {"voice": [{"type": "audio", "uri": "x.wav"}]}},
    }
    out = _run(config, {"_slot_errors": [{"slot": "party_size", "code": "bad"}]}, "lots", channel="voice")
    assert out["sm"]["status"] == "escalated"
    assert out["action"]["response"] == [{"type": "audio", "uri": "x.wav"}]


# ── readback_response (+ channel_readback_response) ──────────────────────────────────────────────────

_CHIPS = {"type": "payload", "data": {"chips": ["Yes, {guest_name}", "Change something"]}}


def test_readback_response_is_stashed_with_a_relayed_readback() -> None:
    config = _config(readback_response=[_CHIPS])
    out = _run(config, {"filled": {"party_size": 2}, "pending": {"guest_name": "Chen"}}, "")
    assert out["action"]["preempt"] is False
    assert "Chen" in out["action"]["message"]
    # placeholders come from filled + pending values
    assert out["sm"]["_pending_payloads"] == [
        {"type": "payload", "data": {"chips": ["Yes, Chen", "Change something"]}}
    ]


def test_readback_response_goes_in_the_response_of_a_preempted_readback() -> None:
    config = _config(readback_response=[_CHIPS])
    config["tasks"].insert(
        0,
        {
            "name": "Check",
            "tool": "check",
            "inputs": ["party_size"],
            "then_say": "We have room.",
        },
    )
    sm = {
        "filled": {"party_size": 2},
        "pending": {"guest_name": "Chen"},
        "task_results": {"Check": {"ok": True}},
        "_task_just_completed": "Check",
    }
    out = _run(config, sm)
    assert out["action"]["preempt"] is True
    response = out["action"]["response"]
    assert response[0] == {"type": "text", "text": "We have room."}
    assert response[1]["type"] == "text" and "Chen" in response[1]["text"]
    assert response[2] == {"type": "payload", "data": {"chips": ["Yes, Chen", "Change something"]}}


def test_channel_readback_response_overrides_on_its_channel() -> None:
    voice = [{"type": "audio", "uri": "confirm.wav"}]
    config = _config(readback_response=[_CHIPS], channel_readback_response={"voice": voice})
    out = _run(config, {"pending": {"guest_name": "Chen"}}, "", channel="voice")
    assert out["sm"]["_pending_payloads"] == voice


def test_hard_steer_back_readback_does_not_carry_readback_response() -> None:
    config = _config(readback_response=[_CHIPS])
    sm = {
        "pending": {"guest_name": "Chen"},
        "_steer_back_turns": 3,
        "_last_state": {"filled": {}, "pending": {"guest_name": "Chen"}, "deferred": {}},
    }
    # a host that rechecks after the model: the hard tier is armed; the model gets its look first
    armed = _run(config, sm, "what's the weather", rechecks_after_model=True)
    assert armed["action"]["recheck_after_model"] is True
    out = _run(config, armed["sm"], "", rechecks_after_model=True)  # the model recorded nothing
    assert out["action"]["reason"] == "steer_back_hard"
    assert out["action"]["force_preempt"] is True
    assert out["action"]["response"] is None
    # a spec host (no recheck): the hard tier applies on the user's invocation, without the response parts
    spec = _run(config, sm, "what's the weather")
    assert (spec["action"]["reason"], spec["action"]["force_preempt"]) == ("steer_back_hard", True)
    assert spec["action"]["response"] is None


# ── event_mappings ────────────────────────────────────────────────────────────────────────────────────


def _event_config() -> dict[str, Any]:
    config = _config(event_mappings={"vip_web_form": {"party_size": 8, "source_page": "vip"}})
    config["slots"][0]["source"] = ["event", "user"]
    return config


def test_event_mappings_fill_slots_with_constants_when_the_named_event_arrives() -> None:
    out = _run(_event_config(), {}, "", event_data={"ia_event_name": "vip_web_form"})
    assert out["sm"]["filled"]["party_size"] == 8
    assert out["action"]["event_prefilled"] is True


def test_event_mappings_overwrite_the_event_data() -> None:
    out = _run(_event_config(), {}, "", event_data={"ia_event_name": "vip_web_form", "party_size": 3})
    assert out["sm"]["filled"]["party_size"] == 8


def test_event_mappings_without_a_match_change_nothing() -> None:
    out = _run(_event_config(), {}, "", event_data={"ia_event_name": "other", "party_size": 3})
    assert out["sm"]["filled"]["party_size"] == 3
    none = _run(_event_config(), {}, "", event_data={"ia_event_name": "other"})
    assert "party_size" not in none["sm"]["filled"]


def test_event_mapping_keys_no_slot_reads_get_a_warning() -> None:
    config = _event_config()
    config["event_mappings"]["vip_web_form"]["partysize"] = 2
    assert "event_mapping_unused" in _codes(config, "warning")


# ── on_complete ───────────────────────────────────────────────────────────────────────────────────────


def test_on_complete_loops_back_instead_of_finishing() -> None:
    config = _config()
    config["tasks"][0]["on_complete"] = {"clear_slots": ["guest_name", "booking_id"]}
    sm = {
        "filled": {"party_size": 2, "guest_name": "Chen", "booking_id": "B1"},
        "task_results": {"Book": {"success": True, "booking_id": "B1"}, "Other": {"x": 1}},
        "_task_just_completed": "Book",
    }
    out = _run(config, sm)
    assert out["sm"]["status"] == "in_progress"
    assert out["sm"]["filled"] == {"party_size": 2}
    assert out["sm"]["task_results"] == {}
    assert out["action"]["preempt"] is True
    assert out["action"]["message"] == "Booked: B1."
    following = _run(config, out["sm"], "")
    assert following["action"]["message"] == "Under what name?"


def test_on_complete_on_a_non_terminal_task_gets_a_warning() -> None:
    config = _config()
    config["tasks"][0]["terminal"] = False
    config["tasks"][0]["on_complete"] = {"clear_slots": ["guest_name"]}
    assert "on_complete_not_terminal" in _codes(config, "warning")


def test_on_complete_clear_slots_must_name_slots() -> None:
    config = _config()
    config["tasks"][0]["on_complete"] = {"clear_slots": ["guest_nam"]}
    with pytest.raises(ConfigValidationError, match="did you mean 'guest_name'"):
        compile_config(config)


# ── task-result placeholders ──────────────────────────────────────────────────────────────────────────


def test_then_say_quotes_raw_result_fields() -> None:
    config = _config()
    config["tasks"][0]["then_say"] = "Booked for {party_size} as of {quoteDate}."
    config["tasks"][0]["then_response"] = [{"type": "payload", "data": {"ref": "{confirmation_code}"}}]
    assert _codes(config, "error") == set()
    assert "result_placeholder" in _codes(config, "warning")
    sm = {
        "filled": {"party_size": 2, "guest_name": "Chen"},
        "task_results": {
            "Book": {"success": True, "booking_id": "B1", "quoteDate": "May 1", "confirmation_code": "ZX"}
        },
        "_task_just_completed": "Book",
    }
    sm["filled"]["booking_id"] = "B1"
    out = _run(config, sm)
    assert out["action"]["message"] == "Booked for 2 as of May 1."
    assert out["action"]["response"] == [{"type": "payload", "data": {"ref": "ZX"}}]


def test_a_then_say_placeholder_close_to_a_slot_name_is_still_a_typo_error() -> None:
    config = _config()
    config["tasks"][0]["then_say"] = "Booked for {party_sise}."
    assert "unknown_placeholder" in _codes(config, "error")


# ── options_from chips ────────────────────────────────────────────────────────────────────────────────


def _chips_config(chip: dict[str, Any]) -> dict[str, Any]:
    config = _config()
    config["slots"].insert(0, {"name": "times", "source": "task:Find"})
    config["slots"][1]["requires"] = ["times"]
    config["slots"][1]["response"] = [{"type": "payload", "data": {"richContent": [[chip]]}}]
    config["tasks"].insert(0, {"name": "Find", "tool": "find", "outputs": {"times": "times"}})
    return config


def test_options_from_fills_chips_from_a_comma_separated_slot() -> None:
    config = _chips_config({"type": "chips", "options_from": "times"})
    out = _run(
        config, {"filled": {"times": "7:00 PM, , 8:30 PM"}, "task_results": {"Find": {"times": "x"}}}, ""
    )
    (part,) = out["sm"]["_pending_payloads"]
    chip = part["data"]["richContent"][0][0]
    assert chip["options"] == [{"text": "7:00 PM"}, {"text": "8:30 PM"}]


def test_options_from_with_event_name_makes_each_option_send_the_event() -> None:
    config = _chips_config({"type": "chips", "options_from": "times", "event_name": "pick_time"})
    out = _run(
        config, {"filled": {"times": ["7:00 PM", "8:30 PM"]}, "task_results": {"Find": {"times": "x"}}}, ""
    )
    chip = out["sm"]["_pending_payloads"][0]["data"]["richContent"][0][0]
    assert chip["options"] == [
        {"text": "7:00 PM", "event_name": "pick_time"},
        {"text": "8:30 PM", "event_name": "pick_time"},
    ]


def test_options_from_must_name_a_slot() -> None:
    config = _chips_config({"type": "chips", "options_from": "tmes"})
    assert "unknown_slot" in _codes(config, "error")


# ── gate_slot written by another agent ────────────────────────────────────────────────────────────────


def test_gate_slot_that_no_slot_declares_loads_and_gates_on_filled() -> None:
    config = _config(gate_slot="active_flow")
    assert _codes(config, "error") == set()
    assert "undeclared_gate_slot" in _codes(config, "warning")
    closed = _run(config, {}, "hi")
    assert closed["action"]["gate_open"] is False
    opened = _run(config, {"filled": {"active_flow": "booking"}}, "hi")
    assert opened["action"]["gate_open"] is True


def test_gate_slot_named_by_bootstrap_needs_no_warning() -> None:
    config = _config(gate_slot="active_flow", bootstrap={"tool": "set_active_flow", "slot": "active_flow"})
    assert "undeclared_gate_slot" not in _codes(config, "warning")


def test_gate_slot_close_to_a_declared_slot_is_a_typo_error() -> None:
    with pytest.raises(ConfigValidationError, match="did you mean 'party_size'"):
        compile_config(_config(gate_slot="party_sise"))


# ── bootstrap ─────────────────────────────────────────────────────────────────────────────────────────

_BOOT = {
    "tool": "set_active_flow",
    "slot": "active_flow",
    "reset_on_complete": True,
    "welcome_slot": "party_size",
}


def test_bootstrap_tool_writes_its_stored_value_to_filled() -> None:
    config = _config(gate_slot="active_flow", bootstrap=_BOOT)
    result = {"stored": True, "value": "booking", "target_agent": "Booking_Agent"}
    sm = after_tool({}, config, "set_active_flow", {"flow": "booking"}, result)
    assert sm["filled"]["active_flow"] == "booking"
    assert sm["_pending_transfer"] == "Booking_Agent"
    assert sm["pending"] == {}


def test_bootstrap_error_result_changes_nothing() -> None:
    config = _config(bootstrap=_BOOT)
    sm = after_tool({}, config, "set_active_flow", {"flow": "x"}, {"error": True, "error_code": "bad"})
    assert sm["filled"] == {} and "_pending_transfer" not in sm


def test_bootstrap_reset_on_complete_restarts_a_finished_flow() -> None:
    config = _config(bootstrap=_BOOT)
    done = {
        "status": "complete",
        "filled": {"party_size": 2, "active_flow": "booking"},
        "pending": {"guest_name": "Chen"},
        "task_results": {"Book": {"success": True}},
    }
    sm = after_tool(done, config, "set_active_flow", {}, {"stored": True, "value": "booking"})
    assert sm["status"] == "in_progress"
    assert sm["task_results"] == {} and sm["pending"] == {}
    assert sm["filled"] == {"party_size": 2, "active_flow": "booking"}
    without = copy.deepcopy(config)
    without["bootstrap"] = {"tool": "set_active_flow", "slot": "active_flow"}
    kept = after_tool(done, without, "set_active_flow", {}, {"stored": True, "value": "booking"})
    assert kept["status"] == "complete"


def test_the_engine_never_hides_the_bootstrap_tool() -> None:
    config = _config(bootstrap=_BOOT)
    config["slots"].insert(0, {"name": "active_flow", "setter": "set_active_flow"})
    sm = {"filled": {"active_flow": "booking"}}
    assert "set_active_flow" not in _run(config, sm, "hi")["action"]["hide_tools"]
    finished = _run(config, {"status": "complete", "filled": {"active_flow": "booking"}})
    assert "set_active_flow" not in finished["action"]["hide_tools"]
    assert "set_party_size" in finished["action"]["hide_tools"]


def test_bootstrap_welcome_slot_must_name_a_slot() -> None:
    config = _config(bootstrap={**_BOOT, "welcome_slot": "welcom"})
    assert "unknown_slot" in _codes(config, "error")


# ── legacy stall keys ─────────────────────────────────────────────────────────────────────────────────


def test_progress_stall_becomes_the_equivalent_steer_back_with_a_warning() -> None:
    config = _config(
        progress_stall={"max_turns": 3, "on_exhaust": {"say": "Let me get help.", "then": "escalate"}}
    )
    report = validate_dag(config)
    assert not report.errors
    (warning,) = [w for w in report.warnings if w.code == "legacy_stall_key_translated"]
    assert warning.location == "progress_stall" and "escalate_after 3" in warning.message
    steer = compile_config(config).steer_back
    assert (steer.soft_after, steer.hard_after, steer.escalate_after) == (3, 3, 3)
    stalled = {"_steer_back_turns": 1, "_last_state": {"filled": {}, "pending": {}, "deferred": {}}}
    second = _run(config, stalled, "blah")
    assert second["action"]["steer_back_directive"] is None  # no soft tier
    assert second["action"]["force_preempt"] is False  # no hard tier
    # a host that rechecks: escalation is armed, the model sees the message first ...
    armed = _run(config, second["sm"], "blah", rechecks_after_model=True)
    third = _run(config, armed["sm"], "", rechecks_after_model=True)  # ... and recorded nothing
    # a spec host: the third stalled turn escalates at once, as on the original platform
    spec = _run(config, second["sm"], "blah")
    for out in (third, spec):
        assert out["sm"]["status"] == "escalated"
        assert out["action"]["message"] == "Let me get help."
        assert out["action"]["function_call"] == {"name": "escalate", "args": {}}


def test_progress_stall_defaults_to_eight_turns() -> None:
    assert compile_config(_config(progress_stall={})).steer_back.escalate_after == 8


def test_progress_stall_is_ignored_when_steer_back_is_configured() -> None:
    config = _config(progress_stall={"max_turns": 3}, steer_back={"escalate_after": 9})
    assert "legacy_stall_key_ignored" in _codes(config, "warning")
    assert compile_config(config).steer_back.escalate_after == 9


def test_readback_retry_keeps_only_its_on_exhaust_with_a_warning() -> None:
    config = _config(readback_retry={"max_retries": 2, "on_exhaust": {"say": "Stuck."}})
    assert "legacy_stall_key_translated" in _codes(config, "warning")
    steer = compile_config(config).steer_back
    assert (steer.soft_after, steer.hard_after, steer.escalate_after) == (2, 4, 6)
    assert steer.on_exhaust is not None and steer.on_exhaust.say == "Stuck."
    both = _config(readback_retry={"max_retries": 2}, progress_stall={"max_turns": 8})
    assert "legacy_stall_key_ignored" in _codes(both, "warning")


# ── strictness stays for typos; config_id input ───────────────────────────────────────────────────────


def test_an_unknown_key_is_still_an_error_with_did_you_mean() -> None:
    with pytest.raises(ConfigValidationError, match="did you mean 'readback_response'"):
        compile_config(_config(readback_responce=[_CHIPS]))
    config = _config()
    config["tasks"][0]["on_complet"] = {"clear_slots": []}
    with pytest.raises(ConfigValidationError, match="did you mean 'on_complete'"):
        compile_config(config)
    assert _codes(_config(**{"x-notes": "private"}), "error") == set()


def test_the_engine_entry_accepts_config_id() -> None:
    out = _run(_config(), {}, "hi", config_id="bella_notte")
    assert out["action"]["message"] == "How many guests?"
    with pytest.raises(Exception, match="config_id"):
        _run(_config(), {}, "hi", config_id=3)


def test_the_editor_schema_knows_the_platform_spelling() -> None:
    from slotgraph.config import dag_json_schema

    slot = dag_json_schema()["$defs"]["SlotConfig"]["properties"]
    assert "channel_response" in slot and "channel_responses" in slot
    top = dag_json_schema()["properties"]
    assert {"readback_response", "event_mappings", "bootstrap", "progress_stall"} <= set(top)


def test_a_result_field_named_after_a_slot_is_not_a_typo_of_it() -> None:
    """``{guest_nameFull}`` / ``{party_size_label}`` extend a slot's name (a result field like the platform's
    ``symbolName`` next to the slot ``symbol``): warned as result fields; a near-miss is still a typo."""
    config = _config()
    config["tasks"][0]["then_say"] = "Booked for {guest_nameFull}, {party_size_label}."
    assert _codes(config, "error") == set()
    assert "result_placeholder" in _codes(config, "warning")
    config["tasks"][0]["then_say"] = "Booked for {guest_nam}."
    with pytest.raises(ConfigValidationError, match="did you mean 'guest_name'"):
        compile_config(config)
