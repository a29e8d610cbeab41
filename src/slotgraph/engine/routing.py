"""Tool-result routing (docs/engine.md#tool-result-routing) and the readback tools: the host's
``after_tool_callback``.

Every function takes the state and returns a *new* state dict; the given one is never mutated. Routing is
computed from the compiled config (never from the ``_setter_slots``-style tables cached in ``sm``).

Setter results:

* ``{"error": True, "error_code": c}`` → ``_slot_errors`` gets ``{"slot": s, "code": c}``;
* ``{"stored": True, "value": v}`` → after the prerequisite check (every active ``requires`` filled, else
  ``prereq_not_met``) and the ``validate_against`` check (the response field must be one of the
  comma-separated options of the referenced filled slot, compared trimmed and case-insensitively, else the
  configured ``error_code``) → ``pending[s] = v``; an ``inferred`` dict adds pending values for known
  slots not already filled;
* multi-slot setters return ``{"stored": True, "values": {...}, "field_errors": {...}}``; each field is
  routed on its own through ``multi_setter_slots``.

Executor results go to ``task_results[task]``; outputs are copied into ``filled`` only when the result is a
success (``success_check`` truthy and every declared output key present); ``_task_just_completed`` is set
either way for the next engine invocation. Tools the config does not know leave the state unchanged.

The ``bootstrap`` routing tool (a platform key) is routed before anything else: a ``stored`` result writes its
``value`` to ``filled[bootstrap.slot]`` directly (no readback); with ``reset_on_complete`` a call after
``complete``/``escalated`` restarts the flow (status ``in_progress``, task results and pending cleared,
filled kept); a ``target_agent`` in the result is recorded as ``sm["_pending_transfer"]``, a transfer request
for the host.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from slotgraph.config.compiled import Bootstrap, CompiledDag, CompiledSlot
from slotgraph.engine.dag import requires_met, task_result_ok
from slotgraph.engine.errors import EngineInputError
from slotgraph.engine.state import (
    CANDIDATES_KEY,
    CHANGES_KEY,
    IN_PROGRESS,
    PARALLEL_COMPLETED_KEY,
    TERMINAL_STATUSES,
    checked_copy,
    with_defaults,
)
from slotgraph.names import PENDING_TRANSFER

__all__ = [
    "PREREQ_NOT_MET",
    "TRANSFER_KEY",
    "after_tool",
    "confirm_pending",
    "holds_against",
    "reject_pending",
]

PREREQ_NOT_MET = "prereq_not_met"
TRANSFER_KEY = PENDING_TRANSFER
"""Where a routing tool's ``target_agent`` is recorded: a transfer request for the host."""
INVALID_RESULT = "invalid_result"


def _prepare(sm: Mapping[str, Any]) -> dict[str, Any]:
    return with_defaults(checked_copy(sm))


def _slot_error(sm: dict[str, Any], slot: str, code: Any) -> None:
    sm["_slot_errors"].append({"slot": slot, "code": str(code) if code else "invalid"})


def _options(value: Any) -> set[str]:
    items = value if isinstance(value, list | tuple | set | frozenset) else str(value).split(",")
    return {str(item).strip().lower() for item in items}


def holds_against(slot: CompiledSlot, value: Any, filled: Mapping[str, Any]) -> bool:
    """The ``validate_against`` check: ``value`` is one of the options of the referenced filled slot
    (compared trimmed and case-insensitively); fails when that slot is not filled; a slot without the check
    always holds."""
    check = slot.validate_against
    if check is None:
        return True
    allowed = _options(filled[check.filled_slot]) if check.filled_slot in filled else set()
    return str(value).strip().lower() in allowed


def _set_aside(sm: dict[str, Any], key: str, name: str, value: Any) -> None:
    sm[key] = {**(sm.get(key) or {}), name: value}


