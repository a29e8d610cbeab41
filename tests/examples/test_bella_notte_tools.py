"""The Bella Notte tools: setters are pure validators with the spec's error codes; executors are
deterministic simulations with a failure knob read at call time."""

from __future__ import annotations

import datetime
import inspect
from pathlib import Path
from types import ModuleType

import pytest
import yaml

TODAY = datetime.date(2026, 6, 10)


# --- set_reservation_basics (multi-slot, spec §4.5) ---------------------------------------------------


@pytest.mark.parametrize(("raw", "expected"), [(1, 1), (4, 4), (12, 12), ("6", 6), (" 7 ", 7), (8.0, 8)])
def test_party_size_accepted(bella_notte_tools: ModuleType, raw: object, expected: int) -> None:
    result = bella_notte_tools.set_reservation_basics(party_size=raw, today=TODAY)
    assert result == {"stored": True, "values": {"party_size": expected}, "field_errors": {}}


@pytest.mark.parametrize("raw", [0, 13, -2, 100, "15"])
def test_party_size_out_of_range(bella_notte_tools: ModuleType, raw: object) -> None:
    result = bella_notte_tools.set_reservation_basics(party_size=raw, today=TODAY)
    assert result == {"stored": True, "values": {}, "field_errors": {"party_size": "out_of_range"}}


@pytest.mark.parametrize("raw", ["four", "", 4.5, True, [4]])
def test_party_size_parse_error(bella_notte_tools: ModuleType, raw: object) -> None:
    result = bella_notte_tools.set_reservation_basics(party_size=raw, today=TODAY)
    assert result["field_errors"] == {"party_size": "parse_error"}
    assert result["values"] == {}


@pytest.mark.parametrize("raw", ["2026-06-10", "2026-12-31", " 2027-01-02 "])
def test_date_today_or_later_accepted(bella_notte_tools: ModuleType, raw: str) -> None:
    result = bella_notte_tools.set_reservation_basics(preferred_date=raw, today=TODAY)
    assert result == {"stored": True, "values": {"preferred_date": raw.strip()}, "field_errors": {}}


def test_date_in_the_past(bella_notte_tools: ModuleType) -> None:
    result = bella_notte_tools.set_reservation_basics(preferred_date="2026-06-09", today=TODAY)
    assert result["field_errors"] == {"preferred_date": "past_date"}


@pytest.mark.parametrize("raw", ["next Friday", "06/12/2026", "2026-13-01", "2026-02-30", ""])
def test_date_invalid_format(bella_notte_tools: ModuleType, raw: str) -> None:
    result = bella_notte_tools.set_reservation_basics(preferred_date=raw, today=TODAY)
    assert result["field_errors"] == {"preferred_date": "invalid_format"}


def test_fields_are_routed_independently(bella_notte_tools: ModuleType) -> None:
    result = bella_notte_tools.set_reservation_basics(party_size=4, preferred_date="yesterday", today=TODAY)
    assert result == {
        "stored": True,
        "values": {"party_size": 4},
        "field_errors": {"preferred_date": "invalid_format"},
    }
    both = bella_notte_tools.set_reservation_basics(party_size=4, preferred_date="2026-06-17", today=TODAY)
    assert both["values"] == {"party_size": 4, "preferred_date": "2026-06-17"}


def test_no_fields_stores_nothing(bella_notte_tools: ModuleType) -> None:
    assert bella_notte_tools.set_reservation_basics() == {"stored": True, "values": {}, "field_errors": {}}


def test_today_defaults_to_the_host_date(bella_notte_tools: ModuleType) -> None:
    yesterday = (datetime.date.today() - datetime.timedelta(days=1)).isoformat()
    tomorrow = (datetime.date.today() + datetime.timedelta(days=1)).isoformat()
    assert bella_notte_tools.set_reservation_basics(preferred_date=yesterday)["field_errors"] == {
        "preferred_date": "past_date"
    }
    assert bella_notte_tools.set_reservation_basics(preferred_date=tomorrow)["values"] == {
        "preferred_date": tomorrow
    }


def test_today_is_keyword_only(bella_notte_tools: ModuleType) -> None:
    parameter = inspect.signature(bella_notte_tools.set_reservation_basics).parameters["today"]
    assert parameter.kind is inspect.Parameter.KEYWORD_ONLY


# --- set_guest_info (multi-slot) -----------------------------------------------------------------------


def test_guest_info_both_fields(bella_notte_tools: ModuleType) -> None:
    result = bella_notte_tools.set_guest_info(guest_name="  Sarah   Chen ", special_requests="window seat")
    assert result == {
        "stored": True,
        "values": {"guest_name": "Sarah Chen", "special_requests": "window seat"},
        "field_errors": {},
    }


