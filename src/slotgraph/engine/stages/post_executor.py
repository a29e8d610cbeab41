"""Task results (spec §3.2, §5): what happens after an executor ran.

``_task_just_completed`` (set by tool-result routing) is consumed. The task succeeded when its
``success_check`` key is truthy (no check: success) and every declared output key is present.

* **Success** — ``_retries[task]`` is cleared and ``then_say``/``then_response`` rendered from the filled
  values plus the fields of the task's result (filled values win on a name clash), so a result field that
  ``outputs`` does not map can be quoted. A terminal task sets ``status`` to ``"complete"`` and ends the
  invocation with its ``then_say`` (preempted) — unless it has ``on_complete``: then its ``clear_slots``
  leave ``filled``/``pending``/``deferred``, every task result is cleared, ``status`` stays
  ``"in_progress"`` and the ``then_say`` is still delivered (preempted): the flow starts over. Otherwise
  ``then_say`` leads the reply of the DAG evaluation that follows (the cascade, §3.3).
* **Failure** — ``_retries[task]`` increments. When it reaches ``on_failure.max_retries`` the task is
  exhausted (:mod:`~slotgraph.engine.stages.exhaustion`; slots are *not* cleared, so the hand-over keeps
  the context).
  Otherwise the ``clear_slots`` are removed (re-collect retry) and the invocation ends with ``retry_say``
  preempted; with no ``clear_slots`` the task re-fires with the same inputs on the next invocation. A task
  without ``on_failure`` behaves as ``max_retries: 1`` with the default exhaustion message.
"""

from __future__ import annotations

from collections.abc import Mapping

from slotgraph.engine.dag import task_result_ok
from slotgraph.engine.invocation import Invocation, Reply, Segment
from slotgraph.engine.stages.exhaustion import exhaust
from slotgraph.engine.state import COMPLETE
from slotgraph.engine.text import DEFAULT_RETRY_MESSAGE, render

__all__ = ["handle_post_executor"]


def handle_post_executor(inv: Invocation) -> Reply | None:
    name = inv.sm.pop("_task_just_completed", None)
    if name is None:
        return None
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
            inv.filled_changed(task.loop_clear_slots)
            inv.sm["task_results"] = {}
            inv.trace.emit("task_loop", name=name, cleared=list(task.loop_clear_slots))
            return Reply(
                message=say,
                preempt=segment is not None,
                reason="task_loop",
                segments=(segment,) if segment is not None else (),
            )
        if task.terminal:
            inv.sm["status"] = COMPLETE
            return Reply(
                message=say,
                preempt=segment is not None,
                reason="task_complete",
                segments=(segment,) if segment is not None else (),
            )
        inv.then_say = segment
        return None
    count = inv.retries.get(name, 0) + 1
    inv.retries[name] = count
    failure = task.on_failure
    max_retries = failure.max_retries if failure is not None else 1
    if count >= max_retries:
        inv.trace.emit("task_exhaust", name=name)
        return exhaust(inv, failure.on_exhaust if failure is not None else None, reason="task_exhaust")
    assert failure is not None  # max_retries 1 without on_failure always exhausts above
    for slot in failure.clear_slots:
        inv.filled.pop(slot, None)
        inv.pending.pop(slot, None)
        inv.deferred.pop(slot, None)
    inv.filled_changed(failure.clear_slots)
    message = render(failure.retry_say, inv.filled) if failure.retry_say else DEFAULT_RETRY_MESSAGE
    return Reply(
        message=message,
        preempt=True,
        reason="task_retry",
        segments=(Segment(message, failure.retry_responses),),
    )
