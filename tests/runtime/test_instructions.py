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


def test_the_steer_back_block() -> None:
    suffix = build_phase_suffix(
        DAG, action_of({"steer_back_directive": "Steer back: ask for the date."}), {}, hidden=()
    )
    assert "<steer_back>\nSteer back: ask for the date.\n</steer_back>" in suffix


def test_the_engines_user_context_block_follows_its_other_hints() -> None:
    # <user_context> (the text kept at a gate slot) is the engine's hint now, part of its si_suffix
    si = (
        "<readback_scope>\nPending confirmation: 4 guests.\n</readback_scope>\n\n"
        "<user_context>\n4 of us\n</user_context>"
    )
    suffix = build_phase_suffix(DAG, action_of({"si_suffix": si}), {"pending": {"num_guests": 4}}, hidden=())
    assert suffix.endswith(si)


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
