"""Tool visibility (§4.1–4.5, §7.5, §9.6)."""

from __future__ import annotations

from typing import Any

from slotgraph.config import CompiledDag, compile_config
from slotgraph.engine import compute_hidden_tools

from .toy import toy_dag

Row = dict[str, Any]
ALL = {
    "check_availability",
    "confirm_pending",
    "make_reservation",
    "reject_pending",
    "set_chosen_time",
    "set_date",
    "set_name",
    "set_num_guests",
}


def visible(
    dag: CompiledDag, filled: Row, pending: Row, *, fresh: bool = False, deferred: Row | None = None
) -> set[str]:
    hidden = compute_hidden_tools(dag, filled, pending, deferred or {}, fresh_pending=fresh)
    assert hidden == sorted(hidden)
    assert set(hidden) <= ALL | {"set_reservation_basics", "set_phone", "t"}
    return ALL - set(hidden)


def test_outside_readback_42() -> None:
    dag = toy_dag()
    assert visible(dag, {}, {}) == {"set_num_guests", "set_date", "set_name"}
    assert visible(dag, {"num_guests": 4}, {}) == {"set_date", "set_name"}
    assert visible(dag, {"num_guests": 4, "date": "d", "open_slots": "x"}, {}) == {
        "set_chosen_time",
        "set_name",
    }


def test_during_readback_41() -> None:
    dag = toy_dag()
    got = visible(dag, {"num_guests": 4}, {"date": "d"})
    assert got == {"confirm_pending", "reject_pending", "set_date", "set_name"}


def test_fresh_pending_43_hides_confirm_reject_and_pending_setters() -> None:
    dag = toy_dag()
    assert visible(dag, {"num_guests": 4}, {"date": "d"}, fresh=True) == {"set_name"}


def test_executors_always_hidden_even_when_ready() -> None:
    dag = toy_dag()
    got = visible(dag, {"num_guests": 4, "date": "d"}, {})
    assert "check_availability" not in got and "make_reservation" not in got


def test_terminal_hides_every_config_tool() -> None:
    dag = toy_dag()
    assert compute_hidden_tools(dag, {}, {}, {}, fresh_pending=False, terminal=True) == sorted(ALL)


def test_inactive_and_multi_slot_setters_45() -> None:
    dag = compile_config(
        {
            "slots": [
                {"name": "size", "setter": "set_reservation_basics", "setter_field": "size"},
                {"name": "day", "setter": "set_reservation_basics", "setter_field": "day"},
                {
                    "name": "phone",
                    "setter": "set_phone",
                    "condition": "lambda filled: int(filled.get('size', 0)) >= 5",
                },
            ]
        }
    )

    def vis(filled: Row, pending: Row, fresh: bool = False) -> set[str]:
        hidden = compute_hidden_tools(dag, filled, pending, {}, fresh_pending=fresh)
        return {"set_reservation_basics", "set_phone"} - set(hidden)

    assert vis({}, {}) == {"set_reservation_basics"}  # phone inactive
    assert vis({"size": 6}, {}) == {"set_reservation_basics", "set_phone"}  # day still needed
    assert vis({"size": 6, "day": "d"}, {}) == {"set_phone"}  # all mapped slots filled
    assert vis({"size": 2}, {"day": "d"}, fresh=True) == set()  # filled + fresh-pending
    assert vis({"size": 2}, {"day": "d"}) == {"set_reservation_basics"}  # inline correction
