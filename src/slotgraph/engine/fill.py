"""Programmatic slot filling (``fill_slots``, docs/engine.md#event-pre-fill-and-fill_slots): trusted values
written into the state.

:func:`fill_slots` ``(sm, dag, values, skip_readback=True) -> (new_sm, report)`` is pure: it returns a new
state and never mutates ``sm``. ``report`` is ``{"filled": [...], "skipped": [...], "skipped_reasons":
{slot: reason}}``. Values are taken in the order given; a slot is *skipped* when it is

* ``unknown`` — the config has no such slot;
* ``already_filled`` — it is in ``filled`` (so re-applying the same values is a no-op: idempotent);
* ``inactive`` — its ``condition`` is false, judged on ``filled`` including the values filled before it in
  the same call.

Otherwise the value goes to ``filled`` (``skip_readback=True``, the default: trusted data, no confirmation) —
a value of the same slot waiting in ``pending`` or ``deferred`` is dropped, so a slot lives in one place —
or to ``pending`` (``skip_readback=False``: the next invocation reads it back). Every fill is logged with the
``fill_slots`` tag. The engine's event pre-fill goes through :func:`fill_into`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from slotgraph.config.compiled import CompiledDag, condition_env
from slotgraph.engine.errors import EngineInputError
from slotgraph.engine.invocation import Trace
from slotgraph.engine.state import checked_copy, with_defaults

__all__ = ["ALREADY_FILLED", "INACTIVE", "UNKNOWN", "fill_into", "fill_slots"]

UNKNOWN: Final = "unknown"
ALREADY_FILLED: Final = "already_filled"
INACTIVE: Final = "inactive"


def fill_into(
    sm: dict[str, Any],
    dag: CompiledDag,
    values: Mapping[str, Any],
    *,
    skip_readback: bool,
    trace: Trace,
    variables: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Fill ``values`` into the working copy ``sm`` (in place); returns the report (see module doc).

    Conditions read ``variables`` (the session variables) where no slot of the name is filled.
    """
    filled: dict[str, Any] = sm["filled"]
    env = condition_env(filled, variables)
    report: dict[str, Any] = {"filled": [], "skipped": [], "skipped_reasons": {}}
    for name, value in values.items():
        slot = dag.slot_by_name.get(name)
        reason = None
        if slot is None:
            reason = UNKNOWN
        elif name in filled:
            reason = ALREADY_FILLED
        elif not slot.is_active(env):
            reason = INACTIVE
        if reason is not None:
            report["skipped"].append(name)
            report["skipped_reasons"][name] = reason
            continue
        if skip_readback:
            sm["pending"].pop(name, None)
            sm["deferred"].pop(name, None)
            filled[name] = value
        else:
            sm["deferred"].pop(name, None)
            sm["pending"][name] = value
        report["filled"].append(name)
        trace.emit("fill_slots", slot=name, value=value)
    return report


def fill_slots(
    sm: Mapping[str, Any],
    dag: CompiledDag,
    values: Mapping[str, Any],
    skip_readback: object = True,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fill slots from any Python context; the DAG advances on the next engine invocation."""
    if not isinstance(values, Mapping):
        raise EngineInputError(
            f"values must be a dict of slot name -> value, got {type(values).__name__}",
            where="fill_slots(values)",
            fix="pass e.g. {'party_size': 4}",
        )
    if not isinstance(skip_readback, bool):
        raise EngineInputError(
            f"skip_readback must be true or false, got {skip_readback!r}",
            where="fill_slots(skip_readback)",
            fix="pass a bool",
        )
    out = with_defaults(checked_copy(sm))
    report = fill_into(out, dag, values, skip_readback=skip_readback, trace=Trace())
    return out, report
