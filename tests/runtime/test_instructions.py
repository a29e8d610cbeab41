"""The phase suffix: one protocol block, directive, hints, and sentinel replacement."""

from __future__ import annotations

import pytest

from slotgraph.config import CompiledDag, compile_config
from slotgraph.runtime import instructions
from slotgraph.runtime.instructions import SENTINEL, build_phase_suffix, collection_hints, inject_suffix

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


def _fresh_dag() -> CompiledDag:
    """The toy DAG without the guide earlier calls kept with it (compiling again returns the cached DAG)."""
    dag = compile_config(toy_dag())
    dag.derived.pop("slotgraph.runtime.instructions", None)
    return dag


def test_the_collection_block_is_built_once_per_dag_and_visible_setters() -> None:
    dag = _fresh_dag()
    action = action_of({"message": "How many guests?"})
    first = build_phase_suffix(dag, action, {"pending": {}}, hidden={"set_chosen_time"})
    guide = dag.derived["slotgraph.runtime.instructions"]
    assert len(guide.blocks) == 1
    again = build_phase_suffix(dag, action, {"pending": {}}, hidden={"set_chosen_time"})
    assert again == first and len(guide.blocks) == 1
    everything = build_phase_suffix(dag, action, {"pending": {}}, hidden=())
    assert len(guide.blocks) == 2 and "set_chosen_time" in everything and everything != first
    # the kept blocks are what a DAG without them builds for the same calls
    assert build_phase_suffix(_fresh_dag(), action, {"pending": {}}, hidden={"set_chosen_time"}) == first
    assert collection_hints(dag, {"set_chosen_time"}) == [
        line for line in collection_hints(dag, ()) if "set_chosen_time" not in line
    ]


def test_the_kept_blocks_per_dag_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(instructions, "_MAX_BLOCKS", 1)
    dag = _fresh_dag()
    one = build_phase_suffix(dag, None, {}, hidden=())
    other = build_phase_suffix(dag, None, {}, hidden={"set_chosen_time"})
    assert len(dag.derived["slotgraph.runtime.instructions"].blocks) == 1
    assert one != other and build_phase_suffix(dag, None, {}, hidden={"set_chosen_time"}) == other


def test_a_dag_without_hinted_setters_gets_the_protocol_without_a_tool_guide() -> None:
    raw = toy_dag()
    for slot in raw["slots"]:
        slot.pop("hint", None)
    suffix = build_phase_suffix(compile_config(raw), None, {}, hidden=())
    assert "<slot_filling_protocol>" in suffix and "Tool selection:" not in suffix
