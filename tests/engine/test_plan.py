"""The engine's per-config plan (``slotgraph.engine.plan``): built once per compiled DAG, kept with it, never
part of its equality, and the same views the engine used to derive from the config on every invocation."""

from __future__ import annotations

from typing import Any

from slotgraph.config import compile_config
from slotgraph.engine import Announce, Ask, compute_hidden_tools, run_engine
from slotgraph.engine.plan import plan_of, readback_order

from .bella import bella_dag

BOOTSTRAP_CONFIG: dict[str, Any] = {
    "slots": [
        {"name": "active_flow", "setter": "set_active_flow", "ask": "Which flow?"},
        {"name": "welcome", "source": "announce", "message": "Hi"},
        {"name": "party_size", "setter": "set_party", "ask": "How many?", "requires_readback": True},
        {"name": "done_number", "source": "task:Book"},
    ],
    "tasks": [{"name": "Book", "tool": "book", "inputs": ["party_size"], "outputs": {"n": "done_number"}}],
    "bootstrap": {"tool": "set_active_flow", "slot": "active_flow"},
}


def test_the_plan_is_built_once_and_kept_with_the_dag() -> None:
    dag = bella_dag()
    assert plan_of(dag) is plan_of(dag)


def test_a_plan_never_changes_the_dags_equality() -> None:
    planned = bella_dag()
    plan_of(planned)
    unplanned = planned.replace(derived={})
    assert planned.derived and not unplanned.derived
    assert planned == unplanned and repr(planned) == repr(unplanned)


def test_the_views_follow_the_config() -> None:
    dag = compile_config(BOOTSTRAP_CONFIG)
    plan = plan_of(dag)
    assert [(slot.name, decision) for slot, decision in plan.askable] == [
        ("active_flow", Ask(slot="active_flow")),
        ("welcome", Announce(slot="welcome")),
        ("party_size", Ask(slot="party_size")),
    ]
    assert [slot.name for slot in plan.user_slots] == ["active_flow", "party_size"]
    # the bootstrap tool is never hidden and executors always are: neither depends on its slots
    setters = [(tool, [slot.name for slot in slots]) for tool, slots in plan.setters]
    assert setters == [("set_party", ["party_size"])]
    assert plan.executor_tools == {"book"}
    assert plan.all_tools == ("book", "confirm_pending", "reject_pending", "set_party")


def test_readback_order_is_declaration_order_then_unknown_names_sorted() -> None:
    plan = plan_of(bella_dag())
    pending = {"zeta": 1, "guest_name": "Chen", "alpha": 2, "party_size": 4}
    assert readback_order(plan, pending) == ("party_size", "guest_name", "alpha", "zeta")


def test_the_bootstrap_tool_stays_visible_and_the_executor_hidden() -> None:
    dag = compile_config(BOOTSTRAP_CONFIG)
    hidden = compute_hidden_tools(dag, {}, {}, {}, fresh_pending=False)
    assert hidden == ["book", "confirm_pending", "reject_pending"]
    everything = compute_hidden_tools(dag, {}, {}, {}, fresh_pending=False, terminal=True)
    assert everything == ["book", "confirm_pending", "reject_pending", "set_party"]


def test_the_plan_knows_whether_any_task_defers_its_inputs() -> None:
    assert not plan_of(compile_config(BOOTSTRAP_CONFIG)).defers
    grouped = {**BOOTSTRAP_CONFIG, "tasks": [{**BOOTSTRAP_CONFIG["tasks"][0], "readback_inputs": True}]}
    assert plan_of(compile_config(grouped)).defers


def test_without_deferring_tasks_a_stale_promotion_list_is_still_dropped() -> None:
    # deferred routing is skipped for a config that cannot defer, but the promotion list it maintains
    # keeps only names still pending, as before
    dag = compile_config(BOOTSTRAP_CONFIG)
    sm = {"filled": {"active_flow": "book", "welcome": True}, "_promoted_from_deferred": ["party_size"]}
    assert "_promoted_from_deferred" not in run_engine(dag, sm).sm
    sm = {**sm, "pending": {"party_size": 4}, "_last_state": {"pending": {"party_size": 4}}}
    assert run_engine(dag, sm).sm["_promoted_from_deferred"] == ["party_size"]
