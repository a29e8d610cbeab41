"""State-change detection (docs/engine.md#state-change-detection): compare ``filled``/``pending``/``deferred``
with ``_last_state``.

* A slot that newly appears in ``filled`` or ``pending`` (or whose value changed there) was set validly, so
  its validation retries ``_retries["slot:<name>"]`` are cleared.
* Any change is forward progress: ``_steer_back_turns`` resets to 0 — unless ``_auto_confirm_pending`` is set
  (the change is the auto-confirm the engine itself triggered, which already counted the user's turn).
* The one-shot flags ``_auto_confirm_pending`` and ``_readback_transition`` are consumed here, and whether
  values were pending at the end of the previous invocation is recorded (the basis of "fresh pending").

``_last_state`` itself is rewritten when the invocation finishes (it always describes the state the previous
invocation left behind).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from slotgraph.engine.invocation import Invocation

__all__ = ["detect_state_change"]


def _section(last: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = last.get(key)
    if isinstance(value, dict):
        return value
    return dict(value) if isinstance(value, Mapping) else {}


def _progress(last: Mapping[str, Any], sm: Mapping[str, Any]) -> dict[str, list[str]]:
    """The ``progress`` line: ``pending+`` newly pending, ``confirmed`` pending → filled, ``task+``
    newly filled without having been pending (task outputs, pre-fills, announces),
    ``rejected`` pending → gone."""
    before_filled, before_pending = _section(last, "filled"), _section(last, "pending")
    filled, pending = sm["filled"], sm["pending"]
    new_filled = [n for n in filled if n not in before_filled]
    return {
        "pending+": [n for n in pending if n not in before_pending],
        "confirmed": [n for n in new_filled if n in before_pending],
        "task+": [n for n in new_filled if n not in before_pending],
        "rejected": [n for n in before_pending if n not in pending and n not in filled],
    }


def _compare(inv: Invocation, before: dict[str, Any], now: dict[str, Any], changed: bool) -> bool:
    """Whether ``now`` differs from ``before`` (or ``changed`` already); a slot whose value changed has its
    retries cleared."""
    retries = inv.retries
    for name, value in now.items():
        if name not in before or before[name] != value:
            changed = True
            if retries and retries.pop(f"slot:{name}", None) is not None:
                inv.trace.emit("slot_retries_cleared", slot=name)
    if not changed and (len(before) != len(now) or not before.keys() <= now.keys()):
        changed = True
    return changed


def detect_state_change(inv: Invocation) -> bool:
    """Returns whether the state changed since the previous invocation."""
    sm = inv.sm
    last: dict[str, Any] = sm["_last_state"]  # a dict: the entry's checked copy made it one
    auto_confirmed = sm.pop("_auto_confirm_pending", False)
    inv.readback_transition = bool(sm.pop("_readback_transition", False))
    last_pending = _section(last, "pending")
    inv.prior_pending = bool(last_pending)
    changed = _compare(inv, _section(last, "filled"), inv.filled, False)
    changed = _compare(inv, last_pending, inv.pending, changed)
    if _section(last, "deferred") != sm["deferred"]:
        changed = True
    if changed:
        if inv.trace.active:
            inv.trace.emit("progress", **_progress(last, sm))
        if not auto_confirmed:
            sm["_steer_back_turns"] = 0
    return changed
