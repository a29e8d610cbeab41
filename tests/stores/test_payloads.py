"""The history's JSON form, the versioned payload and its numbered migrations, and the record checks a
stored payload meets before a turn plays on it (no server needed)."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest

from slotgraph.models.protocol import (
    AssistantText,
    AssistantToolCalls,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from slotgraph.runtime.durable_record import DurableRecord
from slotgraph.runtime.history import message_from_json, message_to_json
from slotgraph.stores import (
    CURRENT_SCHEMA,
    MIGRATIONS,
    StorePayloadError,
    decode_payload,
    encode_payload,
    upgrade,
)

from .fixtures import FIXTURES, expected_record

MESSAGES = [
    UserMessage("hi"),
    UserMessage("", event="welcome"),
    AssistantText("Hello"),
    AssistantToolCalls((ToolCall("a", "f", {"x": [1, {"y": None}]}), ToolCall("b", "g", {}))),
    ToolResultMessage("a", "f", {"ok": True, "n": 1.5}),
    ToolResultMessage("b", "g", "plain text result"),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_every_message_kind_round_trips_through_json(message: Any) -> None:
    data = message_to_json(message)
    assert message_from_json(json.loads(json.dumps(data))) == message


def test_every_frozen_fixture_loads_through_the_migrations() -> None:
    assert sorted(FIXTURES) == list(range(1, CURRENT_SCHEMA + 1)), "one frozen fixture per schema version"
    for schema, text in FIXTURES.items():
        assert json.loads(text)["schema"] == schema
        assert decode_payload(text, session_id="s", where="fixture") == expected_record(), f"schema {schema}"


def test_the_current_schema_fixture_is_what_encode_writes() -> None:
    assert json.loads(encode_payload("s", expected_record())) == json.loads(FIXTURES[CURRENT_SCHEMA])


def test_migrations_are_numbered_steps_to_the_current_schema() -> None:
    assert len(MIGRATIONS) + 1 == CURRENT_SCHEMA
    v1 = json.loads(FIXTURES[1])
    assert upgrade(v1)["schema"] == CURRENT_SCHEMA
    assert v1 == json.loads(FIXTURES[1]), "upgrade does not mutate its input"


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ("[1, 2]", r"is not \{\"schema\": N"),
        ('{"schema": "2", "record": {}}', r"invalid schema number '2'"),
        ('{"schema": 0, "record": {}}', r"invalid schema number 0"),
        (f'{{"schema": {CURRENT_SCHEMA + 1}, "record": {{}}}}', r"newer slotgraph.*reads schemas up to"),
        ('{"schema": 2, "record": []}', r"'record' must be an object"),
        ('{"schema": 1, "record": {"history": [{"role": "robot"}]}}', r"from schema 1 to 2: .*unknown role"),
        ("\udcff", r"not valid JSON"),
    ],
)
def test_unreadable_payloads_get_a_clear_error(payload: str, message: str) -> None:
    with pytest.raises(StorePayloadError, match=message) as caught:
        decode_payload(payload, session_id="abc", where="sqlite:///x.db")
    assert "session 'abc' in sqlite:///x.db" in str(caught.value)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"sm": {}, "history": {}}, r"'history' is not a list"),
        ({"sm": {}, "history": [{"kind": "user"}]}, r"history\[0\]: message of kind 'user' lacks"),
        ({"sm": {}, "history": [{"kind": "user", "text": 3}]}, r"'text' must be a string"),
        ({"history": []}, r"'sm' is missing"),
        ({"sm": "x", "history": []}, r"'sm' is not a mapping"),
        ({"sm": {}, "history": [], "turns": "many"}, r"'turns' is not a count"),
        ({"sm": {}, "history": [], "turns": -1}, r"'turns' is not a count"),
        ({"sm": {}, "history": [], "ended": 1}, r"'ended' is not a boolean"),
    ],
)
def test_a_record_no_turn_can_play_on_gets_a_clear_error(record: dict[str, Any], message: str) -> None:
    stored = decode_payload(encode_payload("abc", record), session_id="abc", where="sqlite:///x.db")
    with pytest.raises(StorePayloadError, match=message) as caught:
        DurableRecord.from_stored("abc", stored)
    assert "session 'abc'" in str(caught.value) and "nothing was played or saved" in str(caught.value)


def test_values_json_cannot_carry_are_refused_before_writing_with_their_path() -> None:
    record = {"sm": {}, "history": [{"kind": "tool_result", "result": {"when": datetime.date(2026, 1, 2)}}]}
    with pytest.raises(
        StorePayloadError, match=r"record\.history\[0\]\.result\.when is a date .*nothing was written"
    ):
        encode_payload("s", record)
    with pytest.raises(StorePayloadError, match=r"record\.sm\.x is nan"):
        encode_payload("s", {"sm": {"x": float("nan")}, "history": []})
    with pytest.raises(StorePayloadError, match=r"non-string key 1"):
        encode_payload("s", {"sm": {1: "a"}, "history": []})


def test_tuples_in_state_are_stored_as_lists() -> None:
    loaded = decode_payload(
        encode_payload("s", {"sm": {"t": (1, 2)}, "history": []}), session_id="s", where="w"
    )
    assert loaded["sm"] == {"t": [1, 2]}
