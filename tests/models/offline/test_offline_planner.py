"""``plan_turn``: which setters are called with what, in collection and readback, and what is said."""

from __future__ import annotations

import datetime as dt
from functools import partial

from slotgraph.models.offline import NEUTRAL_REPLY, Plan, plan_turn

from .planning import plan_for

NOW = dt.datetime(2026, 7, 13, 18, 0)
BASICS = {
    "name": "set_reservation_basics",
    "description": "Record the party size and/or the preferred date.",
    "parameters": {
        "type": "object",
        "properties": {
            "party_size": {"type": "integer", "description": "Number of guests in the party."},
            "preferred_date": {"type": "string", "description": "Preferred date in YYYY-MM-DD format."},
        },
    },
}
GUEST = {
    "name": "set_guest_info",
    "description": "Record the name and any special requests.",
    "parameters": {
        "type": "object",
        "properties": {
            "guest_name": {"type": "string", "description": "Name the reservation is under."},
            "special_requests": {"type": "string", "description": "Allergies or requests; 'none' if none."},
        },
    },
}
TIME = {
    "name": "set_selected_time",
    "description": "Record the chosen time.",
    "parameters": {"type": "object", "properties": {"time": {"type": "string", "description": "HH:MM"}}},
}
CONFIRM = {"name": "confirm_pending", "description": "", "parameters": {"type": "object", "properties": {}}}
REJECT = {"name": "reject_pending", "description": "", "parameters": {"type": "object", "properties": {}}}


_plan = partial(plan_for, now=NOW)


def test_one_call_per_setter_with_every_parameter_that_got_a_value() -> None:
    plan = _plan([BASICS, GUEST], "How many guests, and on what date?", "4 people next Friday")
    assert plan == Plan(
        tool_calls=(("set_reservation_basics", {"party_size": 4, "preferred_date": "2026-07-17"}),)
    )


def test_only_setters_whose_parameters_got_values_are_called() -> None:
    plan = _plan([BASICS, GUEST, TIME], "What name should I put it under?", "Chen")
    assert plan.tool_calls == (("set_guest_info", {"guest_name": "Chen"}),)
    assert plan.text is None


def test_several_setters_from_one_message() -> None:
    plan = _plan([BASICS, GUEST], "How many guests, and what name?", "party of 3 under Okafor")
    assert plan.tool_calls == (
        ("set_reservation_basics", {"party_size": 3}),
        ("set_guest_info", {"guest_name": "Okafor"}),
    )


def test_nothing_understood_relays_the_directive() -> None:
    assert _plan([BASICS], "How many guests?", "hi there") == Plan(text="How many guests?")


def test_after_tools_ran_the_model_only_relays() -> None:
    assert _plan([BASICS], "Just to confirm — 4 guests. Is that correct?", None) == Plan(
        text="Just to confirm — 4 guests. Is that correct?"
    )
    assert _plan([BASICS], None, None) == Plan(text=NEUTRAL_REPLY)


def test_steer_back_is_relayed_when_there_is_no_directive() -> None:
    plan = plan_turn(
        [BASICS], system_instruction="<steer_back>Ask for the date.</steer_back>", user_text=None, now=NOW
    )
    assert plan.text == "Ask for the date."


def test_readback_yes_no_and_correction() -> None:
    tools = [CONFIRM, REJECT, BASICS]
    directive = "Just to confirm — 4 guests, on July 17th. Is that correct?"
    assert _plan(tools, directive, "yes", readback=True).tool_calls == (("confirm_pending", {}),)
    assert _plan(tools, directive, "no", readback=True).tool_calls == (("reject_pending", {}),)
    assert _plan(tools, directive, "no, make it 6", readback=True).tool_calls == (
        ("set_reservation_basics", {"party_size": 6}),
    )
    assert _plan(tools, directive, "what?", readback=True) == Plan(text=directive)


def test_readback_is_recognised_from_the_tools_even_without_the_protocol_block() -> None:
    plan = _plan([CONFIRM, REJECT], "Is that correct?", "yep")
    assert plan.tool_calls == (("confirm_pending", {}),)


def test_free_text_goes_to_the_asked_parameter_only() -> None:
    assert _plan([GUEST], "Any special requests?", "a window table").tool_calls == (
        ("set_guest_info", {"special_requests": "a window table"}),
    )
    assert _plan([GUEST], "Any special requests?", "nothing, thanks").tool_calls == (
        ("set_guest_info", {"special_requests": "none"}),
    )
    assert _plan([GUEST], "How can I help?", "a window table").tool_calls == ()


