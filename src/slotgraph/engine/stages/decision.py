"""Turn the DAG's decision into the invocation's reply (docs/engine.md#the-reply).

* **fire** — a preempting ``function_call`` ``{name: tool, args: {input: value}}`` for the task (its messages,
  if any, lead; a same-input retry's ``retry_say`` leads its re-fire, reason ``task_retry``), plus
  ``parallel_calls`` for the tasks fired with it (``Fire.parallel``) — except right
  after an inline confirm, when the fire is held so the model can first call setters for what else the user
  said.
* **awaiting readback** — the readback sentence of every pending value, relayed by the model (not preempted,
  see docs/engine.md#the-reply), unless a task's ``then_say`` leads it, in which case both are preempted. The
  config's ``readback_response`` parts come with it (placeholders from filled and pending values). When the
  user spoke and nothing changed since the previous invocation (values were already pending, no confirmation
  or correction yet), the message is empty (``readback_quiet``): the model answers under the readback
  instructions, which list the pending values, instead of being handed the same readback again.
* **next question** — the slot's ``ask``. Right after a confirmation (``_readback_transition``) it is
  preempted as ``"{prefix} {question}"`` with the prefix picked by the injected ``choose`` from
  ``confirm_transition_prefixes`` (default ``"Great!"``). After a successful task it is preempted behind the
  ``then_say`` — but when the ``then_say`` is itself a question (ends with ``?``), only the slot's question is
  asked: two questions are never sent, and the ask is the one the DAG needs answered.
* **all done** — whatever messages led (``then_say``), preempted.

Announce messages queued by the cascade always lead; an announce with ``preempt: True`` forces preemption.
Every piece of text is a :class:`~slotgraph.engine.invocation.Segment` that remembers its config location, so
the rich response parts of that location can be resolved (docs/engine.md#rich-responses); the transition
prefix and the readback are plain text.
"""

from __future__ import annotations

from typing import assert_never

from slotgraph.engine.actions import AllDone, Announce, Ask, AwaitReadback, DagAction, Fire, Reason
from slotgraph.engine.invocation import FunctionCall, Invocation, Reply, Segment
from slotgraph.engine.readback import build_readback
from slotgraph.engine.text import DEFAULT_TRANSITION_PREFIX, join, question_for

__all__ = ["reply_for"]


def _transition_prefix(inv: Invocation) -> str:
    prefixes = inv.dag.confirm_transition_prefixes
    if not prefixes:
        return DEFAULT_TRANSITION_PREFIX
    return inv.choose(list(prefixes))


def _reply(
    lead: list[Segment],
    *,
    reason: Reason,
    preempt: bool,
    force_preempt: bool,
    function_call: FunctionCall | None = None,
    parallel_calls: tuple[FunctionCall, ...] = (),
) -> Reply:
    return Reply(
        message=join([seg.text for seg in lead]),
        function_call=function_call,
        parallel_calls=parallel_calls,
        preempt=preempt,
        force_preempt=force_preempt,
        reason=reason,
        segments=tuple(lead),
    )


def _quiet_readback(inv: Invocation, lead: list[Segment]) -> bool:
    """The user spoke while values wait for confirmation and nothing changed since the previous invocation
    (neither a confirmation nor a correction yet): the model answers under the readback instructions
    instead of receiving the same readback again (the original platform's behaviour)."""
    return (
        bool(inv.user_text.strip())
        and inv.prior_pending
        and not inv.state_changed
        and not inv.promoted
        and inv.then_say is None
        and not lead
        and not inv.force_preempt
    )


def reply_for(inv: Invocation, action: DagAction) -> Reply:
    lead = list(inv.messages)
    then_say = inv.then_say
    if then_say is not None and inv.candidates_used and then_say.text.rstrip().endswith("?"):
        # an early answer (or a held value) already answers the task's question: it is not asked
        then_say = None
    preempt = inv.force_preempt or inv.then_say is not None
    force = inv.force_preempt
    match action:
        case Fire():
            if inv.inline_confirmed:
                inv.trace.emit("fire_held", task=action.task)
                return _reply(lead, preempt=inv.force_preempt, force_preempt=force, reason=Reason.FIRE_HELD)
            if then_say:
                lead.append(then_say)
            fired = {fire.task for fire in action.group}
            retried = [lead_ for lead_ in inv.retrying if lead_.task in fired]
            lead.extend(lead_.say for lead_ in retried)
            for fire in action.group:
                if action.parallel:
                    inv.trace.emit("fire", task=fire.task, tool=fire.tool, group=sorted(fired))
                else:
                    inv.trace.emit("fire", task=fire.task, tool=fire.tool)
            return _reply(
                lead,
                function_call=FunctionCall(action.tool, dict(action.args)),
                parallel_calls=tuple(FunctionCall(fire.tool, dict(fire.args)) for fire in action.parallel),
                preempt=True,
                force_preempt=force,
                reason=Reason.TASK_RETRY if retried else Reason.FIRE,
            )
        case AwaitReadback():
            if _quiet_readback(inv, lead):
                inv.trace.emit("readback_quiet", pending=sorted(inv.pending))
                return _reply([], preempt=False, force_preempt=False, reason=Reason.READBACK_QUIET)
            if then_say:
                lead.append(then_say)
            lead.append(
                Segment(
                    build_readback(inv.dag, inv.pending, action.slots, inv.format_value),
                    inv.dag.readback_responses,
                    values={**inv.filled, **inv.pending},
                    attach=True,
                )
            )
            return _reply(lead, preempt=preempt, force_preempt=force, reason=Reason.READBACK)
        case Ask():
            slot = inv.dag.slot_by_name[action.slot]
            if then_say and not then_say.text.rstrip().endswith("?"):
                lead.append(then_say)
            if inv.readback_transition and then_say is None:
                lead.append(Segment(_transition_prefix(inv)))
                preempt = True
            lead.append(Segment(question_for(slot, inv.filled), slot.responses, question=True))
            return _reply(lead, preempt=preempt, force_preempt=force, reason=Reason.NEXT_QUESTION)
        case Announce():  # resolved by the cascade before this point; deliver plainly if one remains
            return _reply(lead, preempt=preempt, force_preempt=force, reason=Reason.ANNOUNCE)
        case AllDone():
            if then_say:
                lead.append(then_say)
            say = join([seg.text for seg in lead]) is not None or any(not seg.responses.empty for seg in lead)
            return _reply(lead, preempt=preempt and say, force_preempt=force, reason=Reason.DONE)
        case _:
            assert_never(action)
