"""HTTP body assembly from a goal, earlier outputs and call arguments, strictly by an ``input_schema``.

The rule (shared by workflow HTTP stages and agents' HTTP tools), in order:

1. ``payload = dict(goal)`` — the start body (for a tool: its call arguments) is the base of the body;
2. merge the keys of earlier outputs (``slots``, in the order they were produced, a later one winning) and
   the call arguments — but **only keys declared in** ``input_schema.properties``;
3. when properties are declared, **drop every undeclared key**, goal keys included (a chat utterance in the
   goal never leaks into a backend call);
4. **fail closed**: a key in ``input_schema.required`` that is missing (or null) raises
   :class:`PayloadProblem` (``kind="missing"``) naming the key and who should have produced it — before
   anything is sent;
5. the body is type-checked against the schema (``kind="type"``).

Without declared properties nothing is dropped, but slots are still never merged (only the goal and the
arguments go out): slots and notes are never dumped wholesale onto a call. Notes go out only when asked
(``notes`` given), as ``notes``, under the same declared-keys rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import ValidationError

from slotgraph.config.json_schemas import CompiledSchema, error_lines
from slotgraph.errors import SlotgraphError

__all__ = ["PayloadProblem", "assemble_payload"]


class PayloadProblem(SlotgraphError, ValueError):
    """The body cannot be sent: a required ``key`` is missing (``kind="missing"``; ``producers`` are the
    earlier stages that declare it), or a value has the wrong type (``kind="type"``)."""

    code = "invalid_payload"

    def __init__(
        self,
        kind: Literal["missing", "type"],
        message: str,
        *,
        key: str = "",
        producers: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.key = key
        self.producers = producers


def assemble_payload(
    *,
    goal: Mapping[str, Any],
    slots: Mapping[str, Any],
    schema: CompiledSchema | None,
    args: Mapping[str, Any] | None = None,
    notes: Sequence[str] | None = None,
    producers: Mapping[str, tuple[str, ...]] | None = None,
) -> dict[str, Any]:
    """The body; ``slots`` in the order they were produced, ``notes`` only if they are sent.

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
            raise PayloadProblem(
                "missing",
                f"required key {key!r} of the input_schema is missing",
                key=key,
                producers=(producers or {}).get(key, ()),
            )
    try:
        schema.validate(payload)
    except ValidationError as err:
        raise PayloadProblem(
            "type", "the body does not match its input_schema: " + "; ".join(error_lines(err))
        ) from None
    return payload
