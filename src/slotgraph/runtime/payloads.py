"""After-model payload injection (spec §8a ``after_model_callback``).

When the engine has rich response parts but is not preempting, it stashes them in
``sm["_pending_payloads"]``. After the model's response the runtime appends them AFTER the model's text, then
clears the stash. Parts already delivered earlier in the same turn are not delivered again, so a turn with
several model calls never shows a card twice.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from slotgraph.runtime.events import Event
from slotgraph.runtime.preemption import part_events

__all__ = ["PAYLOADS_KEY", "inject_pending_payloads"]

PAYLOADS_KEY = "_pending_payloads"


def _key(part: Mapping[str, Any]) -> str:
    return json.dumps(part, sort_keys=True, default=str)


def inject_pending_payloads(sm: Mapping[str, Any], delivered: set[str]) -> tuple[dict[str, Any], list[Event]]:
    """``(new sm with the stash cleared, events for parts not yet delivered this turn)``.

    ``delivered`` (the canonical JSON of parts delivered this turn) is updated in place.
    """
    stash = sm.get(PAYLOADS_KEY) or []
    if not stash:
        return dict(sm), []
    fresh = []
    for part in stash:
        key = _key(part)
        if key not in delivered:
            delivered.add(key)
            fresh.append(part)
    new_sm = dict(sm)
    new_sm[PAYLOADS_KEY] = []
    return new_sm, part_events(fresh)
