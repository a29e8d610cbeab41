"""Any malformed state gives a clear ``EngineStateError`` at the entry — never a ``KeyError`` from inside."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from slotgraph.engine import EngineStateError, after_tool, begin_turn, run_engine

from .toy import toy_dag

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
