"""``event_to_json`` builds each event's dict from its class's field names; it must give exactly what
``dataclasses.asdict`` gives (``kind`` first), nested values copied, whatever the values are."""

from __future__ import annotations

import collections
import dataclasses
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from slotgraph.logic.guards import GuardEvent
from slotgraph.logic.rules import RuleEvent
from slotgraph.logic.topics import TopicEvent
from slotgraph.runtime import (
    AgentTransferEvent,
    EndSessionEvent,
    ErrorEvent,
    ModelNoCallEvent,
    PayloadEvent,
    RefusalEvent,
    StateSnapshotEvent,
    TextEvent,
    ToolCallEvent,
    ToolResultEvent,
    TransferEvent,
    event_to_json,
)


@dataclasses.dataclass
class Booked:
    """A dataclass a tool may return: asdict turns it into a dict."""

    ref: str
    party: list[int]


def _reference(event: Any) -> dict[str, Any]:
    data = dataclasses.asdict(event)
    return {"kind": data.pop("kind"), **data}


_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5)
_odd = st.builds(Booked, st.text(max_size=3), st.lists(st.integers(), max_size=2)) | st.builds(
    lambda items: collections.OrderedDict(items),
    st.lists(st.tuples(st.text(max_size=3), st.integers()), max_size=2),
)
values = st.recursive(
    _scalars | _odd,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=4) | st.integers(), inner, max_size=3)
    ),
    max_leaves=12,
)
text = st.text(max_size=6)
events = st.one_of(
    st.builds(TextEvent, text),
    st.builds(PayloadEvent, st.dictionaries(text, values, max_size=3)),
    st.builds(ToolCallEvent, text, text, st.dictionaries(text, values, max_size=3), st.just("model")),
    st.builds(ToolResultEvent, text, text, values, st.booleans()),
    st.builds(StateSnapshotEvent, st.dictionaries(text, values, max_size=3), text),
    st.builds(EndSessionEvent, text, st.booleans(), st.none() | text),
    st.builds(TransferEvent, text, st.dictionaries(text, values, max_size=3)),
    st.builds(AgentTransferEvent, text, text, text),
    st.builds(ErrorEvent, text, text),
    st.builds(ModelNoCallEvent, text, text),
    st.builds(RuleEvent, text, text, st.lists(text, max_size=2).map(tuple), st.booleans()),
    st.builds(TopicEvent, text, text, st.just("model")),
    st.builds(GuardEvent, text, st.just("pattern"), st.just("redact"), st.integers(0, 3)),
    st.builds(
        RefusalEvent, text, text, st.dictionaries(text, values, max_size=3), st.just("hidden_tool"), text
    ),
)


@given(events)
def test_event_to_json_is_asdict_with_kind_first(event: Any) -> None:
    got, expected = event_to_json(event), _reference(event)
    assert got == expected
    assert list(got) == list(expected)
    assert [type(v) for v in got.values()] == [type(v) for v in expected.values()]


def test_nested_values_are_copies() -> None:
    args = {"guests": [{"name": "Ada"}]}
    data = event_to_json(ToolCallEvent("c1", "set_guests", args, "model"))
    assert data == {
        "kind": "tool_call",
        "call_id": "c1",
        "name": "set_guests",
        "args": args,
        "origin": "model",
    }
    data["args"]["guests"][0]["name"] = "Bob"
    assert args == {"guests": [{"name": "Ada"}]}


def test_a_dataclass_in_a_result_becomes_a_dict() -> None:
    data = event_to_json(ToolResultEvent("c1", "book", {"booking": Booked("BN-1", [2])}))
    assert data["result"] == {"booking": {"ref": "BN-1", "party": [2]}}