def _route_value(
    dag: CompiledDag, sm: dict[str, Any], slot: CompiledSlot, value: Any, response: Mapping[str, Any]
) -> None:
    """Route one successfully set value: prerequisite check, cross-slot check, then ``pending``.

    An early answer (``accept_early``, requires unmet) is kept in ``_candidates``; a new value for a filled
    ``changeable`` slot records the change in ``_changes`` (the same value again changes nothing)."""
    filled = sm["filled"]
    if not requires_met(dag, slot, filled):
        if slot.accept_early and slot.name not in filled:
            _set_aside(sm, CANDIDATES_KEY, slot.name, value)
            return
        _slot_error(sm, slot.name, PREREQ_NOT_MET)
        return
    check = slot.validate_against
    if check is not None:
        candidate = response.get(check.response_field, value) if check.response_field != "value" else value
        if not holds_against(slot, candidate, filled):
            _slot_error(sm, slot.name, check.error_code)
            return
    if slot.changeable and slot.name in filled:
        changes = sm.get(CHANGES_KEY) or {}
        previous = changes.get(slot.name, filled[slot.name])
        if value == previous:  # back to the confirmed value: nothing changes
            sm["pending"].pop(slot.name, None)
            sm["deferred"].pop(slot.name, None)
            rest = {name: old for name, old in changes.items() if name != slot.name}
            if rest:
                sm[CHANGES_KEY] = rest
            else:
                sm.pop(CHANGES_KEY, None)
            return
        _set_aside(sm, CHANGES_KEY, slot.name, previous)
    candidates = sm.get(CANDIDATES_KEY)
    if candidates and slot.name in candidates:  # answered now: the early answer is superseded
        sm[CANDIDATES_KEY] = {name: v for name, v in candidates.items() if name != slot.name}
        if not sm[CANDIDATES_KEY]:
            del sm[CANDIDATES_KEY]
    sm["pending"][slot.name] = value


def _route_inferred(dag: CompiledDag, sm: dict[str, Any], result: Mapping[str, Any]) -> None:
    inferred = result.get("inferred")
    if not isinstance(inferred, Mapping):
        return
    for name, value in inferred.items():
        if name in dag.slot_by_name and name not in sm["filled"]:
            sm["pending"][name] = value


def _single_value(slot: CompiledSlot, args: Mapping[str, Any], result: Mapping[str, Any]) -> tuple[bool, Any]:
    if "value" in result:
        return True, result["value"]
    for key in (slot.setter_field, slot.name):
        if key is not None and key in args:
            return True, args[key]
    if len(args) == 1:
        return True, next(iter(args.values()))
    return False, None


def _route_setter(
    dag: CompiledDag, sm: dict[str, Any], tool: str, args: Mapping[str, Any], result: Any
) -> None:
    names = dag.setter_slots[tool]
    fields = dag.multi_setter_slots.get(tool)
    if not isinstance(result, Mapping):
        _slot_error(sm, names[0], INVALID_RESULT)
        return
    if result.get("error"):
        # A whole-call error of a multi-slot setter is charged to the first slot the model tried to set.
        target = names[0]
        if fields:
            target = next((fields[f] for f in fields if f in args), names[0])
        _slot_error(sm, target, result.get("error_code"))
        return
    if fields:
        values = result.get("values")
        values = values if isinstance(values, Mapping) else {}
        errors = result.get("field_errors")
        errors = errors if isinstance(errors, Mapping) else {}
        for field_name, slot_name in fields.items():
            slot = dag.slot_by_name[slot_name]
            if field_name in errors:
                _slot_error(sm, slot_name, errors[field_name])
            elif field_name in values:
                _route_value(dag, sm, slot, values[field_name], result)
    else:
        for slot_name in names:
            slot = dag.slot_by_name[slot_name]
            ok, value = _single_value(slot, args, result)
            if ok:
                _route_value(dag, sm, slot, value, result)
            else:
                _slot_error(sm, slot_name, INVALID_RESULT)
    _route_inferred(dag, sm, result)


def _route_executor(dag: CompiledDag, sm: dict[str, Any], tool: str, result: Any) -> None:
    task = dag.task_by_name[dag.executor_tasks[tool]]
    stored = dict(result) if isinstance(result, Mapping) else {"value": result}
    sm["task_results"][task.name] = stored
    if task_result_ok(task, stored):
        for key, slot_name in task.outputs.items():
            sm["filled"][slot_name] = stored[key]
    first = sm.get("_task_just_completed")
    if first is None or first == task.name:
        sm["_task_just_completed"] = task.name
    elif task.name not in (sm.get(PARALLEL_COMPLETED_KEY) or ()):
        # a task fired in parallel: every result of the decision is judged by the next invocation
        sm[PARALLEL_COMPLETED_KEY] = [*(sm.get(PARALLEL_COMPLETED_KEY) or ()), task.name]


def _route_bootstrap(boot: Bootstrap, sm: dict[str, Any], result: Any) -> None:
    """The routing tool of ``bootstrap``: its stored value opens (or re-opens) the flow."""
    if not isinstance(result, Mapping) or not result.get("stored") or "value" not in result:
        return
    sm["filled"][boot.slot] = result["value"]
    if boot.reset_on_complete and sm.get("status") in TERMINAL_STATUSES:
        sm["status"] = IN_PROGRESS
        sm["task_results"] = {}
        sm["pending"] = {}
    target = result.get("target_agent")
    if isinstance(target, str) and target:
        sm[TRANSFER_KEY] = target


