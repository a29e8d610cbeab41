"""What a model or a tool hands the runtime that it should not: the turn survives, the state stays storable.

Each session here uses a durable store (SQLite): a value JSON cannot carry, or a history the codec cannot read
back, would otherwise be found only when the turn is saved — after its tools ran — or on the next load.
"""

from __future__ import annotations

import asyncio
import datetime
import enum
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from slotgraph.models.protocol import ModelRequest, ModelResponse, ToolCall
from slotgraph.runtime import Agent, ErrorEvent, ModelOutputError, RefusalEvent, ToolResultEvent
from slotgraph.runtime.history import message_from_json
from slotgraph.stores import SQLiteStore

DAG = {
    "slots": [
        {"name": "topic", "source": "user", "setter": "set_topic", "ask": "What is it about?"},
        {"name": "when", "source": "user", "setter": "set_when", "ask": "When?"},
        {"name": "ref", "source": "task:Book"},
    ],
    "tasks": [
        {"name": "Book", "tool": "book", "inputs": ["topic", "when"], "outputs": {"ref": "ref"},
         "success_check": "success", "then_say": "Booked: {ref}.",
         "on_failure": {"retry_say": "Booking failed.", "max_retries": 1}},
    ],
}  # fmt: skip


def set_topic(topic: str) -> dict[str, Any]:
    """Record the topic."""
    return {"stored": True, "value": topic}


def set_when(when: str) -> dict[str, Any]:
    """Record when (returns a date object, as a careless tool might)."""
    return {"stored": True, "value": datetime.date.fromisoformat(when)}


def clock() -> datetime.datetime:
    return datetime.datetime(2026, 7, 11, 12, 0, tzinfo=datetime.UTC)


class ListModel:
    """Answers with the given responses in order (anything at all: this model misbehaves on purpose)."""

    def __init__(self, responses: Sequence[Any]) -> None:
        self.responses = list(responses)
        self.requests: list[ModelRequest] = []

    async def generate(self, request: ModelRequest) -> Any:
        self.requests.append(request)
        return self.responses.pop(0)


def calls(*tool_calls: ToolCall) -> ModelResponse:
    return ModelResponse(tool_calls=tool_calls)


def play(
    tmp_path: Path,
    responses: Sequence[Any],
    texts: Sequence[str],
    tools: Sequence[Callable[..., Any]] = (set_topic, set_when),
) -> tuple[list[Any], dict[str, Any] | None, ListModel]:
    """Play ``texts`` on a fresh SQLite-backed session; the results (or exceptions) and the stored record
    (its history decoded)."""

    async def body() -> tuple[list[Any], dict[str, Any] | None, ListModel]:
        store = SQLiteStore(tmp_path / "sessions.db")
        model = ListModel(responses)
        agent = Agent.from_config(DAG, tools=list(tools), instruction="Take notes.")
        session = agent.session(session_id="s1", store=store, clock=clock, model=model)
        outcomes: list[Any] = []
        try:
            for text in texts:
                try:
                    outcomes.append(await session.asend(text))
                except Exception as err:
                    outcomes.append(err)
            found = await store.load("s1")
        finally:
            await store.close()
        if found is None:
            return outcomes, None, model
        history = [message_from_json(message) for message in found[0]["history"]]  # as the runtime reads it
        return outcomes, {**found[0], "history": history}, model

    return asyncio.run(body())


# --- tool results JSON cannot carry ---------------------------------------------------------------------


def test_a_tool_returning_dates_keeps_the_turn_and_stores_iso_strings(tmp_path: Path) -> None:
    responses = [calls(ToolCall("c1", "set_when", {"when": "2026-07-17"})), ModelResponse(text="Noted.")]
    (result,), record, _ = play(tmp_path, responses, ["on the 17th"])
    assert not isinstance(result, Exception), result
    assert record is not None and record["turns"] == 1
    assert record["sm"]["filled"]["when"] == "2026-07-17"


class Colour(enum.Enum):
    RED = "red"


@pytest.mark.parametrize(
    ("returned", "stored"),
    [
        ({"stored": True, "value": ("a", "b")}, ["a", "b"]),
        ({"stored": True, "value": frozenset({"b", "a"})}, ["a", "b"]),
        ({"stored": True, "value": Colour.RED}, "red"),
        ({"stored": True, "value": datetime.time(19, 30)}, "19:30:00"),
    ],
)
def test_tool_results_become_json_values(tmp_path: Path, returned: dict[str, Any], stored: Any) -> None:
    def set_topic(topic: str) -> dict[str, Any]:
        """Record the topic."""
        return returned

    responses = [calls(ToolCall("c1", "set_topic", {"topic": "x"})), ModelResponse(text="Noted.")]
    (result,), record, _ = play(tmp_path, responses, ["x"], tools=(set_topic, set_when))
    assert not isinstance(result, Exception), result
    assert record is not None and record["sm"]["filled"]["topic"] == stored


