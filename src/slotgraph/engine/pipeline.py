"""One engine invocation (``_run_slot_filling`` on the original platform): the orchestrator. It only wires the
stages.

``run_engine(dag, sm, last_user_text=...)`` validates ``sm``, copies it, and runs, in this order
(docs/engine.md#the-pipeline):

 1. **terminal** — ``complete``/``escalated`` short-circuit first: nothing else may run, the state is
    returned unmodified and every config tool is hidden.
 2. **rejection** — a rejection recorded by ``reject_pending`` is applied before anything reads
    ``pending``, so the post-tool invocation does not read rejected values back.
 3. **event pre-fill** (through ``fill_slots``) — before change detection, so pre-filled slots
    count as progress, and before the DAG, so the next question already skips them.
 4. **state change** — compared with ``_last_state`` *before* this invocation changes anything:
    only what tools and the host did since the last invocation is "new" (clears slot retries, resets the
    steer-back counter, logs ``progress``); consumes ``_readback_transition`` and ``_auto_confirm_pending``.
 5. **user-turn count / yield** — right after the reset, and before auto-confirm can end the
    invocation (auto-confirm "already incremented" the counter); the turn after a hard steer-back is yielded.
 6. **auto-promote**, **deferred routing and group completion** then
    **auto-deactivate** (also clears ``deferred``) — the state is made consistent before any decision
    reads it; fresh pending is judged on the routed state (a group promotion counts as fresh).
 7. **auto-confirm** / **inline confirm** — need the consistent ``pending``; auto-confirm ends
    the invocation with ``function_call(confirm_pending)``.
 8. **slot errors** — before the DAG: an invalid answer is re-asked, nothing fires on its account.
 9. **steer-back** tiers — after slot errors (an error reply already steers), before the post-executor
    and the DAG (a hard tier or an escalation ends the invocation; the soft tier only adds a directive).
10. **post-executor** — a task result is judged before the DAG so a cascade sees its outputs and a
    failure can clear slots.
11. **DAG evaluation + announce cascade**, then **re-deferral** (``re_deferred``: a task
    about to fire sends values promoted from ``deferred`` back there) → the reply.
12. **tool visibility** — computed last, on the final state of the invocation (the platform computed it
    earlier; computing it after the post-executor means a slot cleared by a failed task is visible again, and
    a setter whose requirement a task output just met is visible, in the very invocation that changed them).
    Then the SI suffix and rich responses for the final reply, ``_last_state`` is rewritten for
    the next invocation, and the ``invoke`` line is logged with the invocation counter ``n``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from slotgraph.config.compiled import CompiledDag
from slotgraph.engine.actions import EngineAction, Phase, Reason
from slotgraph.engine.errors import EngineInputError
from slotgraph.engine.gate import gate_open
from slotgraph.engine.invocation import Choose, Invocation, Reply, Trace
from slotgraph.engine.plan import plan_of
from slotgraph.engine.stages.announce import cascade_announces, evaluate
from slotgraph.engine.stages.candidates import resolve_candidates
from slotgraph.engine.stages.changes import settle_changes
from slotgraph.engine.stages.confirmation import apply_inline_confirm, try_auto_confirm
from slotgraph.engine.stages.deactivation import deactivate_conditional_slots
from slotgraph.engine.stages.decision import reply_for
from slotgraph.engine.stages.hints import PAYLOADS_KEY, response_parts, si_suffix
from slotgraph.engine.stages.post_executor import handle_post_executor
from slotgraph.engine.stages.prefill import prefill_from_events
from slotgraph.engine.stages.promotion import auto_promote, re_defer, route_deferred
from slotgraph.engine.stages.rejection import apply_rejection
from slotgraph.engine.stages.slot_errors import handle_slot_errors
from slotgraph.engine.stages.state_change import detect_state_change
from slotgraph.engine.stages.steer_back import apply_steer_back, count_user_turn
from slotgraph.engine.state import (
    TERMINAL_STATUSES,
    checked_copy,
    snapshot,
    with_defaults,
    write_state_tables,
)
from slotgraph.engine.visibility import compute_hidden_tools

__all__ = ["EngineResult", "default_choose", "run_engine"]


@dataclass(frozen=True, slots=True)
class EngineResult:
    """The outcome of one invocation: the new state and the typed action for the host
    (docs/engine.md#the-action; the platform's action dict is :func:`slotgraph.adapters.cxas.action_dict`)."""

    sm: dict[str, Any]
    action: EngineAction
    debug_log: tuple[dict[str, Any], ...] = field(default=())


def default_choose(options: Sequence[str]) -> str:
    """The default choice function: the first option (deterministic; inject ``random.choice`` for variety)."""
    return options[0]


def _check_inputs(
    dag: CompiledDag,
    last_user_text: str,
    event_data: Mapping[str, Any] | None,
    channel: str | None,
    gate_user_text: str,
) -> None:
    """The entry's arguments, checked: a host passing the wrong type gets the engine's own error with a fix
    instead of a ``TypeError`` deep in a stage."""
    if not isinstance(dag, CompiledDag):
        raise EngineInputError(
            f"dag must be a CompiledDag, got {type(dag).__name__}",
            where="run_engine",
            fix="compile the raw config first: slotgraph.config.compile_config(raw)",
        )
    if not isinstance(last_user_text, str):
        raise EngineInputError(
            f"last_user_text must be a string, got {type(last_user_text).__name__}",
            where="run_engine",
            fix='pass "" on post-tool and first-turn invocations',
        )
    if event_data is not None and not isinstance(event_data, Mapping):
        raise EngineInputError(
            f"event_data must be a dict, got {type(event_data).__name__}",
            where="run_engine",
            fix="pass a dict",
        )
    if channel is not None and not isinstance(channel, str):
        raise EngineInputError(
            f"channel must be a string, got {type(channel).__name__}",
            where="run_engine",
            fix="pass e.g. 'WEB'",
        )
    if not isinstance(gate_user_text, str):
        raise EngineInputError(
            f"gate_user_text must be a string, got {type(gate_user_text).__name__}",
            where="run_engine",
            fix='pass the text the user said while the gate was closed, or "" (the default)',
        )


def _invoke_data(
    inv: Invocation, reply: Reply, count: int, phase: str, fresh: bool, hidden: list[str]
) -> dict[str, Any]:
    """The ``invoke`` line (docs/engine.md#observability): the state snapshot and what was decided."""
    data: dict[str, Any] = {
        "n": count,
        "phase": phase,
        "filled": sorted(inv.filled),
        "pending": sorted(inv.pending),
        "deferred": sorted(inv.deferred),
        "fresh": fresh,
        "hidden": hidden,
    }
    if reply.function_call is not None:
        data["fired"] = reply.function_call.name
        if reply.parallel_calls:
            data["parallel"] = [call.name for call in reply.parallel_calls]
    elif reply.reason is Reason.READBACK:
        data["rb"] = sorted(inv.pending)
    elif reply.reason in (Reason.NEXT_QUESTION, Reason.STEER_BACK_HARD):
        data["asking"] = reply.message
    elif reply.reason in (Reason.DONE, Reason.TASK_COMPLETE):
        data["done"] = True
    data["preempted"] = reply.preempt
    data["reason"] = reply.reason
    return data


def _run(inv: Invocation) -> Reply:
    """Stages 2–11; returns the reply. The order is explained in the module docstring."""
    rejected = apply_rejection(inv.sm)
    prefill_from_events(inv)
    inv.state_changed = detect_state_change(inv)  # consumes ``_readback_transition``
    if rejected:
        inv.readback_transition = False  # no transition prefix after a rejection (docs/engine.md#the-reply)
    count_user_turn(inv)
    auto_promote(inv)
    route_deferred(inv)
    deactivate_conditional_slots(inv)
    inv.fresh_pending = bool(inv.pending) and (not inv.prior_pending or bool(inv.promoted))
    reply = try_auto_confirm(inv)
    if reply is not None:
        return reply
    apply_inline_confirm(inv)
    if settle_changes(inv):
        deactivate_conditional_slots(inv)  # a changed value may flip conditions
    reply = handle_slot_errors(inv)
    if reply is None:
        reply = apply_steer_back(inv)
    if reply is None:
        reply = handle_post_executor(inv)
    if reply is not None:
        return reply
    resolve_candidates(inv)
    action = cascade_announces(inv, evaluate(inv))
    re_defer(inv, action)
    reply = reply_for(inv, action)
    if inv.steer_armed is not None and not reply.preempt:
        # the model answers first; the question is asked after its step only if it recorded nothing
        return Reply(reason=Reason.STEER_BACK_ARMED)
    return reply


def run_engine(
    dag: CompiledDag,
    sm: Mapping[str, Any],
    *,
    last_user_text: str = "",
    event_data: Mapping[str, Any] | None = None,
    channel: str | None = None,
    debug: bool = False,
    choose: Choose | None = None,
    variables: Mapping[str, Any] | None = None,
    host_rechecks: bool = True,
    gate_user_text: str = "",
) -> EngineResult:
    """Run one engine invocation. Pure: the same inputs give the same result; ``sm`` is never mutated.

    ``dag`` is a :class:`~slotgraph.config.CompiledDag` (``compile_config(raw)``), ``last_user_text`` and
    ``gate_user_text`` strings, ``event_data`` a dict or ``None``, ``channel`` a string or ``None``; a wrong
    type raises :class:`EngineInputError` with a fix.

    ``variables`` are the agent's session variables: slot and task conditions read them where no slot
    of the name is filled (the engine never writes them). ``host_rechecks`` says whether the host invokes
    the engine again after the model's step when the action's ``recheck_after_model`` asks for it; a host
    that does not (the spec entry, by default) gets the hard and escalate steer-back tiers on the user's own
    invocation instead of armed for the recheck. ``gate_user_text`` is what the user said while the gate slot
    was closed, which the host kept (the engine did not run then): the action's ``si_suffix`` gives it back
    as a ``<user_context>`` block so the model extracts values from it instead of asking again.
    """
    _check_inputs(dag, last_user_text, event_data, channel, gate_user_text)
    trace = Trace(enabled=debug)
    work = checked_copy(sm)
    if work.get("status") in TERMINAL_STATUSES:
        trace.emit("terminal", status=work["status"])
        terminal = EngineAction(reason=Reason.TERMINAL, phase="terminal", hidden_tools=plan_of(dag).all_tools)
        return EngineResult(sm=work, action=terminal, debug_log=tuple(trace.entries))
    with_defaults(work)
    if channel is not None:
        work["channel"] = channel
    inv = Invocation(
        dag=dag,
        sm=work,
        user_text=last_user_text,
        choose=choose or default_choose,
        trace=trace,
        event_data=event_data,
        variables=dict(variables) if variables else None,
        host_rechecks=host_rechecks,
        gate_user_text=gate_user_text,
    )
    count = int(work.get("_invocation_count") or 0) + 1
    work["_invocation_count"] = count
    reply = _run(inv)
    terminal_now = work["status"] in TERMINAL_STATUSES
    fresh = bool(inv.pending) and inv.fresh_pending and not inv.inline_confirmed
    hide = compute_hidden_tools(
        dag,
        inv.filled,
        inv.pending,
        inv.deferred,
        fresh_pending=fresh,
        terminal=terminal_now,
        activity=inv.activity,
    )
    phase: Phase = "terminal" if terminal_now else ("readback" if inv.pending else "collection")
    response, stash = response_parts(inv, reply)
    work.pop(PAYLOADS_KEY, None)  # the stash is the action's output (the spec entry writes it to sm)
    action = EngineAction(
        reason=reply.reason,
        phase=phase,
        hidden_tools=tuple(hide),
        message=reply.message,
        function_call=reply.function_call,
        parallel_calls=reply.parallel_calls,
        preempt=reply.preempt,
        force_preempt=reply.force_preempt,
        response=tuple(response) if response is not None else None,
        stash=tuple(stash),
        si_suffix=si_suffix(inv, reply),
        inline_confirmed=inv.inline_confirmed,
        steer_back_directive=inv.steer_back_directive,
        event_prefilled=bool(work.get("_event_prefilled_this_turn")),
        gate_open=gate_open(dag, work, inv.activity),
        recheck_after_model=inv.recheck_after_model or reply.reason is Reason.FIRE_HELD,
    )
    work["_system_message"] = reply.message or ""
    work["_last_state"] = snapshot(work)
    write_state_tables(dag, work)
    if trace.active:
        trace.emit("invoke", **_invoke_data(inv, reply, count, phase, fresh, hide))
    return EngineResult(sm=work, action=action, debug_log=tuple(trace.entries))
