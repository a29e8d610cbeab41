"""Any malformed state gives a clear ``EngineStateError`` at the entry — never a ``KeyError`` from inside."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.engine.spec_view import run_engine

from slotgraph.engine import EngineStateError, after_tool, begin_turn

from .bella import bella_dag
from .toy import toy_dag

pytestmark = pytest.mark.slow  # a plain `pytest` skips it; `make test` and CI run it

DAG = toy_dag()
KEYS = (
    "filled", "pending", "deferred", "task_results", "_retries", "_slot_errors", "_last_state",
    "_steer_back_turns", "_system_message", "status", "_task_just_completed", "_readback_transition",
    "_auto_confirm_pending", "_inline_confirm", "_rejection_requested", "_rejection_snapshot", "channel",
    "_pending_payloads", "_hard_steer_yielded",
)  # fmt: skip
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "num_guests", "in_progress", "x"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["num_guests", "slot", "code", "pending"]), inner, max_size=3)
    ),
    max_leaves=8,
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(sm=st.dictionaries(st.sampled_from(KEYS), JSON, max_size=6), text=st.sampled_from(["", "yes", "hm"]))
def test_malformed_state_is_refused_clearly_or_handled(sm: dict[str, Any], text: str) -> None:
    for call in (
        lambda: run_engine(DAG, sm, last_user_text=text),
        lambda: begin_turn(DAG, sm),
        lambda: after_tool(sm, DAG, "check_availability", {}, {"success": True, "open_slots": "x"}),
        lambda: after_tool(sm, DAG, "set_date", {"date": "d"}, {"stored": True, "value": "d"}),
    ):
        try:
            call()
        except EngineStateError as err:
            assert err.where.startswith("sm") and err.fix


# Well-typed but inconsistent states (Bella Notte config): every entry point must run — no exception at all —
# never mutate its input, and be deterministic. Counts may arrive as integral floats (CES Struct numbers).
BELLA = bella_dag()
_NAMES = [s.name for s in BELLA.slots] + ["ghost"]
_TASKS = [t.name for t in BELLA.tasks] + ["Nope"]
_VALUES = (
    st.none()
    | st.booleans()
    | st.integers(-2, 12)
    | st.sampled_from(["", "x", "4", "19:00", "None", "2026-06-17", "17:30, 19:00"])
    | st.lists(st.integers(), max_size=2)
)
_SLOTS = st.dictionaries(st.sampled_from(_NAMES), _VALUES, max_size=4)
_COUNT = st.integers(0, 5) | st.integers(0, 5).map(float)
_STATE = st.fixed_dictionaries(
    {},
    optional={
        "filled": _SLOTS,
        "pending": _SLOTS,
        "deferred": _SLOTS,
        "task_results": st.dictionaries(
            st.sampled_from(_TASKS),
            _VALUES | st.dictionaries(st.sampled_from(["success", "available_times"]), _VALUES, max_size=2),
            max_size=2,
        ),
        "_retries": st.dictionaries(
            st.sampled_from([*_TASKS, *(f"slot:{n}" for n in _NAMES), "readback"]), _COUNT, max_size=3
        ),
        "_slot_errors": st.lists(
            st.fixed_dictionaries(
                {"slot": st.sampled_from(_NAMES)}, optional={"code": st.none() | st.sampled_from(["x"])}
            ),
            max_size=2,
        ),
        "_last_state": st.fixed_dictionaries({}, optional={"filled": _SLOTS | st.none(), "pending": _SLOTS}),
        "_steer_back_turns": _COUNT,
        "_task_just_completed": st.sampled_from(_TASKS),
        "_readback_transition": st.booleans(),
        "_auto_confirm_pending": st.booleans(),
        "_inline_confirm": st.booleans(),
        "_rejection_requested": st.booleans(),
        "_rejection_snapshot": _SLOTS,
        "_hard_steer_yielded": st.booleans(),
        "_promoted_from_deferred": st.lists(st.sampled_from(_NAMES), max_size=2),
        "status": st.sampled_from(["in_progress", "complete", "escalated"]),
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sm=_STATE,
    text=st.sampled_from(["", "yes", "Yes, also my wife is vegan", "hm", "yes but 6"]),
    event=st.none() | st.dictionaries(st.sampled_from(["party_size", "x"]), _VALUES, max_size=1),
    tool=st.sampled_from(sorted({*BELLA.setter_slots, *BELLA.executor_tasks, "unknown_tool"})),
    result=_VALUES | st.dictionaries(st.sampled_from(["stored", "value", "error", "success"]), _VALUES),
)
def test_inconsistent_states_never_crash_mutate_or_vary(
    sm: dict[str, Any], text: str, event: dict[str, Any] | None, tool: str, result: Any
) -> None:
    before = copy.deepcopy(sm)
    first = run_engine(BELLA, sm, last_user_text=text, event_data=event, debug=True)
    again = run_engine(BELLA, sm, last_user_text=text, event_data=event, debug=True)
    assert sm == before
    assert (first.sm, first.action, first.debug_log) == (again.sm, again.action, again.debug_log)
    routed = after_tool(sm, BELLA, tool, {"party_size": 4}, result)
    begin_turn(BELLA, sm)
    assert sm == before
    run_engine(BELLA, routed)


# The engine's entry checks the state and copies it: a state it accepts comes back equal, the input is never
# mutated, and every dict the engine writes into is the copy's own.
_ENTRY_KEYS = (
    *KEYS, "_invocation_count", "_promoted_from_deferred", "_parallel_completed", "_candidates", "_held",
    "_changes", "_debug_log", "unknown_key",
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(sm=st.dictionaries(st.sampled_from(_ENTRY_KEYS), JSON | _COUNT, max_size=7))
def test_the_entry_copy_owns_what_the_engine_writes(sm: dict[str, Any]) -> None:
    from slotgraph.engine.state import DICT_KEYS, checked_copy, validate_state

    try:
        validate_state(sm)
    except EngineStateError:
        with pytest.raises(EngineStateError):
            checked_copy(sm)
        return
    before = copy.deepcopy(sm)
    out = checked_copy(sm)
    assert out == sm
    assert sm == before  # the input is never mutated
    for key in DICT_KEYS:
        if out.get(key) is not None:
            assert out[key] is not sm[key], key