@pytest.mark.parametrize(
    ("returned", "path"),
    [
        ({"stored": True, "value": object()}, "result.value is a object"),
        ({"stored": True, "value": float("nan")}, "result.value is nan"),
        ({1: "one"}, "result has a non-string key 1"),
    ],
)
def test_a_setter_returning_what_json_cannot_carry_fails_the_call_not_the_turn(
    tmp_path: Path, returned: Any, path: str
) -> None:
    def set_topic(topic: str) -> Any:
        """Record the topic."""
        return returned

    responses = [calls(ToolCall("c1", "set_topic", {"topic": "x"})), ModelResponse(text="Sorry?")]
    (result,), record, _ = play(tmp_path, responses, ["x"], tools=(set_topic, set_when))
    assert not isinstance(result, Exception), result
    failed = [e for e in result.events if isinstance(e, ToolResultEvent) and e.failed]
    assert len(failed) == 1 and path in failed[0].result["message"]
    assert record is not None and record["turns"] == 1 and record["sm"]["filled"] == {}


def test_an_executor_returning_an_object_is_a_task_failure_and_the_turn_is_saved(tmp_path: Path) -> None:
    def book(topic: str, when: str) -> dict[str, Any]:
        """Book it."""
        return {"success": True, "ref": object()}

    responses = [
        calls(
            ToolCall("c1", "set_topic", {"topic": "x"}), ToolCall("c2", "set_when", {"when": "2026-07-17"})
        ),
        ModelResponse(text="Sorry."),
    ]
    (result,), record, _ = play(tmp_path, responses, ["x on the 17th"], tools=(set_topic, set_when, book))
    assert not isinstance(result, Exception), result
    assert record is not None and record["turns"] == 1
    error = record["sm"]["task_results"]["Book"]["error"]
    assert error.startswith("InvalidResult: result.ref is a object")


# --- model responses that break the protocol -------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "says"),
    [
        (None, "returned a NoneType, not a ModelResponse"),
        (ModelResponse(text=123), "text is a int, not a string"),  # type: ignore[arg-type]
        (calls(ToolCall("c1", None, {})), "tool_calls[0]"),  # type: ignore[arg-type]
        (calls(ToolCall(7, "set_topic", {"topic": "x"})), "tool_calls[0]"),  # type: ignore[arg-type]
    ],
)
def test_a_malformed_model_response_is_a_clear_error_and_nothing_is_saved(
    tmp_path: Path, response: Any, says: str
) -> None:
    (first, second), record, _ = play(tmp_path, [ModelResponse(text="Hi!"), response], ["hi", "x"])
    assert first.text == "Hi!"
    assert isinstance(second, ModelOutputError) and says in str(second)
    assert record is not None and record["turns"] == 1  # the stored session is the last completed turn


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["x"], "arguments must be an object, got list"),
        ("topic=x", "arguments must be an object, got str"),
        ({"topic": "x", "extra": float("nan")}, "arguments.extra is nan"),
        ({"topic": datetime.date(2026, 7, 17)}, "arguments.topic is a date"),
    ],
)
def test_tool_arguments_that_are_not_a_json_object_are_refused_and_the_turn_is_saved(
    tmp_path: Path, args: Any, says: str
) -> None:
    responses = [calls(ToolCall("c1", "set_topic", args)), ModelResponse(text="Sorry?")]
    (result,), record, _ = play(tmp_path, responses, ["x"])
    assert not isinstance(result, Exception), result
    (refusal,) = [e for e in result.events if isinstance(e, RefusalEvent)]
    assert refusal.refused == "bad_arguments" and says in refusal.message and refusal.args == {}
    assert record is not None and record["turns"] == 1
    assert record["history"][1].calls[0].args == {}


def test_a_reused_tool_call_id_gets_a_fresh_one_so_results_answer_distinct_calls(tmp_path: Path) -> None:
    responses = [
        calls(ToolCall("c1", "set_topic", {"topic": "a"}), ToolCall("c1", "set_topic", {"topic": "b"})),
        ModelResponse(text="Noted."),
        calls(ToolCall("c1", "set_when", {"when": "2026-07-17"})),
        ModelResponse(text="Noted."),
    ]
    outcomes, record, model = play(tmp_path, responses, ["a, no b", "on the 17th"])
    assert not any(isinstance(o, Exception) for o in outcomes), outcomes
    assert record is not None
    ids = [c.id for m in record["history"] if m.role == "assistant" and hasattr(m, "calls") for c in m.calls]
    results = [m.call_id for m in record["history"] if m.role == "tool"]
    assert len(set(ids)) == len(ids) and results == ids
    assert [i for i in ids if i.startswith("c1")] == ["c1", "c1_2", "c1_3"]
    last_request = model.requests[-1]
    answered = [m.call_id for m in last_request.messages if m.role == "tool"]
    assert len(set(answered)) == len(answered)


def test_a_model_answering_nothing_is_reported_not_silent(tmp_path: Path) -> None:
    (result,), record, _ = play(tmp_path, [ModelResponse()], ["hello"])
    assert not isinstance(result, Exception), result
    assert result.text == ""
    (error,) = result.errors
    assert isinstance(error, ErrorEvent) and error.code == "empty_model_response"
    assert "neither text nor tool calls" in error.message
    assert record is not None and record["turns"] == 1
