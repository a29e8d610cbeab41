"""The spec entry's config memo compares a config with a snapshot sharing its immutable leaves: every
container is new (a change to the config never reaches the snapshot) and every leaf is the same object
(comparing the very config with it finds keys and values by identity)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from slotgraph.adapters.cxas import _snapshot

LEAVES = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=30,
)


def _containers(value: Any) -> list[Any]:
    found = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            found.append(item)
            stack.extend(item)
    return found


def _pairs(a: Any, b: Any) -> list[tuple[Any, Any]]:
    """Corresponding (config, snapshot) values, every level."""
    out = [(a, b)]
    if isinstance(a, dict):
        for key in a:
            out += _pairs(a[key], b[key])
    elif isinstance(a, list):
        for x, y in zip(a, b, strict=True):
            out += _pairs(x, y)
    return out


@settings(max_examples=200, deadline=None)
@given(value=VALUES)
def test_new_containers_same_leaves(value: Any) -> None:
    snap = _snapshot(value)
    assert snap == value
    for original, copied in _pairs(value, snap):
        if isinstance(original, dict | list):
            assert copied is not original and type(copied) is type(original)
        else:
            assert copied is original


@settings(max_examples=200, deadline=None)
@given(value=VALUES, data=st.data())
def test_a_change_anywhere_shows(value: Any, data: st.DataObject) -> None:
    snap = _snapshot(value)
    containers = _containers(value)
    if not containers:
        return
    target = data.draw(st.sampled_from(containers))
    if isinstance(target, list):
        target.append("__changed__")
    else:
        target["__changed__"] = "x"  # a key no generated dict has (they are at most 5 characters)
    assert value != snap


def test_other_objects_are_deep_copied() -> None:
    inner = [1, 2]
    value = {"a": (inner,)}
    snap = _snapshot(value)
    assert snap == value and snap["a"][0] is not inner