def test_a_clause_that_answered_another_parameter_is_not_the_asked_free_text() -> None:
    asked = "Do you have any special requests or dietary needs?"
    # a change of party size while special requests are asked: the leftover "make it people" is no request
    assert _plan([GUEST, BASICS], asked, "actually make it 6 people").tool_calls == (
        ("set_reservation_basics", {"party_size": 6}),
    )
    assert _plan([GUEST, BASICS], asked, "make it 6 people instead").tool_calls == (
        ("set_reservation_basics", {"party_size": 6}),
    )
    # a clause of its own is still the request; a long leftover of the same clause stays too
    assert _plan([GUEST, BASICS], asked, "6 people, and no nuts please").tool_calls == (
        ("set_guest_info", {"special_requests": "no nuts"}),
        ("set_reservation_basics", {"party_size": 6}),
    )
    assert _plan([GUEST, BASICS], asked, "oh and we'll be 6 people, one of us is vegan").tool_calls == (
        ("set_guest_info", {"special_requests": "one of us is vegan"}),
        ("set_reservation_basics", {"party_size": 6}),
    )
    trip = {
        "name": "set_trip",
        "description": "Record the trip.",
        "parameters": {
            "type": "object",
            "properties": {
                "destination": {"type": "string", "description": "Where the traveller is going."},
                "nights": {"type": "integer", "description": "How many nights."},
            },
        },
    }
    where = "Where are you going, and for how many nights?"
    assert _plan([trip], where, "Lisbon for 3 nights").tool_calls == (
        ("set_trip", {"destination": "Lisbon", "nights": 3}),
    )


def test_none_is_a_zero_only_when_the_question_is_about_a_count() -> None:
    phone = {
        "name": "set_large_party_phone",
        "description": "Record a contact phone number for a large party.",
        "parameters": {
            "type": "object",
            "properties": {"large_party_phone": {"type": "string", "description": "Contact phone number."}},
        },
    }
    # the phone question mentions "parties" and "number", so the party size scores as asked too
    question = "For parties of five or more we like a contact number. What's the best number to reach you?"
    assert _plan([phone, BASICS], question, "no").tool_calls == ()
    assert _plan([phone, BASICS], question, "no special requests").tool_calls == ()
    kids = {
        "name": "set_kids",
        "description": "Record the children travelling.",
        "parameters": {
            "type": "object",
            "properties": {"children": {"type": "integer", "description": "Number of children."}},
        },
    }
    assert _plan([kids], "How many children are travelling with you?", "none").tool_calls == (
        ("set_kids", {"children": 0}),
    )


def test_offered_times_are_matched() -> None:
    plan = _plan([TIME], "We have 17:30, 19:00, 20:30. Which time works best for you?", "7 please")
    assert plan.tool_calls == (("set_selected_time", {"time": "19:00"}),)


def test_names_of_parameters_do_not_matter_only_their_meaning() -> None:
    renamed = {
        "name": "record_headcount",
        "description": "Record the headcount.",
        "parameters": {
            "type": "object",
            "properties": {"attendees": {"type": "integer", "description": "How many people attend."}},
        },
    }
    assert _plan([renamed], "How many people are coming?", "about twenty people").tool_calls == (
        ("record_headcount", {"attendees": 20}),
    )


def test_plans_are_deterministic() -> None:
    args = ([BASICS, GUEST], "How many guests, and on what date?", "two of us on the 3rd")
    assert _plan(*args) == _plan(*args)
    assert _plan(*args).tool_calls == (
        ("set_reservation_basics", {"party_size": 2, "preferred_date": "2026-08-03"}),
    )


def test_a_value_of_a_listed_choice_is_taken_unasked_and_the_whole_message_never_is() -> None:
    visit = {
        "name": "set_visit_basics",
        "description": "Record the reason for the visit.",
        "parameters": {
            "type": "object",
            "properties": {
                "visit_reason": {
                    "type": "string",
                    "description": "One of cleaning, checkup, toothache, broken_tooth, whitening.",
                }
            },
        },
    }
    unasked = _plan([visit], None, "I'd like to book a cleaning")
    assert unasked.tool_calls == (("set_visit_basics", {"visit_reason": "cleaning"}),)
    question = "What brings you in: a cleaning, a checkup or a broken tooth?"
    asked = _plan([visit], question, "my tooth is broken")
    assert asked.tool_calls == (("set_visit_basics", {"visit_reason": "broken_tooth"}),)
    assert _plan([visit], "What brings you in?", "I'd like to book an appointment").tool_calls == ()


def test_an_unasked_code_is_taken_when_the_person_names_the_parameter() -> None:
    invoice = {
        "name": "set_invoice_number",
        "description": "Record the invoice number.",
        "parameters": {
            "type": "object",
            "properties": {"invoice_number": {"type": "string", "description": "e.g. 'HD-48213'"}},
        },
    }
    named = _plan([invoice], None, "I have a question about my invoice HD-48213")
    assert named.tool_calls == (("set_invoice_number", {"invoice_number": "HD-48213"}),)
    assert _plan([invoice], None, "I have a question about HD-48213").tool_calls == ()  # not named
    assert _plan([invoice], None, "my invoice is 4471").tool_calls == ()  # "is 4471": not a written code


def test_a_denied_count_is_no_value_and_the_denial_is_read_only_just_before_it() -> None:
    asked = "How many guests?"
    assert _plan([BASICS], asked, "definitely not 6, sorry").tool_calls == ()
    assert _plan([BASICS], asked, "6, not 7") == Plan(
        tool_calls=(("set_reservation_basics", {"party_size": 6}),)
    )
    # a "not" far before a number (past the planner's bounded look-behind) does not deny it
    far = "not" + " " * 40 + "6"
    assert _plan([BASICS], asked, far) == Plan(tool_calls=(("set_reservation_basics", {"party_size": 6}),))
