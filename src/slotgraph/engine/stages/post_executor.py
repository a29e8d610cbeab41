"""Task results (docs/engine.md#task-results-retries-and-exhaustion): what happens after an executor ran.

``_task_just_completed`` (set by tool-result routing) is consumed — with ``_parallel_completed``, the other
tasks of a parallel fire, each judged on its own. The task succeeded when its
``success_check`` key is truthy (no check: success) and every declared output key is present.

* **Success** — ``_retries[task]`` is cleared and ``then_say``/``then_response`` rendered from the filled
  values plus the fields of the task's result (filled values win on a name clash), so a result field that
  ``outputs`` does not map can be quoted. A terminal task sets ``status`` to ``"complete"`` and ends the
  invocation with its ``then_say`` (preempted) — unless it has ``on_complete``: then its ``clear_slots``
  leave ``filled``/``pending``/``deferred``, every task result is cleared, ``status`` stays
  ``"in_progress"`` and the ``then_say`` is still delivered (preempted): the flow starts over. Otherwise
  ``then_say`` leads the reply of the DAG evaluation that follows (the cascade).
* **Failure** — ``_retries[task]`` (the failed attempts so far) increments. ``on_failure.max_retries`` counts
  attempts *in total*, the first included (:attr:`~slotgraph.config.compiled.FailurePolicy.max_attempts`:
  ``max_retries: 2`` = one retry); when the failed attempts reach it the task is exhausted
  (:mod:`~slotgraph.engine.stages.exhaustion`; slots are *not* cleared, so the hand-over keeps the context).
  Otherwise it is retried, and a retry never waits for the user unless it needs something from them:

  - **re-collect** (``clear_slots``): the slots are removed and the invocation ends with ``retry_say``
    preempted — it asks the user for the new values (``task_retry``);
  - **same inputs** (no ``clear_slots``): nothing the user says can change the outcome, so the task is
    fired again *in this invocation*: ``retry_say`` leads the preempted reply whose ``function_call`` re-runs
    the task (``task_retry`` with a function call). The loop is bounded by ``max_retries``.

  A task without ``on_failure`` behaves as ``max_retries: 1`` with the default exhaustion message.
"""

from __future__ import annotations

from collections.abc import Mapping

from slotgraph.engine.actions import Reason
from slotgraph.engine.dag import task_result_ok
from slotgraph.engine.invocation import Invocation, Reply, RetryLead, Segment
from slotgraph.engine.stages.exhaustion import exhaust
from slotgraph.engine.state import COMPLETE, PARALLEL_COMPLETED_KEY
from slotgraph.engine.text import DEFAULT_RETRY_MESSAGE, render

__all__ = ["handle_post_executor"]


def handle_post_executor(inv: Invocation) -> Reply | None:
    """Judge the result of the task that just ran — of every task of a parallel fire
    (``_parallel_completed``), each with its own retries and failure handling. An exhaustion or a terminal
    outcome ends the invocation at once; a re-collect retry's reply is returned after the others are judged;
    the ``then_say`` of several successes lead the next reply together."""
    first = inv.sm.pop("_task_just_completed", None)
    more = inv.sm.pop(PARALLEL_COMPLETED_KEY, None) or []
    names = [first, *more] if first is not None else list(more)
    recollect: Reply | None = None
    for name in names:
        reply = _judge(inv, name)
        if reply is None:
            continue
        if reply.reason is not Reason.TASK_RETRY:
            return reply  # exhaustion, completion, loop: nothing else may decide after it
        recollect = recollect or reply
    return recollect


def _lead_with(inv: Invocation, segment: Segment) -> None:
    """Add a success's ``then_say`` to the next reply's lead (joined when parallel tasks succeeded)."""
    if inv.then_say is None:
        inv.then_say = segment
        return
    text = f"{inv.then_say.text} {segment.text}".strip()
    responses = inv.then_say.responses if not inv.then_say.responses.empty else segment.responses
    inv.then_say = Segment(text, responses, values={**(inv.then_say.values or {}), **(segment.values or {})})


def _judge(inv: Invocation, name: str) -> Reply | None:
    task = inv.dag.task_by_name.get(name)
    if task is None:
        inv.trace.emit("task_unknown", name=name)
        return None
    result = inv.sm["task_results"].get(name)
    ok = task_result_ok(task, result)
    inv.trace.emit("task", name=name, ok=ok)
    if ok:
        inv.retries.pop(name, None)
        values = {**result, **inv.filled} if isinstance(result, Mapping) else inv.filled
        say = render(task.then_say, values) if task.then_say else None
        segment = (
            Segment(say or "", task.then_responses, values=values)
            if say or not task.then_responses.empty
            else None
        )
        if task.terminal and task.loop_clear_slots is not None:
            for slot in task.loop_clear_slots:
                inv.filled.pop(slot, None)
                inv.pending.pop(slot, None)
                inv.deferred.pop(slot, None)
            inv.sm["task_results"] = {}
            inv.trace.emit("task_loop", name=name, cleared=list(task.loop_clear_slots))
            return Reply(
                message=say,
                preempt=segment is not None,
                reason=Reason.TASK_LOOP,
                segments=(segment,) if segment is not None else (),
            )
        if task.terminal:
            inv.sm["status"] = COMPLETE
            return Reply(
                message=say,
                preempt=segment is not None,
                reason=Reason.TASK_COMPLETE,
                segments=(segment,) if segment is not None else (),
            )
        if segment is not None:
            _lead_with(inv, segment)
        return None
    count = inv.retries.get(name, 0) + 1
    inv.retries[name] = count
    failure = task.on_failure
    attempts = failure.max_attempts if failure is not None else 1
    if count >= attempts:
        inv.trace.emit("task_exhaust", name=name, attempts=count)
        return exhaust(inv, failure.on_exhaust if failure is not None else None, reason=Reason.TASK_EXHAUST)
    assert failure is not None  # one attempt without on_failure always exhausts above
    for slot in failure.clear_slots:
        inv.filled.pop(slot, None)
        inv.pending.pop(slot, None)
        inv.deferred.pop(slot, None)
    message = render(failure.retry_say, inv.filled) if failure.retry_say else DEFAULT_RETRY_MESSAGE
    segment = Segment(message, failure.retry_responses)
    inv.trace.emit("task_retry", name=name, attempt=count + 1, of=attempts, refire=not failure.clear_slots)
    if failure.clear_slots:
        return Reply(message=message, preempt=True, reason=Reason.TASK_RETRY, segments=(segment,))
    inv.retrying.append(RetryLead(name, segment))  # the DAG fires the task again; the retry message leads
    return None
