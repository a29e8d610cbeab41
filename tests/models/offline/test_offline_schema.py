"""Reading tool schemas and the system instruction."""

from __future__ import annotations

from typing import Any

from slotgraph.models.offline.directive import asked_params, directive_text
from slotgraph.models.offline.schema import param_notes, read_setters

from .planning import setter as _tool


def _kinds(tool: dict[str, Any]) -> dict[str, str]:
    (setter,) = read_setters([tool])
    return {p.name: p.kind for p in setter.params}


def test_kinds_come_from_types_formats_enums_and_words() -> None:
    tool = _tool(
        "t",
        count={"type": "integer"},
        amount={"type": "number"},
        flag={"type": "boolean"},
        colour={"type": "string", "enum": ["red", "blue"]},
        when={"type": "string", "format": "date"},
        check_in_date={"type": "string"},
        arrival_time={"type": "string"},
        mobile={"type": "string"},
        contact={"type": "string", "format": "email"},
        full_name={"type": "string"},
        policy_number={"type": "string"},
        code={"type": "string", "pattern": "^[A-Z]+$"},
        notes={"type": "string"},
    )
    assert _kinds(tool) == {
        "count": "integer",
        "amount": "number",
        "flag": "boolean",
        "colour": "choice",
        "when": "date",
        "check_in_date": "date",
        "arrival_time": "time",
        "mobile": "phone",
        "contact": "email",
        "full_name": "name",
        "policy_number": "identifier",
        "code": "identifier",
        "notes": "text",
    }


def test_nullable_union_types_use_their_non_null_member() -> None:
    assert _kinds(_tool("t", size={"type": ["integer", "null"]})) == {"size": "integer"}
    assert _kinds(_tool("t", size={"anyOf": [{"type": "null"}, {"type": "integer"}]})) == {"size": "integer"}


def test_parameter_notes_in_the_tool_description_describe_the_parameter() -> None:
    description = (
        "Record the guest info.\n\nguest_name: the name as given. special_requests: a short summary; "
        'pass "None" when the guest has none.'
    )
    assert param_notes(description, ["guest_name", "special_requests"]) == {
        "guest_name": "the name as given.",
        "special_requests": 'a short summary; pass "None" when the guest has none.',
    }
    (setter,) = read_setters([_tool("set_guest_info", description, guest_name={}, special_requests={})])
    assert setter.params[1].empty_value == "None"


def test_past_and_evening_flags_come_from_the_description() -> None:
    (setter,) = read_setters(
        [_tool("t", dob={"type": "string", "description": "Date of birth, YYYY-MM-DD"},
               slot={"type": "string", "description": "Dinner time, HH:MM"})]
    )  # fmt: skip
    assert setter.params[0].past and not setter.params[0].evening
    assert setter.params[1].evening and setter.params[1].kind == "time"


def test_directive_is_the_last_block_even_when_prose_mentions_the_tag() -> None:
    instruction = (
        "When a <system_directive> is present, relay it.\n<system_directive>\nHow many guests?\n"
        "</system_directive>"
    )
    assert directive_text(instruction) == "How many guests?"
    assert directive_text("no directive here") is None
    assert directive_text("<system_directive>  </system_directive>") is None


def test_asked_params_follow_the_question() -> None:
    (setter,) = read_setters(
        [_tool("t", party_size={"type": "integer", "description": "Number of guests."},
               preferred_date={"type": "string", "description": "Date, YYYY-MM-DD."})]
    )  # fmt: skip
    size, date = setter.params
    assert asked_params("How many guests will be in your party?", setter.params) == (size,)
    assert asked_params("What date would you like?", setter.params) == (date,)
    assert set(asked_params("How many guests, and on what date?", setter.params)) == {size, date}
    assert asked_params("Welcome!", setter.params) == ()
    assert asked_params(None, setter.params) == ()


def test_a_text_parameter_described_as_one_of_a_list_is_a_choice() -> None:
    tool = _tool(
        "set_visit_basics",
        visit_reason={
            "type": "string",
            "description": "One of cleaning, checkup, toothache, broken_tooth, whitening. Empty to omit.",
        },
        payment={"type": "string", "description": "Either cash or card"},
        guest={"type": "string", "description": "One of the guests, as they introduced themselves."},
        notes={"type": "string", "description": "Anything else; one of many notes."},
    )
    (setter,) = read_setters([tool])
    params = {p.name: p for p in setter.params}
    assert params["visit_reason"].kind == "choice"
    assert params["visit_reason"].enum == ("cleaning", "checkup", "toothache", "broken_tooth", "whitening")
    assert params["payment"].enum == ("cash", "card")
    assert params["guest"].kind == "text" and params["notes"].kind == "text"
