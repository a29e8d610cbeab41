"""Where the offline model plans: on the event loop for a message of up to ``INLINE_PLAN_CHARS`` characters
(a thread hop would cost more than it buys under the GIL), in a worker thread for a longer one (so a huge
message never blocks a server's other sessions); and each tool's schema read once per tool object."""

from __future__ import annotations

import asyncio
import datetime as dt
import threading
from typing import Any

import pytest

from slotgraph.models.offline import OfflineModel
from slotgraph.models.offline import model as offline_model
from slotgraph.models.offline import schema as offline_schema
from slotgraph.models.offline.model import INLINE_PLAN_CHARS, tool_views
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


def _planning_threads(monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[int, int, Any]:
    """(the event loop's thread, the thread that planned, the response) for one call on ``text``."""
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
    return loop_thread, planner, response


def test_a_short_message_is_planned_on_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "4 people".ljust(INLINE_PLAN_CHARS)  # exactly at the limit
    loop_thread, planner, response = _planning_threads(monkeypatch, text)
    assert planner == loop_thread
    assert [(c.name, dict(c.args)) for c in response.tool_calls] == [("set_party", {"party_size": 4})]


def test_a_long_message_is_planned_in_a_worker_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "4 people".ljust(INLINE_PLAN_CHARS + 1)
    loop_thread, planner, response = _planning_threads(monkeypatch, text)
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
    monkeypatch.setattr(offline_schema, "_SETTERS", {})
    return reads


def test_a_tool_object_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    tool = _basics()
    reads = _counted_reads(monkeypatch)
    first_json, (first,) = tool_views([tool])
    again_json, (again,) = tool_views([tool])
    assert again is first and again_json[0] is first_json[0]
    assert first_json == [tool.as_json()] and [p.name for p in first.params] == ["party_size"]
    assert reads == ["set_party"]


def test_the_same_parameters_in_a_new_schema_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A host may wrap a tool's parameters in a new :class:`ToolSchema` per call (the gate layer of an agent
    with logic does): the parameters object is what is kept, so they are read once; another name, another
    description or other parameters are read afresh."""
    reads = _counted_reads(monkeypatch)
    views: dict[Any, Any] = {}
    monkeypatch.setattr(offline_model, "_VIEWS", views)
    tool = _basics()
    first_json, (first,) = tool_views([tool])
    again_json, (again,) = tool_views([ToolSchema(tool.name, tool.description, tool.parameters)])
    assert again is first and again_json[0] is first_json[0] and reads == ["set_party"] and len(views) == 1
    _, (renamed,) = tool_views([ToolSchema("set_size", tool.description, tool.parameters)])
    tool_views([ToolSchema(tool.name, tool.description, dict(tool.parameters))])
    assert renamed.name == "set_size" and reads == ["set_party", "set_size"] and len(views) == 3


def test_a_tool_whose_parameters_changed_in_place_is_read_again() -> None:
    tool = _basics()
    _, (before,) = tool_views([tool])
    tool.parameters["properties"]["party_size"] = {"type": "string", "description": "The guest's name."}
    changed_json, (after,) = tool_views([tool])
    assert after is not before and before.params[0].kind == "integer" and after.params[0].kind == "text"
    assert changed_json == [tool.as_json()]
