"""Steer-back (spec §7.6): the stall counter, and the seam for its three tiers.

Implemented now: ``_steer_back_turns`` increments on every genuine user turn (``last_user_text`` non-empty;
post-tool invocations never count) and is reset to 0 by state-change detection. The soft / hard / escalate
tiers (``steer_back.soft_after``/``hard_after``/``escalate_after``, ``_hard_steer_yielded``) arrive with the
follow-up issue: :func:`apply_steer_back` is their seam and currently never intervenes.
"""

from __future__ import annotations

from slotgraph.engine.invocation import Invocation, Reply

__all__ = ["apply_steer_back", "count_user_turn"]


def count_user_turn(inv: Invocation) -> None:
    if inv.user_text.strip():
        inv.sm["_steer_back_turns"] = int(inv.sm.get("_steer_back_turns") or 0) + 1


def apply_steer_back(inv: Invocation) -> Reply | None:
    """Seam for the tiers: no intervention yet."""
    return None
