"""The versioned payload a durable store saves: a session record ↔ ``{"schema": N, "record": ...}`` JSON text.

A record is the runtime's plain dict of JSON values (:mod:`slotgraph.runtime.durable_record` writes and
checks it; a store never looks inside it). :func:`encode_payload` refuses a value JSON cannot carry (a tool
that returned a ``datetime``, say) with its path, *before* anything is written. :func:`decode_payload` runs
older payloads through :mod:`slotgraph.stores.migrations` and refuses corrupted JSON, a wrong shape or a
newer schema with a :class:`~slotgraph.stores.errors.StorePayloadError` — the stored payload itself is never
touched.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from slotgraph.stores.errors import StorePayloadError
from slotgraph.stores.migrations import CURRENT_SCHEMA, upgrade

__all__ = ["decode_payload", "encode_payload"]


def _check_json(value: Any, path: str) -> None:
    """Raise ``TypeError`` with the path of the first value JSON cannot round-trip."""
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
    """The JSON text a store saves for ``record`` (schema :data:`CURRENT_SCHEMA`)."""
    try:
        _check_json(record, "record")
    except TypeError as problem:
        raise StorePayloadError(
            f"session {session_id!r} cannot be saved: {problem}; make tools return JSON values "
            "(str, int, float, bool, None, lists, dicts with string keys) — nothing was written"
        ) from None
    except RecursionError:
        raise StorePayloadError(
            f"session {session_id!r} cannot be saved: a value is nested too deeply to store — nothing was "
            "written"
        ) from None
    return json.dumps({"schema": CURRENT_SCHEMA, "record": record}, ensure_ascii=False, separators=(",", ":"))


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
    except (ValueError, UnicodeDecodeError, RecursionError) as problem:
        raise StorePayloadError(
            f"session {session_id!r} in {where}: the stored payload is not valid JSON ({problem}); {fix}"
        ) from None
    try:
        payload = upgrade(payload)
    except ValueError as problem:
        raise StorePayloadError(f"session {session_id!r} in {where}: {problem}") from None
    record = payload["record"]
    if not isinstance(record, dict):
        raise StorePayloadError(
            f"session {session_id!r} in {where}: the stored record is malformed ('record' must be an object, "
            f"got {type(record).__name__}); {fix}"
        )
    return record
