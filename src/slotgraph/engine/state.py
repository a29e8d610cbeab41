"""The ``sm`` state dict (docs/engine.md#the-state-sm): key names, defaults, validation at the entry, and the
working copy.

Key names are the original platform's exactly, so state written by the original platform loads unchanged.
Unknown keys are kept and passed through untouched.

The engine never mutates the ``sm`` it is given. :func:`working_copy` makes the invocation's own copy: a new
top-level dict and a new container for every key the engine writes into (``filled``, ``pending``,
``deferred``, ``task_results``, ``_retries``, ``_slot_errors``, ...). Slot *values* and unknown keys are
shared, not deep-copied: the engine only ever rebinds them, never mutates them (this is what keeps an
invocation several times cheaper than ``copy.deepcopy`` of the state).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from slotgraph.config.compiled import CompiledDag
from slotgraph.engine.errors import EngineStateError
from slotgraph.names import CANDIDATES, CHANGES, CONFIRM_PENDING, HELD, PENDING_PAYLOADS, REJECT_PENDING

__all__ = [
    "CANDIDATES_KEY",
    "CHANGES_KEY",
    "COMPLETE",
    "CONFIRM_PENDING",
    "DICT_KEYS",
    "ESCALATED",
    "HELD_KEY",
    "IN_PROGRESS",
    "OPTIONAL_DICT_KEYS",
    "PARALLEL_COMPLETED_KEY",
    "REJECT_PENDING",
    "STATUSES",
    "TERMINAL_STATUSES",
    "checked_copy",
    "derived_mappings",
    "plain",
    "snapshot",
    "validate_state",
    "with_defaults",
    "working_copy",
    "write_state_tables",
]

IN_PROGRESS: Final = "in_progress"
COMPLETE: Final = "complete"
ESCALATED: Final = "escalated"
STATUSES: Final[frozenset[str]] = frozenset({IN_PROGRESS, COMPLETE, ESCALATED})
TERMINAL_STATUSES: Final[frozenset[str]] = frozenset({COMPLETE, ESCALATED})

# The key tuples below are typed ``tuple[str, ...]``: compiled, a
# loop over one is an indexed loop in C, where a fixed-length tuple type would take the generic iterator.
DICT_KEYS: Final[tuple[str, ...]] = (
    "filled",
    "pending",
    "deferred",
    "task_results",
    "_retries",
    "_last_state",
)
"""Keys whose value is a dict, created empty when missing."""

CANDIDATES_KEY: Final = CANDIDATES
"""``{slot: value}``: early answers — values given before their slot could be asked (its ``requires`` unmet),
kept until the slot becomes askable, then validated and read back (``accept_early``)."""
HELD_KEY: Final = HELD
"""``{slot: value}``: confirmed values set aside because something they depend on changed (a task output
they require was invalidated, or the slot their ``validate_against`` reads changed); restored without a new
readback when the slot is askable again and the value still holds, else the slot is asked again."""
CHANGES_KEY: Final = CHANGES
"""``{slot: previous value}``: a confirmed value the user is changing (``changeable``); the new value waits in
``pending``/``deferred``. Tasks that read the slot do not fire until the change is confirmed or rejected."""
OPTIONAL_DICT_KEYS: Final[tuple[str, ...]] = (CANDIDATES_KEY, HELD_KEY, CHANGES_KEY)
PARALLEL_COMPLETED_KEY: Final = "_parallel_completed"
"""List of task names: results of parallel tasks routed after ``_task_just_completed`` and before the next
engine invocation (a parallel fire); the post-executor judges each. Absent when empty."""
"""Dict keys written only while non-empty (absent otherwise, so states of configs that do not use them are
unchanged)."""

_BOOL_FLAGS: Final[tuple[str, ...]] = (
    "_readback_transition",
    "_auto_confirm_pending",
    "_inline_confirm",
    "_rejection_requested",
    "_hard_steer_yielded",
    "_event_prefilled_this_turn",
)
_OPTIONAL_STR: Final[tuple[str, ...]] = ("_task_just_completed", "channel")
_NAMED_KEYS: Final[tuple[str, ...]] = ("filled", "pending", "deferred", "task_results")


def _fail(key: str, problem: str, fix: str) -> EngineStateError:
    return EngineStateError(problem, where=f"sm[{key!r}]", fix=fix)


def _is_count(value: object) -> bool:
    """An int, or an integral float: CES persists session state as a protobuf ``Struct``, whose numbers are
    doubles, so a counter written as ``1`` comes back as ``1.0``. Bools are not counts."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _as_count(value: Any) -> Any:
    """``1.0`` → ``1`` (see :func:`_is_count`); anything else unchanged."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def validate_state(sm: object) -> None:
    """Check the types of every known key of ``sm``; raise :class:`EngineStateError` naming the key."""
    if not isinstance(sm, Mapping):
        raise EngineStateError(
            f"expected a dict, got {type(sm).__name__}",
            where="sm",
            fix="pass the session's state dict (an empty dict {} starts a new session)",
        )
    for key in DICT_KEYS:
        value = sm.get(key)
        if value is not None and not isinstance(value, Mapping):
            raise _fail(
                key, f"expected a dict, got {type(value).__name__}", f"set sm[{key!r}] to a dict or drop it"
            )
    for key in _NAMED_KEYS:
        names = sm.get(key)
        if names and not all(type(name) is str for name in names):
            bad = next(name for name in names if not isinstance(name, str))
            raise _fail(key, f"slot/task names must be strings, got {bad!r}", "use string keys")
    for key, count in (sm.get("_retries") or {}).items():
        if not isinstance(key, str) or not _is_count(count):
            raise _fail(
                "_retries", f"entry {key!r}: {count!r} is not a string -> int", "store integer counts"
            )
    errors = sm.get("_slot_errors")
    if errors is not None:
        if not isinstance(errors, list):
            raise _fail(
                "_slot_errors", f"expected a list, got {type(errors).__name__}", "use a list of dicts"
            )
        for i, err in enumerate(errors):
            if not (isinstance(err, Mapping) and isinstance(err.get("slot"), str)):
                raise _fail(
                    "_slot_errors",
                    f"entry {i} must be {{'slot': str, 'code': str}}, got {err!r}",
                    "fix the entry",
                )
    turns = sm.get("_steer_back_turns")
    if turns is not None and not _is_count(turns):
        raise _fail("_steer_back_turns", f"expected an int, got {turns!r}", "store an integer (0 to reset)")
    status = sm.get("status")
    if status is not None and (not isinstance(status, str) or status not in STATUSES):
        raise _fail("status", f"unknown status {status!r}", f"use one of {sorted(STATUSES)}")
    message = sm.get("_system_message")
    if message is not None and not isinstance(message, str):
        raise _fail("_system_message", f"expected a string, got {type(message).__name__}", "store a string")
    for key in _BOOL_FLAGS:
        value = sm.get(key)
        if value is not None and not isinstance(value, bool):
            raise _fail(key, f"expected a bool, got {value!r}", "store True/False or drop the key")
    for key in _OPTIONAL_STR:
        value = sm.get(key)
        if value is not None and not isinstance(value, str):
            raise _fail(key, f"expected a string, got {value!r}", "store a string or drop the key")
    snap = sm.get("_rejection_snapshot")
    if snap is not None and not isinstance(snap, Mapping):
        raise _fail("_rejection_snapshot", f"expected a dict, got {type(snap).__name__}", "store a dict")
    payloads = sm.get(PENDING_PAYLOADS)
    if payloads is not None and not isinstance(payloads, list):
        raise _fail(PENDING_PAYLOADS, f"expected a list, got {type(payloads).__name__}", "store a list")
    for key in ("_promoted_from_deferred", PARALLEL_COMPLETED_KEY):
        names = sm.get(key)
        if names is not None and (not isinstance(names, list) or not all(isinstance(n, str) for n in names)):
            raise _fail(key, f"expected a list of names, got {names!r}", "drop it")
    for key in OPTIONAL_DICT_KEYS:
        value = sm.get(key)
        if value is None:
            continue
        if not isinstance(value, Mapping) or not all(isinstance(name, str) for name in value):
            raise _fail(key, f"expected a dict of slot name -> value, got {value!r:.80}", "drop it")
    count = sm.get("_invocation_count")
    if count is not None and (not _is_count(count) or count < 0):
        raise _fail("_invocation_count", f"expected a non-negative int, got {count!r}", "drop it (restarts)")


def working_copy(sm: Mapping[str, Any]) -> dict[str, Any]:
    """The invocation's own copy: new containers for every key the engine writes into (see module doc).

    Missing keys stay missing (:func:`with_defaults` adds them), so a copy compares equal to its source.
    Counts persisted as integral floats (``_retries`` values, ``_steer_back_turns``, ``_invocation_count``)
    become ints (they still compare equal).
    """
    out = dict(sm)
    for key in DICT_KEYS:
        value = sm.get(key)
        if value is not None:
            out[key] = dict(value)
    retries = out.get("_retries")
    if retries:
        out["_retries"] = {name: _as_count(count) for name, count in retries.items()}
    for key in ("_steer_back_turns", "_invocation_count"):
        if key in out:
            out[key] = _as_count(out[key])
    last = out.get("_last_state")
    if last is not None:
        for key in ("filled", "pending", "deferred"):
            if isinstance(last.get(key), Mapping):
                last[key] = dict(last[key])
    errors = sm.get("_slot_errors")
    if errors is not None:
        out["_slot_errors"] = [dict(e) for e in errors]
    snap = sm.get("_rejection_snapshot")
    if snap is not None:
        out["_rejection_snapshot"] = dict(snap)
    payloads = sm.get(PENDING_PAYLOADS)
    if payloads is not None:
        out[PENDING_PAYLOADS] = list(payloads)
    for key in ("_promoted_from_deferred", PARALLEL_COMPLETED_KEY):
        names = sm.get(key)
        if names is not None:
            out[key] = list(names)
    for key in OPTIONAL_DICT_KEYS:
        value = sm.get(key)
        if value is not None:
            out[key] = dict(value)
    if isinstance(sm.get("_debug_log"), list):
        out["_debug_log"] = list(sm["_debug_log"])
    return out


def checked_copy(sm: object) -> dict[str, Any]:
    """The engine's entry: :func:`validate_state`, then :func:`working_copy`."""
    validate_state(sm)
    assert isinstance(sm, Mapping)
    return working_copy(sm)


