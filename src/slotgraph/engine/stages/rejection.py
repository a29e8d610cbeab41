"""The deferred rejection (docs/engine.md#readback-and-confirmation): drop the rejected values from
``pending``.

``reject_pending`` only records the request (``_rejection_requested``) and a snapshot of what was pending
(``_rejection_snapshot``). It is processed by ``begin_turn`` at the start of the next turn — or by the next
engine invocation, whichever comes first (otherwise the post-tool invocation in the same turn would read the
rejected values back again). A slot is removed only while its pending value still equals the snapshot, so a
correction the model set right after rejecting ("no, 6 people") survives.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["apply_rejection"]


def apply_rejection(sm: dict[str, Any]) -> list[str]:
    """Process a recorded rejection in place on a working copy; returns the slots removed from pending."""
    requested = sm.pop("_rejection_requested", False)
    snapshot = sm.pop("_rejection_snapshot", None)
    if not requested or not isinstance(snapshot, Mapping):
        return []
    pending: dict[str, Any] = sm["pending"]
    removed = [name for name, value in snapshot.items() if name in pending and pending[name] == value]
    for name in removed:
        del pending[name]
    return removed
