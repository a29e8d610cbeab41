"""Steer-back (spec §7.6): the stall counter and its three tiers.

**Counter.** ``_steer_back_turns`` increments on every genuine user turn (``last_user_text`` non-empty;
post-tool and post-preemption invocations never count) and is reset to 0 by state-change detection (any change
of ``filled``/``pending``/``deferred``, except the auto-confirm's own, see
:mod:`~slotgraph.engine.stages.state_change`).

**Yield.** After a hard steer-back the engine sets ``_hard_steer_yielded``. On the next user turn the flag is
popped, the counter is *not* incremented and no tier applies (``steer_back_yield``): the model runs normally
so it can process the user's answer to the forced question. If that answer changes the state, the counter
resets; otherwise it advances again on the turn after the yield.

**Tiers** (checked on user turns, highest first; thresholds from ``steer_back`` — defaults 2 / 4 / 6):

* ``turns >= escalate_after`` — ``on_exhaust``: its ``say`` preempted verbatim with its ``then`` function
  call, status ``escalated`` (``steer_back_escalate``);
* ``turns >= hard_after`` — preempt (``force_preempt``) with the readback again when values are pending, else
  with the next question (``_find_next_question``); sets ``_hard_steer_yielded`` (``steer_back_hard``). With
  nothing to ask or read back there is nothing to steer back to, and the model runs;
* ``turns >= soft_after`` — the action's ``steer_back_directive`` is
  ``"The conversation has drifted — steer back. <readback or next question>"``; the model still runs
  (``steer_back_soft``).
"""

from __future__ import annotations

from dataclasses import replace

from slotgraph.engine.dag import find_next_question
from slotgraph.engine.invocation import Invocation, Reply, Segment
from slotgraph.engine.readback import build_readback
from slotgraph.engine.stages.exhaustion import exhaust
from slotgraph.engine.text import question_for

__all__ = ["SOFT_DIRECTIVE", "apply_steer_back", "count_user_turn"]

SOFT_DIRECTIVE = "The conversation has drifted — steer back."
YIELD_KEY = "_hard_steer_yielded"


def count_user_turn(inv: Invocation) -> None:
    """Count a genuine user turn — or, right after a hard steer-back, yield it (see module doc)."""
    if not inv.user_text.strip():
        return
    turns = int(inv.sm.get("_steer_back_turns") or 0)
    if inv.sm.pop(YIELD_KEY, False):
        inv.steer_yield = True
        inv.trace.emit("steer_back_yield", turns=turns)
        return
    inv.sm["_steer_back_turns"] = turns + 1


def _steer_target(inv: Invocation) -> Segment | None:
    """What to steer back to: the readback when values are pending, else the next question."""
    if inv.pending:
        return Segment(build_readback(inv.dag, inv.pending))
    slot = find_next_question(inv.dag, inv.filled, inv.pending, inv.deferred, inv.activity)
    if slot is None:
        return None
    return Segment(question_for(slot, inv.filled), slot.responses, question=True)


def apply_steer_back(inv: Invocation) -> Reply | None:
    if not inv.user_text.strip() or inv.steer_yield:
        return None
    config = inv.dag.steer_back
    turns = int(inv.sm.get("_steer_back_turns") or 0)
    if turns >= config.escalate_after:
        inv.trace.emit("steer_back_escalate", turns=turns)
        reply = exhaust(inv, config.on_exhaust, reason="steer_back_escalate")
        return replace(reply, force_preempt=True)
    if turns < config.soft_after:
        return None
    target = _steer_target(inv)
    if turns >= config.hard_after and target is not None:
        inv.sm[YIELD_KEY] = True
        inv.trace.emit("steer_back_hard", turns=turns, msg=target.text)
        return Reply(
            message=target.text,
            preempt=True,
            force_preempt=True,
            reason="steer_back_hard",
            segments=(target,),
        )
    directive = SOFT_DIRECTIVE if target is None else f"{SOFT_DIRECTIVE} {target.text}"
    inv.steer_back_directive = directive
    inv.trace.emit("steer_back_soft", turns=turns, directive=directive)
    return None