def plain(mapping: Mapping[str, Any]) -> dict[str, Any]:
    """``mapping`` itself when it is a dict (the engine's own state), else a dict copy of it (a caller's
    read-only mapping): the engine's decision code reads dicts and never changes them."""
    return mapping if isinstance(mapping, dict) else dict(mapping)


def with_defaults(sm: dict[str, Any]) -> dict[str, Any]:
    """Fill the defaults for missing keys (docs/engine.md#the-state-sm), in place; returns it."""
    for key in DICT_KEYS:
        if sm.get(key) is None:
            sm[key] = {}
    if sm.get("_slot_errors") is None:
        sm["_slot_errors"] = []
    if sm.get("_steer_back_turns") is None:
        sm["_steer_back_turns"] = 0
    if sm.get("_system_message") is None:
        sm["_system_message"] = ""
    if sm.get("status") is None:
        sm["status"] = IN_PROGRESS
    return sm


def snapshot(sm: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The ``_last_state`` snapshot: copies of ``filled``, ``pending`` and ``deferred``."""
    return {
        "filled": dict(sm.get("filled") or {}),
        "pending": dict(sm.get("pending") or {}),
        "deferred": dict(sm.get("deferred") or {}),
    }


def derived_mappings(dag: CompiledDag) -> dict[str, Any]:
    """The config-derived routing tables the original platform caches in ``sm``, as new plain data.

    They are written for compatibility with hosts that read them; the engine itself always routes from the
    compiled config.
    """
    return {key: _plain_copy(value) for key, value in dag.state_tables.items()}


def _plain_copy(value: Any) -> Any:
    """A copy of nested plain dicts and lists (the tables hold nothing else besides immutable scalars)."""
    if type(value) is dict:
        return {key: _plain_copy(item) for key, item in value.items()}
    if type(value) is list:
        return [_plain_copy(item) for item in value]
    return value


def _copy_dicts(table: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``_multi_setter_slots`` and ``_slot_validates``: a dict of dicts."""
    return {name: inner.copy() for name, inner in table.items()}


def _copy_lists(table: dict[str, list[str]]) -> dict[str, list[str]]:
    """``_slot_requires``: a dict of lists."""
    return {name: names.copy() for name, names in table.items()}


def _copy_executor_tasks(table: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for tool, entry in table.items():
        fresh = entry.copy()
        outputs: dict[str, Any] = entry["outputs"]
        fresh["outputs"] = outputs.copy()
        out[tool] = fresh
    return out


def _copy_table(key: str, table: Any) -> Any:
    """A new copy of one routing table, by the fixed shape ``compile_config`` gives it."""
    if key == "_setter_slots":
        return dict(table)
    if key == "_multi_setter_slots" or key == "_slot_validates":
        return _copy_dicts(table)
    if key == "_slot_requires":
        return _copy_lists(table)
    if key == "_executor_tasks":
        return _copy_executor_tasks(table)
    return _plain_copy(table)


def write_state_tables(dag: CompiledDag, sm: dict[str, Any]) -> None:
    """Write the routing tables into the working copy ``sm``, reusing what it already holds when equal.

    A session's state carries the tables from the previous invocation; comparing them (C speed) is much
    cheaper than building them again, and an equal value the caller passed in is never mutated by the engine.
    """
    for key, value in dag.state_tables.items():
        if sm.get(key) != value:
            sm[key] = _copy_table(key, value)
