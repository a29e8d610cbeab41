"""The engine's guarantees over random conversations on the Bella Notte DAG, which uses every lifted limit:
early answers (``selected_time``), changes of confirmed values (``changeable: true``), held values (the time
after a party-size or date change), partial confirmations. The simulated guest answers any visible setter
with a plausible value at any moment — including changes after confirmation — and the backend is the
example's own deterministic one. After every invocation the checks of ``test_properties`` run (completeness
of every fire, no fire while an input changes, no slot asked while a value for it waits, retry bounds,
terminal states absorbing, determinism, no mutation)."""

from __future__ import annotations

import copy
import datetime
import importlib.util
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from tests.engine.bella import BELLA_DAG, bella_dag
from tests.engine.test_properties import check_invocation

from slotgraph.engine import after_tool, begin_turn, confirm_pending, reject_pending

_SPEC = importlib.util.spec_from_file_location("bella_tools", BELLA_DAG.parent / "tools.py")
assert _SPEC is not None and _SPEC.loader is not None
TOOLS = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(TOOLS)

TEXTS = ("", "yes", "no", "Yes, and one more thing", "hello")
ANSWERS: dict[str, Any] = {
    "set_reservation_basics": st.fixed_dictionaries(
        {},
        optional={
            "party_size": st.integers(1, 8),
            "preferred_date": st.sampled_from(["2026-07-16", "2026-07-17"]),
        },
    ),
    "set_selected_time": st.fixed_dictionaries(
        {"time": st.sampled_from(["18:00", "19:00", "20:30", "21:00"])}
    ),
    "set_guest_info": st.fixed_dictionaries(
        {}, optional={"guest_name": st.sampled_from(["Chen", "Lee"]), "special_requests": st.just("none")}
    ),
    "set_large_party_phone": st.fixed_dictionaries({"phone": st.just("555 0100 222")}),
}


TODAY = datetime.date(2026, 7, 10)


def _setter_result(tool: str, args: dict[str, Any]) -> Any:
    if tool == "set_reservation_basics":
        return TOOLS.set_reservation_basics(**args, today=TODAY)
    return getattr(TOOLS, tool)(**args)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_guarantees_hold_on_bella_notte_with_changes_and_early_answers(data: st.DataObject) -> None:
    dag = bella_dag()
    sm: dict[str, Any] = {}

    def invoke(text: str) -> dict[str, Any]:
        nonlocal sm
        sm, action = check_invocation(dag, sm, text)
        for key in ("_candidates", "_changes", "_held"):
            if sm.get(key):
                event(f"bella uses {key}")
        return action

    for _ in range(data.draw(st.integers(1, 16), label="turns")):
        sm = begin_turn(dag, sm)
        action = invoke(data.draw(st.sampled_from(TEXTS), label="user"))
        for _step in range(6):
            call = action["function_call"]
            if call is not None:
                if call["name"] == "confirm_pending":
                    sm = confirm_pending(sm, dag)
                elif call["name"] in dag.executor_tasks:
                    for each in (call, *action.get("parallel_calls", ())):
                        result = getattr(TOOLS, each["name"])(**each["args"])
                        sm = after_tool(sm, dag, each["name"], each["args"], result)
                else:
                    break  # end_session: the host hands over
                action = invoke("")
                continue
            if action["preempt"] or sm["status"] != "in_progress":
                break
            visible = sorted({*ANSWERS, "confirm_pending", "reject_pending"} - set(action["hide_tools"]))
            if not visible:
                break
            chosen = data.draw(st.lists(st.sampled_from(visible), unique=True, max_size=2), label="calls")
            if not chosen:
                break
            for tool in chosen:
                if tool == "confirm_pending":
                    sm = confirm_pending(sm, dag)
                elif tool == "reject_pending":
                    sm = reject_pending(sm)
                else:
                    args = data.draw(ANSWERS[tool], label=tool)
                    before = copy.deepcopy(sm)
                    new_sm = after_tool(sm, dag, tool, args, _setter_result(tool, args))
                    assert sm == before, "routing mutated its input"
                    sm = new_sm
            action = invoke("")
