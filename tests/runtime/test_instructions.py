"""The phase suffix: one protocol block, directive, hints, and sentinel replacement."""

from __future__ import annotations

from slotgraph.config import compile_config
from slotgraph.runtime.instructions import SENTINEL, build_phase_suffix, inject_suffix

from .fakes import action_of
from .toy_agent import toy_dag

DAG = compile_config(toy_dag())


def test_collection_suffix_has_the_tool_guide_for_visible_setters_only() -> None:
    suffix = build_phase_suffix(
        DAG, action_of({"message": "How many guests?"}), {"pending": {}}, hidden={"set_chosen_time"}
    )
    assert "<slot_filling_protocol>" in suffix and "<readback_protocol>" not in suffix
    assert "  - Number of guests → set_num_guests" in suffix
    assert "set_chosen_time" not in suffix
    assert "<system_directive>\nHow many guests?\n</system_directive>" in suffix


def test_readback_suffix_never_carries_the_collection_protocol() -> None:
    action = action_of(
        {"message": "Just to confirm — 4 guests.", "si_suffix": "<readback_scope>\nall\n</readback_scope>"}
    )
    suffix = build_phase_suffix(DAG, action, {"pending": {"num_guests": 4}}, hidden=())
    assert "<readback_protocol>" in suffix and "<slot_filling_protocol>" not in suffix
    assert suffix.index("<system_directive>") < suffix.index("<readback_scope>")


def test_inline_confirm_switches_to_collection() -> None:
    confirmed = action_of({"inline_confirmed": True})
    suffix = build_phase_suffix(DAG, confirmed, {"pending": {"num_guests": 4}}, hidden=())
    assert "<slot_filling_protocol>" in suffix and "<readback_protocol>" not in suffix


def test_steer_back_and_user_context_blocks() -> None:
    suffix = build_phase_suffix(
        DAG,
        action_of({"steer_back_directive": "Steer back: ask for the date."}),
        {},
        hidden=(),
        user_context="4 of us",
    )
    assert "<steer_back>\nSteer back: ask for the date.\n</steer_back>" in suffix
    assert "<user_context>" in suffix and "4 of us" in suffix


def test_an_engine_suffix_with_its_own_directive_is_not_doubled() -> None:
    action = action_of(
        {"message": "Ask date", "si_suffix": "<system_directive>\nAsk date\n</system_directive>"}
    )
    assert build_phase_suffix(DAG, action, {}, hidden=()).count("<system_directive>\n") == 1


def test_inject_replaces_after_the_sentinel() -> None:
    once = inject_suffix("Persona.", "<a>one</a>")
    twice = inject_suffix(once, "<b>two</b>")
    assert twice == f"Persona.\n\n{SENTINEL}\n<b>two</b>"
    assert inject_suffix(twice, None) == "Persona."
