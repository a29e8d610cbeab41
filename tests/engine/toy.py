"""The spec's toy reservation config (§2.1 slots, §2.2 tasks) and its variants, as raw config dicts."""

from __future__ import annotations

from typing import Any

from slotgraph.config import CompiledDag, compile_config

USER_SLOTS = ("num_guests", "date", "chosen_time", "name")


def toy_raw(
    *,
    readback: frozenset[str] | set[str] = frozenset(USER_SLOTS),
    check_max_retries: int = 1,
    prefixes: list[str] | None = None,
) -> dict[str, Any]:
    """§2.1/§2.2 verbatim, except: which slots require readback is a parameter (§13 has none, §15 has
    ``num_guests``), and ``CheckAvailability.on_failure.max_retries`` is a parameter (§14 uses 1 and 2)."""
    raw: dict[str, Any] = {
        "slots": [
            {
                "name": "num_guests",
                "source": "user",
                "setter": "set_num_guests",
                "ask": "How many guests?",
                "requires_readback": "num_guests" in readback,
                "readback_fmt": {"type": "plural", "one": "guest", "other": "guests"},
            },
            {
                "name": "date",
                "source": "user",
                "setter": "set_date",
                "ask": "What date works for you?",
                "requires_readback": "date" in readback,
                "readback_fmt": "date",
            },
            {"name": "open_slots", "source": "task:CheckAvailability"},
            {
                "name": "chosen_time",
                "source": "user",
                "setter": "set_chosen_time",
                "requires": ["open_slots"],
                "ask": "We have {open_slots}. Which time?",
                "requires_readback": "chosen_time" in readback,
            },
            {
                "name": "name",
                "source": "user",
                "setter": "set_name",
                "ask": "What name for the reservation?",
                "requires_readback": "name" in readback,
            },
            {"name": "confirmation", "source": "task:MakeReservation"},
        ],
        "tasks": [
            {
                "name": "CheckAvailability",
                "tool": "check_availability",
                "inputs": ["num_guests", "date"],
                "outputs": {"open_slots": "open_slots"},
                "success_check": "success",
                "then_say": "We have {open_slots}. Which time works?",
                "on_failure": {
                    "retry_say": "No availability for that date. Try another?",
                    "max_retries": check_max_retries,
                    "clear_slots": ["date"],
                    "on_exhaust": {"say": "Please call us at 555-0100.", "then": "escalate"},
                },
            },
            {
                "name": "MakeReservation",
                "tool": "make_reservation",
                "inputs": ["num_guests", "date", "chosen_time", "name"],
                "outputs": {"confirmation": "confirmation"},
                "success_check": "success",
                "terminal": True,
                "then_say": "Confirmed! Number: {confirmation}.",
                "on_failure": {
                    "retry_say": "Let me try once more.",
                    "max_retries": 2,
                    "on_exhaust": {"say": "Please call us directly.", "then": "escalate"},
                },
            },
        ],
    }
    if prefixes is not None:
        raw["confirm_transition_prefix"] = prefixes
    return raw


def toy_dag(**kwargs: Any) -> CompiledDag:
    return compile_config(toy_raw(**kwargs))


NO_READBACK: frozenset[str] = frozenset()