def test_guest_info_one_field_at_a_time(bella_notte_tools: ModuleType) -> None:
    assert bella_notte_tools.set_guest_info(guest_name="Chen")["values"] == {"guest_name": "Chen"}
    assert bella_notte_tools.set_guest_info(special_requests="None")["values"] == {"special_requests": "None"}


@pytest.mark.parametrize("raw", ["", "  ", "none", "No", "n/a"])
def test_no_special_requests_normalised_to_none(bella_notte_tools: ModuleType, raw: str) -> None:
    assert bella_notte_tools.set_guest_info(special_requests=raw)["values"] == {"special_requests": "None"}


def test_blank_guest_name_is_a_parse_error(bella_notte_tools: ModuleType) -> None:
    result = bella_notte_tools.set_guest_info(guest_name="   ", special_requests="high chair")
    assert result == {
        "stored": True,
        "values": {"special_requests": "high chair"},
        "field_errors": {"guest_name": "parse_error"},
    }


# --- single-slot setters -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("555-0100", "5550100"), ("(415) 555-0100", "4155550100"), ("+39 06 1234 5678", "+390612345678")],
)
def test_phone_accepted(bella_notte_tools: ModuleType, raw: str, expected: str) -> None:
    assert bella_notte_tools.set_large_party_phone(raw) == {"stored": True, "value": expected}


@pytest.mark.parametrize("raw", ["12345", "call me", "555-0100 ext 2", "+1 2345 6789 0123 4567", ""])
def test_phone_invalid(bella_notte_tools: ModuleType, raw: str) -> None:
    assert bella_notte_tools.set_large_party_phone(raw) == {"error": True, "error_code": "invalid_phone"}


@pytest.mark.parametrize(("raw", "expected"), [("19:30", "19:30"), ("7:05", "07:05"), (" 20:00 ", "20:00")])
def test_time_accepted(bella_notte_tools: ModuleType, raw: str, expected: str) -> None:
    assert bella_notte_tools.set_selected_time(raw) == {"stored": True, "value": expected}


@pytest.mark.parametrize("raw", ["7:30 PM", "25:00", "19:61", "1930", "seven", ""])
def test_time_invalid_format(bella_notte_tools: ModuleType, raw: str) -> None:
    assert bella_notte_tools.set_selected_time(raw) == {"error": True, "error_code": "invalid_format"}


# --- executors -----------------------------------------------------------------------------------------


def test_available_times_are_deterministic(bella_notte_tools: ModuleType) -> None:
    first = bella_notte_tools.find_available_times(party_size=4, preferred_date="2026-06-17")
    second = bella_notte_tools.find_available_times(party_size=4, preferred_date="2026-06-17")
    assert first == second
    assert first["success"] is True
    times = first["available_times"].split(", ")
    assert len(times) == len(bella_notte_tools.SERVICE_TIMES) - 1
    assert all(bella_notte_tools.set_selected_time(t)["value"] == t for t in times)


def test_availability_depends_on_the_date(bella_notte_tools: ModuleType) -> None:
    a = bella_notte_tools.find_available_times(party_size=2, preferred_date="2026-06-17")
    b = bella_notte_tools.find_available_times(party_size=2, preferred_date="2026-06-18")
    assert a["available_times"] != b["available_times"]


def test_large_parties_get_fewer_times(bella_notte_tools: ModuleType) -> None:
    small = bella_notte_tools.find_available_times(party_size=4, preferred_date="2026-06-17")
    large = bella_notte_tools.find_available_times(party_size=5, preferred_date="2026-06-17")
    small_times = small["available_times"].split(", ")
    large_times = large["available_times"].split(", ")
    assert 0 < len(large_times) < len(small_times)
    assert set(large_times) <= set(small_times)


def test_the_25th_is_fully_booked(bella_notte_tools: ModuleType) -> None:
    result = bella_notte_tools.find_available_times(party_size=2, preferred_date="2026-07-25")
    assert result == {"success": False, "reason": "fully booked"}


def test_availability_with_bad_input_fails_cleanly(bella_notte_tools: ModuleType) -> None:
    assert bella_notte_tools.find_available_times(party_size=2, preferred_date="soon")["success"] is False
    assert (
        bella_notte_tools.find_available_times(party_size="x", preferred_date="2026-06-17")["success"]
        is False
    )


def _booking(**overrides: object) -> dict[str, object]:
    booking: dict[str, object] = {
        "party_size": 4,
        "preferred_date": "2026-06-17",
        "selected_time": "20:30",
        "guest_name": "Chen",
        "special_requests": "None",
    }
    booking.update(overrides)
    return booking


