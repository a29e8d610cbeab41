"""Where the offline model plans: always in a worker thread (so a long message never blocks a server's other
sessions); and each tool's schema read once per model object and tool."""

from __future__ import annotations

import asyncio
import datetime as dt
import threading
from typing import Any

import pytest

from slotgraph.models.offline import OfflineModel
from slotgraph.models.offline import model as offline_model
from slotgraph.models.offline import schema as offline_schema
from slotgraph.models.offline.model import ToolViews
from slotgraph.models.protocol import ModelRequest, ToolSchema, UserMessage

NOW = dt.datetime(2026, 7, 13, 18, 0)
SI = "Be warm.\n<system_directive>\nHow many guests?\n</system_directive>"


def _basics() -> ToolSchema:
    return ToolSchema(
        "set_party",
        "Record the party size.",
        {
            "type": "object",
            "properties": {"party_size": {"type": "integer", "description": "Number of guests."}},
        },
    )


@pytest.mark.parametrize("text", ["4 people", "4 people".ljust(5000)])
def test_every_message_is_planned_in_a_worker_thread(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    planned_on: list[int] = []
    real = offline_model.plan_turn

    def spy(*args: Any, **kwargs: Any) -> Any:
        planned_on.append(threading.get_ident())
        return real(*args, **kwargs)

    monkeypatch.setattr(offline_model, "plan_turn", spy)
    request = ModelRequest(SI, (UserMessage(text),), (_basics(),))

    async def call() -> tuple[int, Any]:
        return threading.get_ident(), await OfflineModel(clock=lambda: NOW).generate(request)

    loop_thread, response = asyncio.run(call())
    (planner,) = planned_on
    assert planner != loop_thread
    assert [(c.name, dict(c.args)) for c in response.tool_calls] == [("set_party", {"party_size": 4})]


def _counted_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the tools the offline model reads from now on (nothing read before is kept)."""
    reads: list[str] = []
    real = offline_schema._read_setter

    def counting(schema: Any) -> Any:
        reads.append(str(schema["name"]))
        return real(schema)

    monkeypatch.setattr(offline_schema, "_read_setter", counting)
    return reads


def test_a_tool_object_is_read_once_per_model_object(monkeypatch: pytest.MonkeyPatch) -> None:
    tool = _basics()
    reads = _counted_reads(monkeypatch)
    views = ToolViews()
    first_json, (first,) = views.read([tool])
    again_json, (again,) = views.read([tool])
    assert again is first and again_json[0] is first_json[0]
    assert first_json == [tool.as_json()] and [p.name for p in first.params] == ["party_size"]
    assert reads == ["set_party"]
    ToolViews().read([tool])  # another model object reads it afresh: nothing is shared across them
    assert reads == ["set_party", "set_party"]


def test_the_same_parameters_in_a_new_schema_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A host may wrap a tool's parameters in a new :class:`ToolSchema` per call (the gate layer of an agent
    with logic does): the parameters object is what is kept, so they are read once; another name, another
    description or other parameters are read afresh."""
    reads = _counted_reads(monkeypatch)
    views = ToolViews()
    tool = _basics()
    first_json, (first,) = views.read([tool])
    again_json, (again,) = views.read([ToolSchema(tool.name, tool.description, tool.parameters)])
    assert again is first and again_json[0] is first_json[0] and reads == ["set_party"]
    _, (renamed,) = views.read([ToolSchema("set_size", tool.description, tool.parameters)])
    views.read([ToolSchema(tool.name, tool.description, dict(tool.parameters))])
    assert renamed.name == "set_size" and reads == ["set_party", "set_size", "set_party"]


def test_a_tool_whose_parameters_changed_in_place_is_read_again() -> None:
    tool = _basics()
    views = ToolViews()
    _, (before,) = views.read([tool])
    tool.parameters["properties"]["party_size"] = {"type": "string", "description": "The guest's name."}
    changed_json, (after,) = views.read([tool])
    assert after is not before and before.params[0].kind == "integer" and after.params[0].kind == "text"
    assert changed_json == [tool.as_json()]
