"""Numbered migrations of the stored payload ``{"schema": N, "record": {...}}``.

``MIGRATIONS[n - 1]`` turns a schema-``n`` payload's record into a schema-``n + 1`` one; a payload is upgraded
on load, one step at a time, and saved again at :data:`CURRENT_SCHEMA` by the next turn. Never edit a
published step: add a new one, bump :data:`CURRENT_SCHEMA`, and freeze a fixture of the new schema in
``tests/stores/fixtures/`` (the test there loads every fixture through this chain).

Schemas:

1. The first durable layout: history messages tagged by their ``role`` (``user``, ``assistant``, ``tool``);
   an assistant message was text or tool calls depending on which key it had.
2. Every history message tagged by its ``kind`` (``user``, ``assistant_text``, ``assistant_tool_calls``,
   ``tool_result``), so a reader dispatches on one field; ``turns`` and ``ended`` are always present.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["CURRENT_SCHEMA", "MIGRATIONS", "upgrade"]

Migration = Callable[[dict[str, Any]], dict[str, Any]]


def _v1_to_v2(record: dict[str, Any]) -> dict[str, Any]:
    history = []
    for index, message in enumerate(record.get("history") or []):
        if not isinstance(message, dict):
            raise ValueError(f"history[{index}] must be an object, got {type(message).__name__}")
        role = message.get("role")
        body = {k: v for k, v in message.items() if k != "role"}
        if role == "user":
            kind = "user"
        elif role == "assistant":
            kind = "assistant_tool_calls" if "calls" in message else "assistant_text"
        elif role == "tool":
            kind = "tool_result"
        else:
            raise ValueError(
                f"history[{index}] has an unknown role {role!r} (schema 1 knows user, assistant, tool)"
            )
        history.append({"kind": kind, **body})
    out = dict(record)
    out["history"] = history
    out.setdefault("turns", 0)
    out.setdefault("ended", False)
    return out


MIGRATIONS: tuple[Migration, ...] = (_v1_to_v2,)
CURRENT_SCHEMA = len(MIGRATIONS) + 1


def upgrade(payload: Any) -> dict[str, Any]:
    """``payload`` at :data:`CURRENT_SCHEMA`; ``ValueError`` saying what is wrong and how to fix it."""
    if not isinstance(payload, dict) or "schema" not in payload or "record" not in payload:
        raise ValueError(
            'the stored payload is not {"schema": N, "record": {...}} — was it written by slotgraph? It was '
            "left as it is; delete the session to start it afresh"
        )
    schema = payload["schema"]
    if not isinstance(schema, int) or isinstance(schema, bool) or schema < 1:
        raise ValueError(f"the stored payload has an invalid schema number {schema!r} (expected 1 or more)")
    if schema > CURRENT_SCHEMA:
        raise ValueError(
            f"the stored payload has schema {schema}, written by a newer slotgraph; this one reads "
            f"schemas up to {CURRENT_SCHEMA}. Upgrade slotgraph (pip install -U slotgraph) — the payload "
            "was left as it is"
        )
    record = payload["record"]
    if not isinstance(record, dict):
        raise ValueError(f"the stored 'record' must be an object, got {type(record).__name__}")
    for step in range(schema, CURRENT_SCHEMA):
        try:
            record = MIGRATIONS[step - 1](record)
        except ValueError as problem:
            raise ValueError(f"migrating the payload from schema {step} to {step + 1}: {problem}") from None
    return {"schema": CURRENT_SCHEMA, "record": record}
