"""The readback sentence (docs/engine.md#readback-and-confirmation): every pending value, formatted, in slot
declaration order.

``"Just to confirm — 4 guests, on July 15th. Is that correct?"`` — each value goes through its slot's
compiled ``readback_fmt`` formatter (``str`` when none is configured); values for slots the config does not
know (state from an older config) are read back with ``str`` after the known ones, sorted by name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from slotgraph.config.compiled import CompiledDag
from slotgraph.engine.plan import plan_of, readback_order

__all__ = ["READBACK_PREFIX", "READBACK_SUFFIX", "build_readback", "format_value"]

READBACK_PREFIX: Final = "Just to confirm — "
READBACK_SUFFIX: Final = ". Is that correct?"


def format_value(dag: CompiledDag, name: str, value: Any) -> str:
    """One value as the readback says it. A formatter that raises falls back to ``str(value)``."""
    slot = dag.slot_by_name.get(name)
    if slot is None:
        return str(value)
    try:
        return str(slot.formatter(value))
    except Exception:  # a formatter must never break a turn
        return str(value)


def build_readback(
    dag: CompiledDag,
    pending: Mapping[str, Any],
    order: Sequence[str] | None = None,
    fmt: Callable[[str, Any], str] | None = None,
) -> str:
    """The readback sentence for ``pending`` (in ``order`` when given, else slot declaration order).

    ``fmt(name, value)`` formats one value (default: :func:`format_value`; an invocation passes its memo of
    them, :meth:`~slotgraph.engine.invocation.Invocation.format_value`)."""
    if order is None:
        order = readback_order(plan_of(dag), pending)
    if fmt is None:
        parts = [format_value(dag, name, pending[name]) for name in order if name in pending]
    else:
        parts = [fmt(name, pending[name]) for name in order if name in pending]
    return f"{READBACK_PREFIX}{', '.join(parts)}{READBACK_SUFFIX}"
