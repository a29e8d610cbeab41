"""The compile cache's content key (``slotgraph.config.content``): a cheaper digest than the public
fingerprint, which two configs share only when they are equal values of the same types."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from slotgraph.adapters.cxas import slot_filling_engine
from slotgraph.config import clear_compile_cache, compile_config, config_fingerprint
from slotgraph.config.content import ConfigContent

from .dags import bella_dag, spec_dag

_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8))
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


class _Opaque:
    """An object marshal does not know (a host may put one in a config built in code)."""

    def __str__(self) -> str:
        return "opaque"


@settings(max_examples=200, deadline=None)
@given(_VALUES, _VALUES)
def test_one_key_means_equal_values_of_the_same_types(a: Any, b: Any) -> None:
    if ConfigContent(a).key == ConfigContent(b).key:
        assert a == b
        assert repr(a) == repr(b)  # 1, 1.0 and True are equal values; their keys differ


@settings(max_examples=200, deadline=None)
@given(_VALUES)
def test_the_fingerprint_is_that_of_the_canonical_json(value: Any) -> None:
    content = ConfigContent({"event_mappings": {"e": {"v": value}}})
    assert content.fingerprint == config_fingerprint({"event_mappings": {"e": {"v": value}}})
    assert content.copy() == {"event_mappings": {"e": {"v": value}}}


def test_equal_numbers_of_other_types_get_other_keys() -> None:
    keys = {ConfigContent({"args": {"n": value}}).key for value in (1, 1.0, True, "1", [1], (1,))}
    assert len(keys) == 6


def test_shared_parts_do_not_change_the_key() -> None:
    shared = {"say": "Call us.", "then": "end_session"}
    built = {"a": {"on_exhaust": shared}, "b": {"on_exhaust": shared}}
    assert ConfigContent(built).key == ConfigContent(copy.deepcopy(built)).key


def test_an_object_marshal_does_not_know_is_keyed_by_canonical_json() -> None:
    raw = bella_dag()
    raw["event_mappings"] = {"booked": {"marker": _Opaque()}}
    content = ConfigContent(raw)
    assert content.copy() is None
    assert content.fingerprint == config_fingerprint(raw)
    plain = bella_dag()
    plain["event_mappings"] = {"booked": {"marker": "opaque"}}
    assert content.key != ConfigContent(plain).key  # the tag keeps the two kinds of key apart
    assert content.fingerprint == config_fingerprint(plain)  # the public fingerprint did not change


def test_compiled_fingerprint_is_unchanged_and_key_order_only_costs_a_compilation() -> None:
    clear_compile_cache()
    raw = spec_dag()
    reordered = {key: raw[key] for key in reversed(list(raw))}
    first, second = compile_config(raw), compile_config(reordered)
    assert first.fingerprint == second.fingerprint == config_fingerprint(raw)
    assert second is not first
    assert [s.name for s in second.slots] == [s.name for s in first.slots]


def test_the_adapter_compiles_a_config_changed_in_place_again() -> None:
    clear_compile_cache()
    raw = bella_dag()
    first = slot_filling_engine({"raw_config": raw, "sm": {}, "seed": 1})
    assert "How many guests will be dining?" in first["action"]["message"]
    raw["slots"][1]["ask"] = "How many of you?"  # mutated in place: new content, a new compilation
    changed = slot_filling_engine({"raw_config": raw, "sm": {}, "seed": 1})
    assert "How many of you?" in changed["action"]["message"]
    assert slot_filling_engine({"raw_config": bella_dag(), "sm": {}, "seed": 1}) == first
