"""The history codec and the versioned payload: a session record ↔ ``{"schema": N, "record": ...}`` JSON.

The runtime's record holds frozen message dataclasses (:mod:`slotgraph.models.protocol`) in ``history``; a
durable store saves JSON. Each message becomes an object tagged with its ``kind``::

    {"kind": "user", "text": "hi", "event": null}
    {"kind": "assistant_text", "text": "Hello!"}
    {"kind": "assistant_tool_calls", "calls": [{"id": "c1", "name": "set_name", "args": {"name": "Chen"}}]}
    {"kind": "tool_result", "call_id": "c1", "name": "set_name", "result": {...}}

:func:`encode_payload` refuses values JSON cannot carry (a tool that returned a ``datetime``, say) with the
path of the offending value, *before* anything is written. :func:`decode_payload` runs older payloads
through :mod:`slotgraph.stores.migrations` and refuses corrupted JSON, a wrong shape or a newer schema with a
:class:`~slotgraph.runtime.errors.StorePayloadError` — the stored payload itself is never touched. A record
without ``sm``, or whose ``sm``, ``turns`` or ``ended`` has the wrong type, is refused the same way.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, Final

from slotgraph.models.protocol import (
    AssistantText,
    AssistantToolCalls,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from slotgraph.runtime.errors import StorePayloadError
from slotgraph.stores.migrations import CURRENT_SCHEMA, upgrade

__all__ = ["decode_payload", "encode_payload", "message_from_json", "message_to_json"]


def message_to_json(message: Message) -> dict[str, Any]:
    """One history message as a JSON object tagged with its ``kind``."""
    if isinstance(message, UserMessage):
        return {"kind": "user", "text": message.text, "event": message.event}
    if isinstance(message, AssistantText):
        return {"kind": "assistant_text", "text": message.text}
    if isinstance(message, AssistantToolCalls):
        calls = [{"id": c.id, "name": c.name, "args": dict(c.args)} for c in message.calls]
        return {"kind": "assistant_tool_calls", "calls": calls}
    if isinstance(message, ToolResultMessage):
        return {
            "kind": "tool_result",
            "call_id": message.call_id,
            "name": message.name,
            "result": message.result,
        }
    raise TypeError(f"not a history message: {type(message).__name__}")


def message_from_json(data: Any) -> Message:
    """The inverse of :func:`message_to_json`; raises ``ValueError`` naming what is wrong."""
    if not isinstance(data, Mapping):
        raise ValueError(f"a message must be an object, got {type(data).__name__}")
    kind = data.get("kind")
    try:
        if kind == "user":
            return UserMessage(_str(data, "text"), event=_opt_str(data, "event"))
        if kind == "assistant_text":
            return AssistantText(_str(data, "text"))
        if kind == "assistant_tool_calls":
            calls = data["calls"]
            if not isinstance(calls, list):
                raise ValueError("'calls' must be a list")
            return AssistantToolCalls(tuple(_call(c) for c in calls))
        if kind == "tool_result":
            return ToolResultMessage(_str(data, "call_id"), _str(data, "name"), data["result"])
    except KeyError as missing:
        raise ValueError(f"message of kind {kind!r} lacks {missing}") from None
    raise ValueError(
        f"unknown message kind {kind!r} (known: user, assistant_text, assistant_tool_calls, tool_result)"
    )


def _str(data: Mapping[str, Any], key: str) -> str:
    value = data[key]
    if not isinstance(value, str):
        raise ValueError(f"{key!r} must be a string, got {type(value).__name__}")
    return value


def _opt_str(data: Mapping[str, Any], key: str) -> str | None:
    return None if data.get(key) is None else _str(data, key)


def _call(data: Any) -> ToolCall:
    if not isinstance(data, Mapping) or not isinstance(data.get("args", {}), Mapping):
        raise ValueError(f"a tool call must be an object with an 'args' object, got {data!r}")
    return ToolCall(_str(data, "id"), _str(data, "name"), dict(data.get("args") or {}))


_EXACT: Final = frozenset({str, bool, int, type(None)})
"""Types that are JSON whatever their value (a float must also be finite)."""


def _check_json(value: Any, path: str) -> None:
    """Raise ``TypeError`` with the path of the first value JSON cannot round-trip."""
    kind = type(value)
    if kind is dict:  # the common case, without ABC checks; the path is built only for what is walked
        for key, item in value.items():
            if type(key) is not str and not isinstance(key, str):
                raise TypeError(f"{path} has a non-string key {key!r}")
            if type(item) not in _EXACT:
                _check_json(item, f"{path}.{key}")
        return
    if kind is list:
        for index, item in enumerate(value):
            if type(item) not in _EXACT:
                _check_json(item, f"{path}[{index}]")
        return
    if value is None or isinstance(value, str | bool | int):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TypeError(f"{path} is {value!r}, which JSON cannot carry")
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"{path} has a non-string key {key!r}")
            _check_json(item, f"{path}.{key}")
        return
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _check_json(item, f"{path}[{index}]")
        return
    raise TypeError(f"{path} is a {type(value).__name__} ({value!r:.60}), which JSON cannot carry")


def encode_payload(session_id: str, record: Mapping[str, Any]) -> str:
    """The JSON text a durable store saves for ``record`` (schema :data:`CURRENT_SCHEMA`)."""
    plain = {k: v for k, v in record.items() if k != "history"}
    plain["history"] = [message_to_json(m) for m in record.get("history") or []]
    try:
        _check_json(plain, "record")
    except TypeError as problem:
        raise StorePayloadError(
            f"session {session_id!r} cannot be saved: {problem}; make tools return JSON values "
            "(str, int, float, bool, None, lists, dicts with string keys) — nothing was written"
        ) from None
    return json.dumps({"schema": CURRENT_SCHEMA, "record": plain}, ensure_ascii=False, separators=(",", ":"))


def decode_payload(text: str | bytes, *, session_id: str, where: str) -> dict[str, Any]:
    """The record stored in ``text``, migrated to the current schema.

    ``where`` names the store (e.g. ``sqlite:///var/app/sessions.db``) for the error message.
    """
    fix = (
        f"the payload was left as it is in {where}; restore it from a backup, or delete the session "
        f"(store.delete({session_id!r})) to start it afresh"
    )
    try:
        payload = json.loads(text)
    except (ValueError, UnicodeDecodeError) as problem:
        raise StorePayloadError(
            f"session {session_id!r} in {where}: the stored payload is not valid JSON ({problem}); {fix}"
        ) from None
    try:
        payload = upgrade(payload)
    except ValueError as problem:
        raise StorePayloadError(f"session {session_id!r} in {where}: {problem}") from None
    record = payload["record"]
    try:
        if not isinstance(record, dict):
            raise ValueError(f"'record' must be an object, got {type(record).__name__}")
        history = record.get("history")
        history = [] if history is None else history
        if not isinstance(history, list):
            raise ValueError(f"'history' must be a list, got {type(history).__name__}")
        messages = [_message_at(item, index) for index, item in enumerate(history)]
        _check_fields(record)
    except ValueError as problem:
        raise StorePayloadError(
            f"session {session_id!r} in {where}: the stored record is malformed ({problem}); {fix}"
        ) from None
    out = dict(record)
    out["history"] = messages
    return out


def _check_fields(record: Mapping[str, Any]) -> None:
    """``sm`` present and an object, ``turns`` a count, ``ended`` a boolean — never guessed from junk (a
    missing ``sm`` read as ``{}`` would restart the conversation and the next save would overwrite it)."""
    if "sm" not in record:
        raise ValueError("'sm' (the engine state) is missing")
    if not isinstance(record["sm"], dict):
        raise ValueError(f"'sm' must be an object, got {type(record['sm']).__name__}")
    turns = record.get("turns", 0)
    if not isinstance(turns, int) or isinstance(turns, bool) or turns < 0:
        raise ValueError(f"'turns' must be a count (0 or more), got {turns!r:.40}")
    ended = record.get("ended", False)
    if not isinstance(ended, bool):
        raise ValueError(f"'ended' must be true or false, got {ended!r:.40}")


def _message_at(item: Any, index: int) -> Message:
    try:
        return message_from_json(item)
    except ValueError as problem:
        raise ValueError(f"history[{index}]: {problem}") from None