def after_tool(
    sm: Mapping[str, Any],
    dag: CompiledDag,
    tool_name: object,
    args: Mapping[str, Any] | None,
    result: Any,
) -> dict[str, Any]:
    """Route one tool result into a new state (docs/engine.md#tool-result-routing). ``tool_name`` is the
    tool's name (typed ``object``: anything but a non-empty string is refused with an EngineInputError)."""
    if not isinstance(tool_name, str) or not tool_name:
        raise EngineInputError(
            f"tool_name must be a non-empty string, got {tool_name!r}",
            where="after_tool",
            fix="pass the name of the tool that just ran",
        )
    if args is not None and not isinstance(args, Mapping):
        raise EngineInputError(
            f"args must be a dict, got {type(args).__name__}",
            where="after_tool",
            fix="pass the call's arguments",
        )
    out = _prepare(sm)
    call_args: Mapping[str, Any] = args or {}
    if dag.bootstrap is not None and tool_name == dag.bootstrap.tool:
        _route_bootstrap(dag.bootstrap, out, result)
    elif tool_name in dag.executor_tasks:
        _route_executor(dag, out, tool_name, result)
    elif tool_name in dag.setter_slots:
        _route_setter(dag, out, tool_name, call_args, result)
    return out


def _confirmable(out: Mapping[str, Any], slots: Collection[str] | None) -> list[str]:
    """The pending values a confirmation commits: those the user heard read back — equal to what was pending
    when the previous engine invocation ended (``_last_state``); a value corrected since then is read back
    first — and, when ``slots`` is given, only those; never one whose rejection was just recorded
    (``reject_pending`` in the same step). Without a previous readback (no ``_last_state`` pending) every
    pending value."""
    pending: Mapping[str, Any] = out["pending"]
    last = out.get("_last_state")
    heard = last.get("pending") if isinstance(last, Mapping) else None
    names = list(pending)
    if isinstance(heard, Mapping) and heard:
        names = [name for name in names if name in heard and heard[name] == pending[name]]
    if slots is not None:
        names = [name for name in names if name in slots]
    rejected = out.get("_rejection_snapshot") if out.get("_rejection_requested") else None
    if isinstance(rejected, Mapping):  # rejected in the same step: never confirmed with the rest
        names = [name for name in names if name not in rejected]
    return names


def _keep_groups_together(dag: CompiledDag, out: Mapping[str, Any], names: list[str]) -> list[str]:
    """``readback_together``: a grouped readback (values promoted from ``deferred``) is confirmed as a whole —
    when any of a group's pending values is not confirmed now, none of them is."""
    promoted = set(out.get("_promoted_from_deferred") or ())
    pending = out["pending"]
    keep = set(names)
    for task in dag.tasks:
        if not task.readback_together:
            continue
        group = {name for name in task.inputs if name in promoted and name in pending}
        if group and not group <= keep:
            keep -= group
    return [name for name in names if name in keep]


def confirm_pending(
    sm: Mapping[str, Any], dag: CompiledDag | None = None, *, slots: Collection[str] | None = None
) -> dict[str, Any]:
    """The ``confirm_pending`` tool: pending values move to ``filled``; ``_readback_transition`` is set.

    Partial readback: only the values the user heard read back are committed (see :func:`_confirmable`) —
    "the date is right but make it 6 people" sets the party size and confirms, which commits the date and
    keeps the new party size pending for its own readback; ``slots`` confirms only the named values. With
    ``dag``, a task's ``readback_together`` keeps its grouped readback all-or-nothing. With nothing to commit
    the state is returned unchanged (no transition is announced for nothing).
    """
    out = _prepare(sm)
    if not out["pending"]:
        return out
    names = _confirmable(out, slots)
    if dag is not None and len(names) < len(out["pending"]):
        names = _keep_groups_together(dag, out, names)
    if names:
        for name in names:
            out["filled"][name] = out["pending"].pop(name)
        out["_readback_transition"] = True
    return out


def reject_pending(sm: Mapping[str, Any], *, slots: Collection[str] | None = None) -> dict[str, Any]:
    """The ``reject_pending`` tool: records the rejection (``_rejection_requested``, ``_rejection_snapshot``).

    The values leave ``pending`` when the rejection is processed (next engine invocation or ``begin_turn``);
    ``slots`` rejects only the named values (the others stay pending). With nothing pending the state is
    returned unchanged.
    """
    out = _prepare(sm)
    rejected = {n: v for n, v in out["pending"].items() if slots is None or n in slots}
    if rejected:
        out["_rejection_requested"] = True
        out["_rejection_snapshot"] = rejected
    return out