def test_confirmation_number_is_a_stable_hash(bella_notte_tools: ModuleType) -> None:
    first = bella_notte_tools.book_reservation(**_booking())
    assert first == bella_notte_tools.book_reservation(**_booking())
    assert first["success"] is True
    number = first["confirmation_number"]
    assert number.startswith("BN-") and len(number) == 9
    assert number == "BN-" + number[3:].upper()
    other = bella_notte_tools.book_reservation(**_booking(guest_name="Rossi"))
    assert other["confirmation_number"] != number
    with_phone = bella_notte_tools.book_reservation(**_booking(party_size=6, large_party_phone="5550100"))
    assert with_phone["success"] is True


def test_end_session(bella_notte_tools: ModuleType) -> None:
    assert bella_notte_tools.end_session() == {
        "ended": True,
        "reason": "",
        "session_escalated": False,
        "note": "",
    }
    escalated = bella_notte_tools.end_session(reason="retry_exhausted", session_escalated=True, note="Chen")
    assert escalated == {
        "ended": True,
        "reason": "retry_exhausted",
        "session_escalated": True,
        "note": "Chen",
    }


# --- the failure knob ----------------------------------------------------------------------------------


def test_failure_knob_is_read_at_call_time(
    bella_notte_tools: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BELLA_NOTTE_FAIL", "book_reservation")
    failed = bella_notte_tools.book_reservation(**_booking())
    assert failed["success"] is False and "BELLA_NOTTE_FAIL" in failed["reason"]
    assert (
        bella_notte_tools.find_available_times(party_size=2, preferred_date="2026-06-17")["success"] is True
    )

    monkeypatch.setenv("BELLA_NOTTE_FAIL", "find_available_times, book_reservation")
    assert (
        bella_notte_tools.find_available_times(party_size=2, preferred_date="2026-06-17")["success"] is False
    )
    assert bella_notte_tools.book_reservation(**_booking())["success"] is False

    monkeypatch.delenv("BELLA_NOTTE_FAIL")
    assert bella_notte_tools.book_reservation(**_booking())["success"] is True


def test_failure_knob_matches_whole_names(
    bella_notte_tools: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BELLA_NOTTE_FAIL", "book")
    assert bella_notte_tools.book_reservation(**_booking())["success"] is True


# --- tools and config agree ----------------------------------------------------------------------------


def _dag(bella_notte_dir: Path) -> dict[str, object]:
    data = yaml.safe_load((bella_notte_dir / "dag.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_every_tool_named_in_the_dag_exists(bella_notte_tools: ModuleType, bella_notte_dir: Path) -> None:
    dag = _dag(bella_notte_dir)
    names = {slot["setter"] for slot in dag["slots"] if slot.get("setter")}  # type: ignore[attr-defined]
    names |= {task["tool"] for task in dag["tasks"]}  # type: ignore[attr-defined]
    names.add(dag["steer_back"]["on_exhaust"]["then"]["tool"])  # type: ignore[index]
    for name in names:
        assert callable(getattr(bella_notte_tools, name)), name


def test_multi_slot_setter_fields_match_the_config(
    bella_notte_tools: ModuleType, bella_notte_dir: Path
) -> None:
    for slot in _dag(bella_notte_dir)["slots"]:  # type: ignore[attr-defined]
        if slot.get("setter_field"):
            parameters = inspect.signature(getattr(bella_notte_tools, slot["setter"])).parameters
            assert slot["setter_field"] in parameters
            assert slot["setter_field"] == slot["name"]


def test_task_inputs_are_executor_parameters(bella_notte_tools: ModuleType, bella_notte_dir: Path) -> None:
    for task in _dag(bella_notte_dir)["tasks"]:  # type: ignore[attr-defined]
        parameters = inspect.signature(getattr(bella_notte_tools, task["tool"])).parameters
        assert set(task["inputs"]) <= set(parameters), task["name"]


def test_every_setter_error_code_has_a_message(bella_notte_dir: Path) -> None:
    emitted = {
        "party_size": {"out_of_range", "parse_error"},
        "preferred_date": {"past_date", "invalid_format"},
        "large_party_phone": {"invalid_phone"},
        "selected_time": {"invalid_format", "not_available", "prereq_not_met"},
        "guest_name": {"parse_error"},
    }
    slots = {slot["name"]: slot for slot in _dag(bella_notte_dir)["slots"]}  # type: ignore[attr-defined]
    for name, codes in emitted.items():
        assert codes <= set(slots[name]["validation"]["errors"]), name
