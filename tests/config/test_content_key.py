"""The compile cache's content key (``slotgraph.config.content``): a cheaper digest than the public
fingerprint, which two configs share only when they are equal values of the same types; neither is shared
by two different configs, and a config too deep or holding itself is a clear error."""

from __future__ import annotations

import copy
import datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotgraph.adapters.cxas import slot_filling_engine
from slotgraph.config import (
    ConfigValidationError,
    clear_compile_cache,
    compile_config,
    config_fingerprint,
    validate_dag,
)
from slotgraph.config.content import MAX_CONFIG_DEPTH, ConfigContent

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
    assert content.fingerprint != config_fingerprint(plain)  # an object and its str are other content


def test_no_two_different_configs_share_a_key_or_a_fingerprint() -> None:
    """The collision: a value JSON has no type for was written as its ``str``, so a config holding a date
    (YAML reads ``2026-06-17`` as one) and one holding the string of that date shared a fingerprint — and,
    when both held some such value, a compile-cache key: the second got the first one's compiled DAG, with a
    date where its tool call's arguments said a string. Every value now keeps its type."""
    day = datetime.date(2026, 6, 17)

    def with_args(args: dict[Any, Any]) -> dict[str, Any]:
        raw = spec_dag()
        raw["event_mappings"] = {"booked": args}
        return raw

    variants = [
        with_args({"first": day, "second": day}),
        with_args({"first": day, "second": "2026-06-17"}),
        with_args({"first": day, "second": {"\u0000": ["date", repr(day)]}}),
        with_args({"first": day, "\u0000date:datetime.date(2026, 6, 17)": 1}),
        with_args({"first": day, day: 1}),
        with_args({"first": day, 1: "x"}),
        with_args({"first": day, "1": "x"}),
    ]
    assert len({ConfigContent(raw).key for raw in variants}) == len(variants)
    assert len({config_fingerprint(raw) for raw in variants}) == len(variants)
    # equal content still gives one fingerprint, whatever the key order
    reordered = with_args({"second": day, "first": day})
    assert config_fingerprint(reordered) == config_fingerprint(variants[0])


def test_a_config_too_deep_or_holding_itself_is_a_clear_error_not_a_crash() -> None:
    deep: dict[str, Any] = {}
    inner = deep
    for _ in range(5000):
        inner["x"] = {}
        inner = inner["x"]
    too_deep = {**spec_dag(), "x-notes": deep}
    itself = spec_dag()
    itself["slots"][0]["x-self"] = itself["slots"]
    for raw, code, where in (
        (too_deep, "config_too_deep", "x-notes.x.x.…"),
        (itself, "config_not_a_tree", "slots[0].x-self"),
    ):
        for attempt in (compile_config, config_fingerprint, lambda r: validate_dag(r).raise_for_errors()):
            with pytest.raises(ConfigValidationError) as info:
                attempt(raw)
            (issue,) = info.value.issues
            assert (issue.code, issue.location) == (code, where)
        with pytest.raises(ConfigValidationError):
            slot_filling_engine({"raw_config": raw, "sm": {}, "last_user_text": ""})


def test_a_shared_part_is_not_a_cycle_and_nesting_up_to_the_limit_compiles() -> None:
    raw = spec_dag()
    shared = {"say": "Call us.", "then": "end_session"}
    raw["x-a"], raw["x-b"] = shared, shared
    nested: dict[str, Any] = {}
    inner = nested
    for _ in range(MAX_CONFIG_DEPTH - 3):
        inner["x"] = {}
        inner = inner["x"]
    raw["x-nested"] = nested
    assert compile_config(raw).fingerprint == config_fingerprint(raw)


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
