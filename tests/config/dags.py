"""Config fixtures for the config tests: the spec's own examples and a Bella Notte-like agent."""

from __future__ import annotations

import copy
from typing import Any

# Spec §2.1 slots and §2.2 tasks, exactly as written there (Python dicts).
SPEC_SLOTS: list[dict[str, Any]] = [
    {"name": "num_guests", "source": "user", "setter": "set_num_guests",
     "ask": "How many guests?", "requires_readback": True},
    {"name": "date", "source": "user", "setter": "set_date",
     "ask": "What date works for you?", "requires_readback": True},
    {"name": "open_slots", "source": "task:CheckAvailability"},
    {"name": "chosen_time", "source": "user", "setter": "set_chosen_time",
     "requires": ["open_slots"],
     "ask": "We have {open_slots}. Which time?", "requires_readback": True},
    {"name": "name", "source": "user", "setter": "set_name",
     "ask": "What name for the reservation?", "requires_readback": True},
    {"name": "confirmation", "source": "task:MakeReservation"},
]  # fmt: skip

SPEC_TASKS: list[dict[str, Any]] = [
    {"name": "CheckAvailability",
     "tool": "check_availability",
     "inputs": ["num_guests", "date"],
     "outputs": {"open_slots": "open_slots"},
     "success_check": "success",
     "then_say": "We have {open_slots}. Which time works?",
     "on_failure": {
         "retry_say": "No availability for that date. Try another?",
         "max_retries": 1,
         "clear_slots": ["date"],
         "on_exhaust": {"say": "Please call us at 555-0100.", "then": "escalate"}
     }},
    {"name": "MakeReservation",
     "tool": "make_reservation",
     "inputs": ["num_guests", "date", "chosen_time", "name"],
     "outputs": {"confirmation": "confirmation"},
     "success_check": "success",
     "terminal": True,
     "then_say": "Confirmed! Number: {confirmation}.",
     "on_failure": {
         "retry_say": "Let me try once more.",
         "max_retries": 2,
         "on_exhaust": {"say": "Please call us directly.", "then": "escalate"}
     }},
]  # fmt: skip

SPEC_STEER_BACK: dict[str, Any] = {
    "soft_after": 2,
    "hard_after": 4,
    "escalate_after": 6,
    "on_exhaust": {
        "say": "I'm having trouble completing your reservation. "
               "Please call us at 555-0100 and we'll help you directly.",
        "then": {
            "tool": "end_session",
            "args": {"reason": "retry_exhausted", "session_escalated": True},
        },
    },
}  # fmt: skip


def spec_dag() -> dict[str, Any]:
    """A fresh deep copy: tests may mutate it."""
    return copy.deepcopy({"slots": SPEC_SLOTS, "tasks": SPEC_TASKS, "steer_back": SPEC_STEER_BACK})


def bella_dag() -> dict[str, Any]:
    """A full Bella Notte-like config exercising every feature the compiler handles."""
    return {
        "config_id": "bella_notte",
        "gate_slot": "party_size",
        "confirm_transition_prefix": ["Wonderful!", "Perfect!", "Great!"],
        "slots": [
            {"name": "welcome", "source": "announce", "preempt": False,
             "message": "Welcome to Bella Notte! I'd be happy to help you with a reservation."},
            {"name": "party_size", "source": ["event", "user"], "event_key": "guests",
             "setter": "set_reservation_basics", "setter_field": "party_size",
             "hint": "Party size / number of guests", "ask": "How many guests will be dining?",
             "requires_readback": True, "readback_fmt": {"type": "plural", "one": "guest", "other": "guests"},
             "validation": {
                 "max_retries": 3,
                 "errors": {"out_of_range": "We accept parties of 1 to 8."},
                 "error_responses": {"out_of_range": [{"type": "text", "text": "1 to 8 guests, please."}]},
                 "channel_error_responses": {
                     "MOBILE": {"out_of_range": [{"type": "payload", "data": {"max": 8}}]}},
                 "on_exhaust": {"say": "Please call us at 555-0100.", "then": "end_session"},
             }},
            {"name": "date", "source": "user", "setter": "set_reservation_basics", "setter_field": "date",
             "hint": "Preferred date", "ask": "What date would you like?", "requires_readback": True,
             "readback_fmt": "date"},
            {"name": "available_times", "source": "task:FindAvailableTimes"},
            {"name": "time", "source": "user", "setter": "set_time", "requires": ["available_times"],
             "ask": "We have {available_times}. Which time works?", "requires_readback": True,
             "readback_fmt": "time",
             "validate_against": {"response_field": "value", "filled_slot": "available_times",
                                  "error_code": "not_available"},
             "validation": {"errors": {"not_available": "We only have {available_times}."}}},
            {"name": "contact_phone", "source": "user", "setter": "set_phone",
             "condition": "lambda filled: int(filled.get('party_size', 0)) >= 5",
             "ask": "For large parties we need a contact number.", "readback_fmt": "lambda v: f'phone {v}'"},
            {"name": "guest_name", "source": "user", "setter": "set_guest_name", "ask": "What name?",
             "requires_readback": True, "readback_fmt": {"type": "prefix", "prefix": "under the name"}},
            {"name": "special_requests", "source": "user", "setter": "set_special_requests",
             "ask": "Any special requests?", "condition": "party_size >= 1",
             "readback_fmt": {"type": "none_sub", "text": "no special requests"},
             "response": [{"type": "text", "text": "Any special requests?"}],
             "channel_responses": {"MOBILE": [{"type": "payload", "data": {"buttons": ["None"]}}]}},
            {"name": "terms", "source": "announce", "message": "Bookings are held for 15 minutes."},
            {"name": "confirmation", "source": "task:BookReservation"},
        ],
        "tasks": [
            {"name": "FindAvailableTimes", "tool": "find_available_times", "inputs": ["party_size", "date"],
             "outputs": {"times": "available_times"}, "success_check": "success",
             "on_failure": {"retry_say": "Nothing free that day. Another date?", "max_retries": 2,
                            "clear_slots": ["date"],
                            "retry_response": [{"type": "text", "text": "Nothing free on {date}."}],
                            "channel_retry_response": {"MOBILE": [{"type": "text", "text": "No tables."}]},
                            "on_exhaust": {"say": "Please call us.",
                                           "then": {"tool": "end_session",
                                                    "args": {"reason": "no_availability",
                                                             "party": "{party_size}"}},
                                           "response": [{"type": "end_session", "reason": "escalated"}],
                                           "channel_responses": {
                                               "MOBILE": [{"type": "transfer", "target": "human"}]}}}},
            {"name": "BookReservation", "tool": "book_reservation",
             "inputs": ["party_size", "date", "time", "guest_name", "contact_phone", "special_requests"],
             "requires": ["terms"], "outputs": {"confirmation_number": "confirmation"},
             "success_check": "success", "terminal": True,
             "then_say": "Confirmed for {guest_name}! Number: {confirmation_number}.",
             "then_response": [{"type": "text", "text": "Booked: {confirmation}"},
                               {"type": "end_session", "reason": "completed"}],
             "channel_then_response": {"MOBILE": [{"type": "payload", "data": {"id": "{confirmation}"}}]}},
        ],
        "steer_back": SPEC_STEER_BACK,
        "x-notes": "extension keys are ignored",
    }  # fmt: skip


BELLA_TOOLS = frozenset(
    {"set_reservation_basics", "set_time", "set_phone", "set_guest_name", "set_special_requests",
     "find_available_times", "book_reservation"}
)  # fmt: skip
