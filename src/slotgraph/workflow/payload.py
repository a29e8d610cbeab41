"""HTTP bodies of workflow stages: :func:`slotgraph.config.payloads.assemble_payload` with the stage's
errors.

The rule is the run-data contract: ``payload = dict(goal)``; keys of earlier stages' slots and of the call
arguments merged only where declared in ``input_schema.properties``; undeclared keys dropped (the chat
utterance included) when properties are declared; **fail closed** before the call when a required key is
missing, naming the key and the stage that should have produced it
(:class:`~slotgraph.workflow.errors.MissingRequiredKeyError`); a wrongly typed value is
:class:`~slotgraph.workflow.errors.PayloadSchemaError`. Slots and notes are never sent wholesale. Agents'
HTTP tools assemble their bodies with the same function.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from slotgraph.config.json_schemas import CompiledSchema
from slotgraph.config.payloads import PayloadProblem
from slotgraph.config.payloads import assemble_payload as _assemble
from slotgraph.workflow.errors import MissingRequiredKeyError, PayloadSchemaError

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
    """The body for ``stage_id``; ``slots`` in the order the stages ran, ``notes`` only if they are sent."""
    try:
        return _assemble(goal=goal, slots=slots, schema=schema, args=args, notes=notes, producers=producers)
    except PayloadProblem as problem:
        if problem.kind == "missing":
            raise MissingRequiredKeyError(stage_id, problem.key, problem.producers) from None
        message = problem.message.replace("the body", "the assembled body")
        raise PayloadSchemaError(stage_id, message) from None
