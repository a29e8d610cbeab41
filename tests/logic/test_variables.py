"""The session variable store (spec: "SessionVariableStore wraps the SAME session_variables dict ...")."""

from __future__ import annotations

from typing import Any

import pytest

from slotgraph.config.logic import VariableDeclaration
from slotgraph.logic import SlotFillingFacts, VariableChange, VariableStore, VariableWriteError


def _decl(name: str, type_: str = "any", **kw: Any) -> VariableDeclaration:
    return VariableDeclaration.model_validate({"name": name, "type": type_, "description": name, **kw})


def test_seeded_with_setdefault_an_inbound_value_beats_the_default() -> None:
    """ "Seeded from config.variables at build (setdefault — an inbound CCaaS value beats a config
    default)"."""
    store = VariableStore([_decl("tier", "string", default="basic"), _decl("visits", "integer", default=0)])
    assert store.seed({"tier": "gold"}) == []
    assert store.get("tier") == "gold"
    assert store.get("visits") == 0


def test_seed_keeps_persisted_values() -> None:
    store = VariableStore([_decl("visits", "integer", default=0)], {"visits": 3})
    store.seed()
    assert store.get("visits") == 3


def test_seed_refuses_mistyped_and_linked_initial_values_without_raising() -> None:
    store = VariableStore(
        [_decl("visits", "integer", default=0), _decl("sid", "string", linked_to="session_id")]
    )
    problems = store.seed({"visits": "many", "sid": "x"})
    assert len(problems) == 2 and "visits" in problems[0] and "linked" in problems[1]
    assert store.get("visits") == 0


def test_reads_fall_through_to_metadata_by_presence_not_truthiness() -> None:
    """ "A real variable of the same name WINS over the metadata fact (presence, not truthiness — an
    explicit None still wins ...)"."""
    store = VariableStore([], {"caller": None}, metadata={"caller": "+4912345", "channel": "web"})
    assert store.get("caller") is None
    assert store.get("channel") == "web"
    assert store.get("nothing") is None and not store.has("nothing")


def test_writes_go_only_to_variables_and_metadata_stays_read_only_context() -> None:
    """ "writes go only to session_variables — metadata is read-only session context"."""
    store = VariableStore([], metadata={"channel": "web"})
    store.set("channel", "phone")
    assert store.get("channel") == "phone"
    assert store.metadata == {"channel": "web"}
    assert store.values() == {"channel": "phone"}


def test_linked_variables_are_read_through_aliases_and_refuse_writes() -> None:
    """ "linked variables are read-through aliases and refuse writes"."""
    store = VariableStore(
        [
            _decl("sid", "string", linked_to="session_id"),
            _decl("guests", "integer", linked_to="filled.party"),
        ],
        metadata={"session_id": "s-1"},
        facts=SlotFillingFacts({"party": 4}),
    )
    assert store.get("sid") == "s-1"
    assert store.get("guests") == 4
    with pytest.raises(VariableWriteError, match="linked"):
        store.set("sid", "other")
    assert "sid" not in store.values()


def test_writes_of_the_wrong_declared_type_are_refused() -> None:
    store = VariableStore([_decl("visits", "integer", default=0)])
    store.seed()
    with pytest.raises(VariableWriteError, match="expected a integer"):
        store.set("visits", "three")
    store.set("visits", None)  # None means "not set" and is always allowed
    assert store.get("visits") is None


def test_change_subscriptions_see_every_real_change_once() -> None:
    """ "change subscriptions drive everything below"."""
    store = VariableStore([_decl("tier", "string", default="basic")])
    store.seed()
    seen: list[VariableChange] = []
    unsubscribe = store.subscribe(seen.append)
    assert store.set("tier", "gold", source="rule:x") is not None
    assert store.set("tier", "gold") is None  # no change, no notification
    unsubscribe()
    store.set("tier", "basic")
    assert seen == [VariableChange("tier", "basic", "gold", "rule:x")]


def test_slot_filling_state_is_visible_under_stable_names() -> None:
    facts = SlotFillingFacts.from_state({"filled": {"party_size": 5}, "pending": {"date": "x"}})
    store = VariableStore([], facts=facts)
    context = store.context()
    assert context["filled"] == {"party_size": 5}
    assert context["status"] == "in_progress"
    assert context["current_phase"] == "readback"
    assert SlotFillingFacts.from_state({"status": "completed"}).current_phase == "done"
    assert SlotFillingFacts.from_state({}).current_phase == "collection"


def test_declarations_check_their_default_and_reserved_names() -> None:
    with pytest.raises(ValueError, match="default does not match"):
        _decl("visits", "integer", default="x")
    with pytest.raises(ValueError, match="reserved"):
        _decl("filled", "object")
    with pytest.raises(ValueError, match="cannot have a 'default'"):
        _decl("sid", "string", linked_to="session_id", default="x")
    with pytest.raises(ValueError):
        VariableDeclaration.model_validate({"name": "x", "type": "string"})  # description is required


def test_containers_are_copied_at_every_edge_and_scalars_shared() -> None:
    """Values go in and out as copies: a list or dict given, read or seeded is never the store's own (text,
    numbers and flags are immutable, so they are shared as they are)."""
    store = VariableStore([_decl("items", "list", default=["a"]), _decl("name", "string", default="Ada")])
    store.seed({"prefs": {"seat": "aisle"}})
    declared = store.declarations["items"].default
    assert store.get("items") == ["a"] and store.get("items") is not declared
    given = ["x", {"n": 1}]
    store.set("items", given)
    given[1]["n"] = 2
    assert store.get("items") == ["x", {"n": 1}]
    snapshot, values = store.snapshot(), store.values()
    snapshot["items"][1]["n"] = 3
    values["prefs"]["seat"] = "window"
    assert store.get("items") == ["x", {"n": 1}] and store.get("prefs") == {"seat": "aisle"}
    assert snapshot["name"] == "Ada" and values["name"] is store.get("name")
