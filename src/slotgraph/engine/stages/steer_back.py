"""Steer-back (docs/engine.md#steer-back): the stall counter and its three tiers.

**Counter.** ``_steer_back_turns`` increments on every genuine user turn (``last_user_text`` non-empty;
post-tool and post-preemption invocations never count; nor does any turn of a DAG without slots) and is
reset to 0 by state-change detection (any change
of ``filled``/``pending``/``deferred``, except the auto-confirm's own, see
:mod:`~slotgraph.engine.stages.state_change`).

**Yield.** After a hard steer-back the engine sets ``_hard_steer_yielded``. On the next user turn the flag is
popped, the counter is *not* incremented and no tier applies (``steer_back_yield``): the model runs normally
so it can process the user's answer to the forced question. If that answer changes the state, the counter
resets; otherwise it advances again on the turn after the yield.

**Tiers** (checked on user turns, highest first; thresholds from ``steer_back`` — defaults 2 / 4 / 6):

* ``turns >= soft_after`` — the action's ``steer_back_directive`` is
  ``"The conversation has drifted — steer back. <readback or next question>"``; the model still runs
  (``steer_back_soft``). With nothing to ask or read back at that moment there is no directive.
* ``turns >= hard_after`` (with something to ask or read back) and ``turns >= escalate_after`` are *armed*
  (``steer_back_armed``), never applied on the user's own invocation: the message may well answer what was
  asked (after "hi" and two off-topic questions, "2" is a valid party size), and only the model can tell.
  So the model runs first, with a stronger directive (record the answer if there is one, else reply briefly
  without asking anything) and without the question as a ``<system_directive>`` (reason
  ``steer_back_armed``), and the action's ``recheck_after_model`` asks the host to invoke the engine once
  more after the model's step even when it called no tool. That next invocation (``last_user_text`` empty)
  settles the armed tier: if the state changed since — the answer was recorded — the counter is already
  reset and nothing more happens (``steer_back_disarmed``); otherwise the tier applies:

  - **hard** — preempt (``force_preempt``) with the readback again when values are pending, else with the
    next question (``_find_next_question``); sets ``_hard_steer_yielded`` (``steer_back_hard``);
  - **escalate** — ``on_exhaust``: its ``say`` preempted verbatim with its ``then`` function call, status
    ``escalated`` (``steer_back_escalate``).

  A turn on which the user answers therefore makes progress in every tier; the stall rules act only on
  turns that do not. (The original platform applied both tiers before the model saw the message.)

  A host that never makes that second invocation (``host_rechecks`` false: the spec-compatible entry
  unless the host opts in) would leave an armed tier unsettled for ever, so for it the tier applies on the
  user's own invocation, as on the original platform.
"""

from __future__ import annotations

from slotgraph.engine.actions import Reason
from slotgraph.engine.dag import find_next_question
from slotgraph.engine.invocation import Invocation, Reply, Segment
from slotgraph.engine.readback import build_readback
from slotgraph.engine.stages.exhaustion import exhaust
from slotgraph.engine.text import question_for
from slotgraph.names import STEER_BACK_ARMED, STEER_BACK_SOFT

__all__ = ["ARMED_DIRECTIVE", "ARMED_KEY", "SOFT_DIRECTIVE", "apply_steer_back", "count_user_turn"]

SOFT_DIRECTIVE = STEER_BACK_SOFT
ARMED_DIRECTIVE = STEER_BACK_ARMED
YIELD_KEY = "_hard_steer_yielded"
ARMED_KEY = "_steer_back_armed"
"""``sm`` key: the tier (``hard``/``escalate``) armed on this turn's user invocation, settled after the
model's step."""


def count_user_turn(inv: Invocation) -> None:
    """Count a genuine user turn — or, right after a hard steer-back, yield it (see module doc).

    A DAG without slots collects nothing (a front desk that only routes), so no turn of it is a stall."""
    if not inv.user_text.strip() or not inv.dag.slots:
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
        return Segment(build_readback(inv.dag, inv.pending, fmt=inv.format_value))
    slot = find_next_question(inv.dag, inv.filled, inv.pending, inv.deferred, inv.variables)
    if slot is None:
        return None
    return Segment(question_for(slot, inv.filled), slot.responses, question=True)


def _hard(inv: Invocation, turns: int, target: Segment) -> Reply:
    inv.sm[YIELD_KEY] = True
    inv.trace.emit("steer_back_hard", turns=turns, msg=target.text)
    return Reply(
        message=target.text,
        preempt=True,
        force_preempt=True,
        reason=Reason.STEER_BACK_HARD,
        segments=(target,),
    )


def _escalate(inv: Invocation, turns: int) -> Reply:
    inv.trace.emit("steer_back_escalate", turns=turns)
    return exhaust(inv, inv.dag.steer_back.on_exhaust, reason=Reason.STEER_BACK_ESCALATE, force_preempt=True)


def _settle_armed(inv: Invocation, tier: str) -> Reply | None:
    """The invocation after the model's step: apply the armed tier unless the step made progress."""
    turns = int(inv.sm.get("_steer_back_turns") or 0)
    if inv.state_changed:
        inv.trace.emit("steer_back_disarmed", tier=tier)
        return None
    if tier == "escalate":
        return _escalate(inv, turns)
    target = _steer_target(inv)
    return _hard(inv, turns, target) if target is not None else None


def apply_steer_back(inv: Invocation) -> Reply | None:
    armed = inv.sm.pop(ARMED_KEY, None)
    if not inv.user_text.strip():
        return _settle_armed(inv, str(armed)) if armed is not None else None
    if inv.steer_yield:
        return None
    config = inv.dag.steer_back
    turns = int(inv.sm.get("_steer_back_turns") or 0)
    if turns < config.soft_after and turns < config.escalate_after:
        return None
    target = _steer_target(inv)
    tier = (
        "escalate"
        if turns >= config.escalate_after
        else "hard"
        if turns >= config.hard_after and target is not None
        else None
    )
    if tier is not None and not inv.host_rechecks:
        return _escalate(inv, turns) if tier == "escalate" else _hard(inv, turns, target) if target else None
    if tier is not None:
        inv.sm[ARMED_KEY] = tier
        inv.steer_armed = tier
        inv.recheck_after_model = True
        inv.steer_back_directive = ARMED_DIRECTIVE + (f" {target.text}" if target is not None else "")
        inv.trace.emit("steer_back_armed", tier=tier, turns=turns)
        return None
    if target is None:  # nothing to ask or read back now: a directive to steer back to nothing helps no one
        inv.trace.emit("steer_back_soft", turns=turns, directive="")
        return None
    directive = f"{SOFT_DIRECTIVE} {target.text}"
    inv.steer_back_directive = directive
    inv.trace.emit("steer_back_soft", turns=turns, directive=directive)
    return None
