"""The history codec, the versioned payload and its numbered migrations (no server needed)."""

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
from slotgraph.stores import (
    CURRENT_SCHEMA,
    MIGRATIONS,
    StorePayloadError,
    decode_payload,
    encode_payload,
    message_from_json,
    message_to_json,
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
        ('{"schema": 2, "record": {"history": {}}}', r"'history' must be a list"),
        (
            '{"schema": 2, "record": {"history": [{"kind": "user"}]}}',
            r"history\[0\]: message of kind 'user' lacks",
        ),
        ('{"schema": 2, "record": {"history": [{"kind": "user", "text": 3}]}}', r"'text' must be a string"),
        ('{"schema": 1, "record": {"history": [{"role": "robot"}]}}', r"from schema 1 to 2: .*unknown role"),
        ("\udcff", r"not valid JSON"),
        ('{"schema": 2, "record": {"history": []}}', r"'sm' \(the engine state\) is missing"),
        ('{"schema": 2, "record": {"sm": "x", "history": []}}', r"'sm' must be an object, got str"),
        ('{"schema": 2, "record": {"sm": {}, "history": [], "turns": "many"}}', r"'turns' must be a count"),
        ('{"schema": 2, "record": {"sm": {}, "history": [], "turns": -1}}', r"'turns' must be a count"),
        ('{"schema": 2, "record": {"sm": {}, "history": [], "ended": 1}}', r"'ended' must be true or false"),
    ],
)
def test_unreadable_payloads_get_a_clear_error(payload: str, message: str) -> None:
    with pytest.raises(StorePayloadError, match=message) as caught:
        decode_payload(payload, session_id="abc", where="sqlite:///x.db")
    assert "session 'abc' in sqlite:///x.db" in str(caught.value)


def test_values_json_cannot_carry_are_refused_before_writing_with_their_path() -> None:
    record = {"sm": {}, "history": [ToolResultMessage("a", "f", {"when": datetime.date(2026, 1, 2)})]}
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
