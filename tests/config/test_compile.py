"""compile_config: the spec's examples and a full Bella Notte-like config compile into the engine's values."""

from __future__ import annotations

import copy
import threading
from typing import Any

import pytest

from slotgraph.config import (
    CompiledDag,
    ConfigValidationError,
    DagConfig,
    ExhaustCall,
    SteerBack,
    compile_config,
    config_fingerprint,
    load_dag,
)

from .dags import SPEC_STEER_BACK, bella_dag, spec_dag


def test_spec_examples_load_unchanged() -> None:
    raw = spec_dag()
    before = copy.deepcopy(raw)
    config = load_dag(raw)
    assert raw == before
    assert [s.name for s in config.slots] == [s["name"] for s in raw["slots"]]
    assert config.steer_back is not None and config.steer_back.escalate_after == 6
    compiled = compile_config(raw)
    assert compiled.steer_back.on_exhaust is not None
    assert compiled.steer_back.on_exhaust.then == ExhaustCall(
        "end_session", {"reason": "retry_exhausted", "session_escalated": True}
    )
    check = compiled.task("CheckAvailability")
    assert check.on_failure is not None and check.on_failure.clear_slots == ("date",)
    assert check.on_failure.on_exhaust is not None
    assert check.on_failure.on_exhaust.then == ExhaustCall("escalate", {})


def test_sources_event_key_and_preempt_defaults() -> None:
    compiled = compile_config(bella_dag())
    assert compiled.slot("party_size").sources == ("event", "user")
    assert compiled.slot("party_size").event_key == "guests"
    assert compiled.slot("date").event_key == "date"
    assert compiled.slot("date").sources == ("user",)
    assert compiled.slot("available_times").task_source == "FindAvailableTimes"
    assert compiled.slot("welcome").preempt is False
    assert compiled.slot("terms").preempt is True


def test_lookup_tables() -> None:
    compiled = compile_config(bella_dag())
    assert compiled.setter_slots["set_reservation_basics"] == ("party_size", "date")
    assert compiled.setter_slots["set_time"] == ("time",)
    assert dict(compiled.multi_setter_slots["set_reservation_basics"]) == {
        "party_size": "party_size",
        "date": "date",
    }
    assert "set_time" not in compiled.multi_setter_slots
    assert dict(compiled.executor_tasks) == {
        "find_available_times": "FindAvailableTimes",
        "book_reservation": "BookReservation",
    }
    assert list(compiled.slot_by_name) == [s["name"] for s in bella_dag()["slots"]]
    assert list(compiled.task_by_name) == ["FindAvailableTimes", "BookReservation"]
    assert compiled.gate_slot == "party_size"
    assert compiled.config_id == "bella_notte"
    assert compiled.confirm_transition_prefixes == ("Wonderful!", "Perfect!", "Great!")


def test_confirm_transition_prefix_string_becomes_tuple() -> None:
    raw = spec_dag() | {"confirm_transition_prefix": "Great!"}
    assert compile_config(raw).confirm_transition_prefixes == ("Great!",)
    assert compile_config(spec_dag()).confirm_transition_prefixes == ()


def test_steer_back_defaults() -> None:
    raw = spec_dag()
    del raw["steer_back"]
    assert compile_config(raw).steer_back == SteerBack(2, 4, 6, None)
    raw["steer_back"] = {"soft_after": 3}
    assert compile_config(raw).steer_back == SteerBack(3, 4, 6, None)


def test_conditions_both_dialects() -> None:
    compiled = compile_config(bella_dag())
    phone = compiled.slot("contact_phone")
    assert phone.condition is not None
    assert phone.is_active({"party_size": "6"})
    assert not phone.is_active({"party_size": 2})
    assert not phone.is_active({})
    active, error = phone.condition.check({"party_size": "many"})
    assert active is False and error is not None
    requests = compiled.slot("special_requests")
    assert requests.is_active({"party_size": 2})
    assert not requests.is_active({"party_size": 0})
    assert compiled.slot("date").is_active({})


def test_formatters_compiled() -> None:
    compiled = compile_config(bella_dag())
    assert compiled.slot("party_size").formatter(1) == "1 guest"
    assert compiled.slot("date").formatter("2026-07-04") == "on July 4th"
    assert compiled.slot("time").formatter("19:30") == "at 7:30 PM"
    assert compiled.slot("guest_name").formatter("Chen") == "under the name Chen"
    assert compiled.slot("special_requests").formatter("None") == "no special requests"
    assert compiled.slot("contact_phone").formatter("555") == "phone 555"
    assert compiled.slot("welcome").formatter(True) == "yes"


