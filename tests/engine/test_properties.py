"""The guarantees of §9, as properties over random DAGs and random conversations.

A config generator builds random slot/task DAGs (acyclic ``requires``, random readback flags, conditions from
a small set, random ``max_retries`` and ``clear_slots``); a tiny simulated host then drives random user turns,
random setter calls (valid or erroring), the readback tools, and every engine ``function_call`` with a random
success/failure result. After every engine invocation the guarantees are checked:

* completeness (§9.2): a fired task has every active input and require filled, and gets exactly those inputs;
* retry bound (§9.4): no task or slot counts more failures than its ``max_retries``; reaching it escalates;
* no corruption (§9.6): executors are always hidden, confirm/reject are hidden with nothing pending, a setter
  whose slots are all filled is hidden;
* terminal (§9.5): ``complete``/``escalated`` are absorbing, and a terminal invocation changes nothing;
* beyond the spec's limits (``changeable``, ``accept_early``, ``readback_together``, ``parallel``,
  docs/engine.md): no task fires while one of its inputs is being changed, no slot is asked while an early
  answer or a held value for it waits, and a parallel fire holds only opted-in, non-terminal tasks that do
  not read each other's outputs, each complete (§9.2);
* idempotency (§9.3): the same inputs give the same outputs; no entry point mutates its input state.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from tests.engine.spec_view import run_engine

from slotgraph.config import CompiledDag, compile_config
from slotgraph.engine import after_tool, begin_turn, confirm_pending, reject_pending

pytestmark = pytest.mark.slow  # a plain `pytest` skips it; `make test` and CI run it

CONDITIONS = (
    None,
    "lambda filled: int(filled.get('u0', 0)) >= 5",
    "lambda filled: filled.get('u0') != 3",
)
TEXTS = ("", "yes", "Yes please", "no", "4", "Yes, and also a window table", "hello there", "actually 7")


@st.composite
def configs(draw: st.DrawFn) -> dict[str, Any]:
    n_user = draw(st.integers(2, 5))
    slots: list[dict[str, Any]] = []
    for i in range(n_user):
        slot: dict[str, Any] = {"name": f"u{i}", "setter": f"set_u{i}", "ask": f"Value {i}?"}
        earlier = [f"u{k}" for k in range(i)]
        requires = draw(st.lists(st.sampled_from(earlier), unique=True, max_size=2)) if earlier else []
        if requires:
            slot["requires"] = requires
            if draw(st.booleans()):
                slot["accept_early"] = True  # early answers: kept as candidates
        if draw(st.booleans()):
            slot["requires_readback"] = True
        condition = draw(st.sampled_from(CONDITIONS)) if i > 0 else None
        if condition:
            slot["condition"] = condition
        if draw(st.booleans()):
            slot["validation"] = {
                "max_retries": draw(st.integers(1, 3)),
                "errors": {"bad": f"Bad value {i}."},
            }
        slots.append(slot)
    tasks: list[dict[str, Any]] = []
    n_tasks = draw(st.integers(1, 3))
    user_names = [f"u{i}" for i in range(n_user)]
    for j in range(n_tasks):
        inputs = draw(st.lists(st.sampled_from(user_names), unique=True, min_size=1, max_size=3))
        task: dict[str, Any] = {
            "name": f"T{j}",
            "tool": f"t{j}",
            "inputs": inputs,
            "outputs": {"o": f"o{j}"},
            "success_check": "ok",
            "then_say": f"Task {j} done.",
        }
        if j == n_tasks - 1 and draw(st.booleans()):
            task["terminal"] = True
        if draw(st.booleans()):
            task["parallel"] = True
        if draw(st.integers(0, 3)) == 0:
            task["readback_inputs"] = True
            task["readback_together"] = draw(st.booleans())
        if draw(st.booleans()):
            task["on_failure"] = {
                "retry_say": f"Retrying {j}.",
                "max_retries": draw(st.integers(1, 3)),
                "clear_slots": draw(st.lists(st.sampled_from(inputs), unique=True, max_size=1)),
                "on_exhaust": {"say": "Escalating.", "then": {"tool": "escalate", "args": {"v": "{u0}"}}},
            }
        if draw(st.integers(0, 4)) == 0:
            task["condition"] = CONDITIONS[1]
        tasks.append(task)
        slots.append({"name": f"o{j}", "source": f"task:T{j}"})
    if n_user > 2 and draw(st.booleans()):
        # a slot that requires a task output and is checked against it (held after a change upstream)
        slots.append(
            {
                "name": "late",
                "setter": "set_late",
                "ask": "Late?",
                "requires": ["o0"],
                "accept_early": draw(st.booleans()),
                "validate_against": {"filled_slot": "o0", "error_code": "bad"},
            }
        )
    return {"slots": slots, "tasks": tasks, "changeable": draw(st.booleans())}


def limits(dag: CompiledDag) -> dict[str, int | None]:
    out: dict[str, int | None] = {}
    for task in dag.tasks:
        out[task.name] = task.on_failure.max_retries if task.on_failure else 1
    for slot in dag.slots:
        v = slot.validation
        out[f"slot:{slot.name}"] = v.max_retries if v is not None else None
    return out


def check_invocation(
    dag: CompiledDag, sm_in: dict[str, Any], text: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    snapshot = copy.deepcopy(sm_in)
    result = run_engine(dag, sm_in, last_user_text=text)
    again = run_engine(dag, sm_in, last_user_text=text)
    assert sm_in == snapshot, "run_engine mutated its input"
    assert (result.sm, result.action) == (again.sm, again.action), "not deterministic"
    sm, action = result.sm, result.action
    hidden = set(action["hide_tools"])
    was_terminal = sm_in.get("status") in ("complete", "escalated")
    if was_terminal:
        assert sm == sm_in and sm["status"] == sm_in["status"]
        assert action["function_call"] is None
    assert set(dag.executor_tasks) <= hidden
    if not sm["pending"]:
        assert {"confirm_pending", "reject_pending"} <= hidden
    for tool, names in dag.setter_slots.items():
        changeable = any(dag.slot_by_name[n].changeable for n in names)
        if all(n in sm["filled"] for n in names) and not changeable:
            assert tool in hidden, f"{tool} visible although its slots are filled"
    if action["reason"] == "next_question" and action["function_call"] is None:
        asked = next((s for s in dag.slots if s.ask == action["message"]), None)
        waiting = {**(sm.get("_candidates") or {}), **(sm.get("_held") or {})}
        if asked is not None:
            assert asked.name not in waiting, f"{asked.name} asked although a value for it waits"
    for key, count in sm["_retries"].items():
        bound = limits(dag).get(key)
        if bound is not None:
            assert count <= bound, f"{key} failed {count} > {bound} times"
            if count == bound and not was_terminal:
                assert sm["status"] == "escalated"
    for key in ("_candidates", "_changes", "_held"):
        if sm.get(key):
            event(f"uses {key}")
    event(f"reason={action['reason']}")
    event(f"status={sm['status']}")
    fired = [action["function_call"], *action.get("parallel_calls", ())]
    if len(fired) > 1:
        names = [dag.executor_tasks[c["name"]] for c in fired]
        assert len(set(names)) == len(names), "a task fired twice in one decision"
        for name in names:
            task = dag.task_by_name[name]
            assert task.parallel and not task.terminal, f"{name} fired in parallel without opting in"
            others = [dag.task_by_name[n] for n in names if n != name]
            writes = {slot for other in others for slot in other.outputs.values()}
            assert writes.isdisjoint({*task.inputs, *task.requires}), f"{name} reads a sibling's output"
        event("parallel fire")
    for call in fired:
        check_fire(dag, sm, call)
    return sm, action


def check_fire(dag: CompiledDag, sm: dict[str, Any], call: dict[str, Any] | None) -> None:
    """Completeness of one fired task (§9.2), and no fire while one of its inputs is being changed."""
    if call is not None and call["name"] in dag.executor_tasks:
        task = dag.task_by_name[dag.executor_tasks[call["name"]]]
        filled = sm["filled"]
        changing = set(sm.get("_changes") or {})
        assert not changing & {*task.inputs, *task.requires}, f"{task.name} fired while an input changes"
        for name in (*task.inputs, *task.requires):
            active = dag.slot_by_name[name].is_active(filled)
            assert name in filled or not active, f"{task.name} fired without {name}"
        expected = {
            n: filled[n]
            for n in task.inputs
            if n in filled and dag.slot_by_name[n].is_active(filled) and not dag.slot_by_name[n].is_announce
        }
        assert call["args"] == expected


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=configs(), data=st.data())
def test_guarantees_hold_over_random_conversations(raw: dict[str, Any], data: st.DataObject) -> None:
    dag = compile_config(raw)
    sm: dict[str, Any] = {}
    terminal_status: str | None = None

    def invoke(text: str) -> dict[str, Any]:
        nonlocal sm, terminal_status
        sm, action = check_invocation(dag, sm, text)
        if terminal_status is not None:
            assert sm["status"] == terminal_status, "terminal status regressed"
        elif sm["status"] != "in_progress":
            terminal_status = sm["status"]
        return action

    def routed(new_sm: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
        assert sm == before, "routing mutated its input"
        return new_sm

    for _ in range(data.draw(st.integers(1, 14), label="turns")):
        text = data.draw(st.sampled_from(TEXTS), label="user")
        before = copy.deepcopy(sm)
        sm = routed(begin_turn(dag, sm), before)
        action = invoke(text)
        for _step in range(6):  # the host's bounded tool loop within one turn
            call = action["function_call"]
            if call is not None:
                before = copy.deepcopy(sm)
                if call["name"] == "confirm_pending":
                    sm = routed(confirm_pending(sm, dag), before)
                elif call["name"] in dag.executor_tasks:
                    # a parallel fire: every call runs on the same state, each result is routed in order
                    for each in (call, *action.get("parallel_calls", ())):
                        task = dag.task_by_name[dag.executor_tasks[each["name"]]]
                        success = data.draw(st.booleans(), label=f"{task.name} succeeds")
                        options = data.draw(st.sampled_from(["1, 2", "3"]), label="output")
                        outcome: dict[str, Any] = {"ok": success, "o": options} if success else {"ok": False}
                        if success and data.draw(st.integers(0, 5)) == 0:
                            outcome = {"ok": True}  # missing output key: a failure
                        before = copy.deepcopy(sm)
                        sm = routed(after_tool(sm, dag, each["name"], each["args"], outcome), before)
                else:
                    break  # an exhaustion call (escalate): the host hands over
                action = invoke("")
                continue
            if action["preempt"]:
                break
            visible = sorted(
                {*dag.setter_slots, "confirm_pending", "reject_pending"} - set(action["hide_tools"])
            )
            if not visible:
                break
            chosen = data.draw(
                st.lists(st.sampled_from(visible), unique=True, max_size=2), label="model calls"
            )
            if not chosen:
                break
            for tool in chosen:
                before = copy.deepcopy(sm)
                if tool == "confirm_pending":
                    sm = routed(confirm_pending(sm, dag), before)
                elif tool == "reject_pending":
                    sm = routed(reject_pending(sm), before)
                else:
                    slots = dag.setter_slots[tool]
                    value = data.draw(st.integers(0, 9), label="value")
                    if data.draw(st.integers(0, 3)) == 0:
                        result: dict[str, Any] = {"error": True, "error_code": "bad"}
                    else:
                        result = {"stored": True, "value": value}
                    sm = routed(after_tool(sm, dag, tool, {slots[0]: value}, result), before)
            action = invoke("")
