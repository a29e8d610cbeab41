"""HTTP body assembly from the three channels, strictly by the stage's ``input_schema``.

The rule, in order:

1. ``payload = dict(goal)`` — the start body is the base of every HTTP body;
2. merge the keys of earlier stages' slots (in the order the stages ran, a later stage winning) and the
   stage's call arguments — but **only keys declared in** ``input_schema.properties``;
3. when properties are declared, **drop every undeclared key**, goal keys included (a chat utterance in the
   goal never leaks into a backend call);
4. **fail closed**: a key in ``input_schema.required`` that is missing (or null) raises
   :class:`~slotgraph.workflow.errors.MissingRequiredKeyError` naming the key and the stage that should have
   produced it — before anything is sent;
5. the body is type-checked against the schema (:class:`~slotgraph.workflow.errors.PayloadSchemaError`).

Without declared properties nothing is dropped, but slots are still never merged (only the goal and the
stage's own arguments go out): slots and notes are never dumped wholesale onto a call. Notes go out only
when a stage asks for them (``include_notes``), as ``notes``, under the same declared-keys rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from slotgraph.workflow.errors import MissingRequiredKeyError, PayloadSchemaError
from slotgraph.workflow.schemas import CompiledSchema, error_lines

__all__ = ["assemble_payload"]


def assemble_payload(
    *,
    stage_id: str,
    goal: Mapping[str, Any],
    slots: Mapping[str, Any],
    schema: CompiledSchema | None,
    args: Mapping[str, Any] | None = None,
    notes: Sequence[str] | None = None,
    producers: Mapping[str, tuple[str, ...]] | None = None,
) -> dict[str, Any]:
    """The body for ``stage_id``; ``slots`` in the order the stages ran, ``notes`` only if they are sent.

    ``producers`` maps a required key to the stages whose declared output carries it (for the error).
    """
    declared = set(schema.properties) if schema is not None else set()
    payload = dict(goal)
    for value in slots.values():
        if isinstance(value, Mapping):
            payload.update((key, item) for key, item in value.items() if key in declared)
    extra: dict[str, Any] = dict(args or {})
    if notes is not None:
        extra["notes"] = list(notes)
    payload.update((key, item) for key, item in extra.items() if not declared or key in declared)
    if declared:
        payload = {key: item for key, item in payload.items() if key in declared}
    if schema is None:
        return payload
    for key in schema.required:
        if payload.get(key) is None:
            raise MissingRequiredKeyError(stage_id, key, (producers or {}).get(key, ()))
    try:
        schema.validate(payload)
    except ValidationError as err:
        raise PayloadSchemaError(
            stage_id, "the assembled body does not match its input_schema: " + "; ".join(error_lines(err))
        ) from None
    return payload