def test_responses_by_location() -> None:
    compiled = compile_config(bella_dag())
    requests = compiled.slot("special_requests").responses
    assert requests.resolve(None) == ({"type": "text", "text": "Any special requests?"},)
    assert requests.resolve("MOBILE") == ({"type": "payload", "data": {"buttons": ["None"]}},)
    assert requests.resolve("WEB") == requests.default
    assert compiled.slot("date").responses.empty

    validation = compiled.slot("party_size").validation
    assert validation is not None and validation.max_retries == 3
    assert validation.errors["out_of_range"] == "We accept parties of 1 to 8."
    errors = validation.error_responses["out_of_range"]
    assert errors.resolve(None) == ({"type": "text", "text": "1 to 8 guests, please."},)
    assert errors.resolve("MOBILE") == ({"type": "payload", "data": {"max": 8}},)
    assert validation.on_exhaust is not None and validation.on_exhaust.then == ExhaustCall("end_session", {})

    find = compiled.task("FindAvailableTimes")
    assert find.on_failure is not None
    assert find.on_failure.retry_responses.resolve("MOBILE") == ({"type": "text", "text": "No tables."},)
    assert find.on_failure.retry_responses.resolve(None) == (
        {"type": "text", "text": "Nothing free on {date}."},
    )
    exhaust = find.on_failure.on_exhaust
    assert exhaust is not None
    assert exhaust.then == ExhaustCall("end_session", {"reason": "no_availability", "party": "{party_size}"})
    assert exhaust.responses.resolve(None) == ({"type": "end_session", "reason": "escalated"},)
    assert exhaust.responses.resolve("MOBILE") == ({"type": "transfer", "target": "human"},)

    book = compiled.task("BookReservation")
    assert book.terminal and book.requires == ("terms",)
    assert dict(book.outputs) == {"confirmation_number": "confirmation"}
    assert book.then_responses.resolve(None) is not None and len(book.then_responses.resolve(None) or ()) == 2
    assert book.then_responses.resolve("MOBILE") == ({"type": "payload", "data": {"id": "{confirmation}"}},)


def test_validate_against_compiled() -> None:
    against = compile_config(bella_dag()).slot("time").validate_against
    assert against is not None
    assert (against.response_field, against.filled_slot, against.error_code) == (
        "value",
        "available_times",
        "not_available",
    )


def test_fingerprint_is_content_hash_and_cache_by_content() -> None:
    first = compile_config(bella_dag())
    second = compile_config(bella_dag())
    assert first is second
    assert first.fingerprint == config_fingerprint(bella_dag())
    assert len(first.fingerprint) == 64
    changed = bella_dag()
    changed["slots"][1]["ask"] = "How many people?"
    other = compile_config(changed)
    assert other is not first and other.fingerprint != first.fingerprint


def test_key_order_does_not_change_fingerprint() -> None:
    raw = spec_dag()
    reordered = {"steer_back": raw["steer_back"], "tasks": raw["tasks"], "slots": raw["slots"]}
    assert config_fingerprint(raw) == config_fingerprint(reordered)


def test_compile_accepts_dag_config() -> None:
    config = DagConfig.model_validate(bella_dag())
    compiled = compile_config(config)
    assert isinstance(compiled, CompiledDag)
    assert compiled.slot("party_size").formatter(4) == "4 guests"


def test_compile_raises_with_every_error() -> None:
    raw: dict[str, Any] = spec_dag()
    raw["tasks"][0]["inputs"] = ["num_guests", "dat"]
    raw["slots"][0]["source"] = "users"
    with pytest.raises(ConfigValidationError) as info:
        compile_config(raw)
    codes = {(i.code, i.location) for i in info.value.issues}
    assert ("unknown_slot", "tasks[0].inputs[1]") in codes
    assert ("unknown_source", "slots[0].source") in codes
    text = str(info.value)
    assert "tasks[0].inputs[1]: unknown slot 'dat' (did you mean 'date'?)" in text
    assert info.value.code == "invalid_config"


def test_compiled_values_are_immutable() -> None:
    compiled = compile_config(bella_dag())
    with pytest.raises(TypeError):
        compiled.slot_by_name["x"] = compiled.slot("date")  # type: ignore[index]
    with pytest.raises(AttributeError):
        compiled.slots[0].name = "other"  # type: ignore[misc]


def test_concurrent_compiles_agree() -> None:
    results: list[CompiledDag] = []
    lock = threading.Lock()

    def work() -> None:
        compiled = compile_config(spec_dag() | {"config_id": "threaded"})
        with lock:
            results.append(compiled)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({r.fingerprint for r in results}) == 1


def test_spec_steer_back_block_alone() -> None:
    raw = {"slots": [], "tasks": [], "steer_back": SPEC_STEER_BACK}
    assert compile_config(raw).steer_back.escalate_after == 6


def test_cache_is_bounded_lru() -> None:
    from slotgraph.config.compile import CACHE_SIZE, clear_compile_cache

    clear_compile_cache()
    first = compile_config(spec_dag() | {"config_id": "lru-0"})
    assert compile_config(spec_dag() | {"config_id": "lru-0"}) is first
    for n in range(1, CACHE_SIZE + 1):
        compile_config(spec_dag() | {"config_id": f"lru-{n}"})
    again = compile_config(spec_dag() | {"config_id": "lru-0"})
    assert again is not first and again.fingerprint == first.fingerprint
