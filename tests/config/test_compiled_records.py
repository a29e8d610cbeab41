"""The compiled config's values (``CompiledSlot``, ``CompiledTask``, ``CompiledDag``) behave as frozen
dataclasses did: immutable, compared and shown by value, copied as themselves."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from slotgraph.config import CompiledDag, clear_compile_cache, compile_config, config_fingerprint
from slotgraph.config.compiled import CompiledSlot, CompiledTask, Value
from slotgraph.config.extensions import drop_extension_keys, is_extension_key

from .dags import bella_dag, spec_dag


def _dag() -> CompiledDag:
    """A compilation of its own (not the cache's)."""
    clear_compile_cache()
    return compile_config(bella_dag())


def _values() -> list[Value]:
    dag = _dag()
    return [dag, dag.slots[0], dag.tasks[0]]


@pytest.mark.parametrize("value", _values(), ids=lambda v: type(v).__name__)
def test_a_field_cannot_be_assigned_or_deleted(value: Value) -> None:
    name = dataclasses.fields(value)[0].name
    before = getattr(value, name)
    with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot assign to field '{name}'"):
        setattr(value, name, "changed")
    with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot delete field '{name}'"):
        delattr(value, name)
    assert getattr(value, name) is before


@pytest.mark.parametrize("value", _values(), ids=lambda v: type(v).__name__)
def test_no_new_attribute_can_be_added(value: Value) -> None:
    with pytest.raises(AttributeError):
        value.surprise = 1  # type: ignore[attr-defined]
    assert not hasattr(value, "surprise")


def test_equal_values_compare_equal_and_show_alike() -> None:
    one, other = _dag(), _dag()
    # a slot without a compiled callable of its own (formatters and conditions are closures, equal only
    # to themselves) is equal to the same slot of another compilation
    assert one.slots[0] == other.slots[0] and one.slots[0] is not other.slots[0]
    assert repr(one.slots[0]) == repr(other.slots[0])
    assert repr(one.slots[0]).startswith(f"CompiledSlot(name={one.slots[0].name!r}, sources=")
    assert one == one.replace() and one.tasks == one.replace().tasks


def test_a_different_config_compiles_to_an_unequal_value() -> None:
    raw = spec_dag()
    changed = copy.deepcopy(raw)
    changed["slots"][0]["ask"] = "Something else?"
    assert compile_config(raw) != compile_config(changed)
    assert compile_config(raw).slots[0] != compile_config(changed).slots[0]
    assert compile_config(raw).slots[0] != "not a slot"


def test_content_and_derived_views_are_not_part_of_equality_or_repr() -> None:
    dag = _dag()
    dag.derived["a view"] = object()
    other = dag.replace(content=None, derived={})
    assert other == dag and repr(other) == repr(dag)
    assert "content=" not in repr(dag) and "derived=" not in repr(dag)
    assert other.content is None and other.derived == {}
    assert dag.content is not None and config_fingerprint(spec_dag()) != ""


def test_replace_keeps_the_other_fields_and_refuses_unknown_ones() -> None:
    slot = _dag().slots[1]
    asked = slot.replace(ask="How many of you?")
    assert isinstance(asked, CompiledSlot) and asked.ask == "How many of you?"
    assert all(
        getattr(asked, f) == getattr(slot, f)
        for f in (f.name for f in dataclasses.fields(slot))
        if f != "ask"
    )
    with pytest.raises(TypeError, match=r"no field\(s\) \['asks'\]"):
        slot.replace(asks="typo")


def test_a_new_dag_gets_its_own_derived_memo() -> None:
    slot = CompiledSlot(name="a", sources=("user",), event_key="a")
    task = CompiledTask(name="T", tool="t")
    one, two = CompiledDag(slots=(slot,), tasks=(task,)), CompiledDag(slots=(slot,), tasks=(task,))
    assert one.derived is not two.derived
    assert one == two and task.outputs == {} and one.slot_by_name == {}


def test_values_copy_as_themselves() -> None:
    dag = _dag()
    assert copy.copy(dag) is dag and copy.deepcopy(dag) is dag
    state: dict[str, Any] = {"config": dag, "slot": dag.slots[0]}
    copied = copy.deepcopy(state)
    assert copied["config"] is dag and copied["slot"] is dag.slots[0]


def test_extension_keys_are_dropped_and_a_mapping_without_any_is_kept_as_is() -> None:
    plain = {"name": "a", "ask": "?"}
    assert drop_extension_keys(plain) is plain
    assert drop_extension_keys({"name": "a", "x-note": 1, 3: "b"}) == {"name": "a", 3: "b"}
    assert drop_extension_keys(["x-a"]) == ["x-a"]  # only mapping keys are extension keys
    assert is_extension_key("x-a") and not is_extension_key("xa") and not is_extension_key(1)
