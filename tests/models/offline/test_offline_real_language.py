"""The offline model on how people really talk: options by meaning, place and business names, city
aliases, two dates of one stay, counts said in passing, and re-reading a message for setters that appear."""

from __future__ import annotations

import asyncio
import datetime as dt
import socket
from functools import partial

import pytest

from slotgraph.models.offline import OfflineModel
from slotgraph.models.offline.choices import match_described_choice, value_words
from slotgraph.models.offline.entities import find_entity_name, offered_names
from slotgraph.models.offline.gazetteer import normalise_city
from slotgraph.models.offline.places import find_place_names
from slotgraph.models.offline.schema import read_setters, value_notes
from slotgraph.models.protocol import (
    AssistantToolCalls,
    ModelRequest,
    ToolCall,
    ToolResultMessage,
    ToolSchema,
    UserMessage,
)

from .planning import instruction, plan_for

NOW = dt.datetime(2026, 5, 4, 9, 0)
GOAL = {
    "name": "set_goal",
    "description": "Record what the user wants to do.",
    "parameters": {
        "type": "object",
        "properties": {
            "goal": {
                "type": "string",
                "enum": ["OrderPizza", "TrackDelivery", "CancelOrder"],
                "description": "One of: OrderPizza = order a pizza for delivery; TrackDelivery = find out "
                "where an order is; CancelOrder = cancel an order that was placed",
            }
        },
    },
}
TRIP = {
    "name": "set_trip",
    "description": "Record the trip.",
    "parameters": {
        "type": "object",
        "properties": {
            "town": {"type": "string", "description": "City where the trip starts"},
            "riders": {"type": "integer", "enum": [1, 2, 3, 4], "description": "Number of riders"},
            "car": {"type": "string", "enum": ["Compact", "Minivan", "Limousine"], "description": "Car type"},
        },
    },
}
STAY = {
    "name": "set_stay",
    "description": "Record the stay.",
    "parameters": {
        "type": "object",
        "properties": {
            "arrival_date": {"type": "string", "description": "Arrival date"},
            "departure_date": {"type": "string", "description": "Departure date (check out)"},
        },
    },
}
SPA = {
    "name": "set_spa_name",
    "description": "Record the spa.",
    "parameters": {
        "type": "object",
        "properties": {"spa_name": {"type": "string", "description": "Name of the spa or salon"}},
    },
}


_plan = partial(plan_for, now=NOW)


def test_enum_values_carry_the_words_their_description_gives_them() -> None:
    notes = value_notes(["OrderPizza", "TrackDelivery"], "OrderPizza = order a pizza; TrackDelivery: find it")
    assert notes == (("OrderPizza", "order a pizza"), ("TrackDelivery", "find it"))
    assert value_notes(["A", "B"], "Pick one.") == ()
    assert value_words("TrackDelivery") == ["track", "delivery"]
    (param,) = read_setters([GOAL])[0].params
    assert [v for v, _ in param.value_notes] == ["OrderPizza", "TrackDelivery", "CancelOrder"]


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        ("could I get a large pepperoni sent over", "OrderPizza"),
        ("where is my food? it has been an hour", "TrackDelivery"),
        ("please call off the order I made", "CancelOrder"),
    ],
)
def test_an_option_is_picked_by_what_its_description_means(said: str, meant: str) -> None:
    plan = _plan([GOAL], "What would you like to do? I can order a pizza, track or cancel an order.", said)
    assert plan.tool_calls == (("set_goal", {"goal": meant}),)


def test_no_option_is_picked_when_none_is_close_or_two_are_as_close(monkeypatch: pytest.MonkeyPatch) -> None:
    notes = (("A", "order a pizza for delivery"), ("B", "cancel an order that was placed"))
    assert match_described_choice("hello there", notes) is None
    from slotgraph.models.offline import semantic

    monkeypatch.setattr(semantic, "similarities", lambda query, candidates: [0.50, 0.49])
    assert match_described_choice("something", notes) is None
    monkeypatch.setattr(semantic, "similarities", lambda query, candidates: [0.50, 0.40])
    found = match_described_choice("something", notes)
    assert found is not None and found.value == "A"


def test_the_embeddings_load_from_the_wheel_with_the_network_unavailable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from slotgraph.models.offline import semantic

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    semantic._load.cache_clear()
    scores = semantic.similarities(
        "book a table for dinner", ["reserve a table at a restaurant", "call a cab"]
    )
    assert scores[0] > scores[1]


def test_place_names_after_a_cue_whatever_the_sentence() -> None:
    assert find_place_names("could you drive us to the Old Mill Tavern.") == [
        ("to", "Old Mill Tavern", 26, 41)
    ]
    assert [p[1] for p in find_place_names("We land in Denver. Then we rest")] == ["Denver"]
    assert [p[1] for p in find_place_names("heading to Boston and I need a car")] == ["Boston"]
    assert find_place_names("I need a car for 2") == []
    assert find_place_names("see you on Monday") == []


def test_city_aliases_become_the_city_people_mean() -> None:
    assert normalise_city("NYC") == "New York"
    assert normalise_city("LAX") == "Los Angeles"
    assert normalise_city("san diego") == "San Diego"
    assert normalise_city("San Fran") == "San Francisco"
    assert normalise_city("Redwood City") == "Redwood City"
    assert normalise_city("The") is None
    assert normalise_city("Mill Street") is None


def test_several_facts_in_one_message_all_land_asked_or_not() -> None:
    plan = _plan([TRIP], "What type of car would you like?", "A Limousine in LA for three people please")
    assert plan.tool_calls == (("set_trip", {"town": "Los Angeles", "riders": 3, "car": "Limousine"}),)


def test_a_city_parameter_takes_only_a_city() -> None:
    assert _plan([TRIP], "Which town?", "Thanks a lot").tool_calls == ()
    assert _plan([TRIP], "Which town?", "Chicago would be best").tool_calls == (
        ("set_trip", {"town": "Chicago"}),
    )


def test_two_dates_of_one_stay_go_by_the_words_before_them() -> None:
    plan = _plan([STAY], None, "I'd leave on the 12th, arriving the 9th")
    assert plan.tool_calls == (("set_stay", {"arrival_date": "2026-05-09", "departure_date": "2026-05-12"}),)
    plan = _plan([STAY], None, "Can I stay from the 20th?")
    assert plan.tool_calls == (("set_stay", {"arrival_date": "2026-05-20"}),)


def test_business_names_come_from_cues_and_offers() -> None:
    assert offered_names("I found Glow Day Spa in Austin. Shall I book it?") == ["Glow Day Spa", "Austin"]
    found = find_entity_name("let's try Serenity Springs", None, asked=False)
    assert found is not None and found.value == "Serenity Springs"
    said_again = find_entity_name("glow day spa sounds lovely", "How about Glow Day Spa?", asked=False)
    assert said_again is not None and said_again.value == "Glow Day Spa"
    agreed = find_entity_name("That sounds good, book it", "How about Glow Day Spa?", asked=False)
    assert agreed is not None and agreed.value == "Glow Day Spa"
    assert find_entity_name("no, something else", "How about Glow Day Spa?", asked=True) is None
    assert _plan([SPA], "Which spa?", "under Chen please").tool_calls == ()


def test_the_model_reads_the_message_again_for_setters_that_just_appeared() -> None:
    model = OfflineModel(clock=lambda: NOW)
    user = UserMessage("I want to order a pizza, we are in Boston")
    first = ModelRequest(
        instruction("What would you like to do? I can order a pizza or track an order."),
        (user,),
        (ToolSchema(GOAL["name"], "", GOAL["parameters"]),),
    )
    reply = asyncio.run(model.generate(first))
    assert [(c.name, dict(c.args)) for c in reply.tool_calls] == [("set_goal", {"goal": "OrderPizza"})]
    trip = ToolSchema(TRIP["name"], "", TRIP["parameters"])
    again = ModelRequest(
        instruction("Which car?"),
        (
            user,
            AssistantToolCalls((ToolCall("offline-1", "set_goal", {"goal": "OrderPizza"}),)),
            ToolResultMessage("offline-1", "set_goal", {"stored": True}),
        ),
        (ToolSchema(GOAL["name"], "", GOAL["parameters"]), trip),
    )
    second = asyncio.run(model.generate(again))
    assert [(c.name, dict(c.args)) for c in second.tool_calls] == [("set_trip", {"town": "Boston"})]
    third = ModelRequest(
        instruction("Which car?"),
        (
            *again.messages,
            AssistantToolCalls((ToolCall("offline-2", "set_trip", {"town": "Boston"}),)),
            ToolResultMessage("offline-2", "set_trip", {"stored": True}),
        ),
        again.tools,
    )
    last = asyncio.run(model.generate(third))
    assert last.tool_calls == () and last.text == "Which car?"


SALON = {
    "name": "set_salon_search",
    "description": "Search salons.",
    "parameters": {
        "type": "object",
        "properties": {
            "is_unisex": {"type": "string", "enum": ["True", "False", "dontcare"], "description": "Unisex?"},
            "price_band": {"type": "string", "enum": ["cheap", "moderate", "very expensive", "expensive"]},
            "has_parking": {"type": "boolean", "description": "Whether the salon has parking"},
        },
    },
}
OTHERS = {
    "name": "show_other_options",
    "description": "Show the next result when the user asks for other options.",
    "parameters": {
        "type": "object",
        "properties": {
            "exclude": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Options already offered",
            }
        },
    },
}
CUISINE = {
    "name": "set_cuisine",
    "description": "Record the cuisine.",
    "parameters": {
        "type": "object",
        "properties": {"cuisine": {"type": "string", "description": "Cuisine of the food served"}},
    },
}


def test_features_and_named_values_said_in_passing_land_but_questions_about_them_do_not() -> None:
    plan = _plan([SALON], "Which city?", "A unisex place with parking, very expensive is fine")
    assert plan.tool_calls == (
        ("set_salon_search", {"is_unisex": "True", "price_band": "very expensive", "has_parking": True}),
    )
    assert _plan([SALON], "Which city?", "Is it unisex? Does it have parking?").tool_calls == ()
    assert _plan([SALON], "Which city?", "somewhere without parking").tool_calls == (
        ("set_salon_search", {"has_parking": False}),
    )


def test_asking_for_other_options_calls_the_tool_that_shows_them_with_what_was_offered() -> None:
    offered = _plan(
        [OTHERS],
        "Which salon?",
        "Hmm, is there another one?",
        agent_said=("How about Curl Up And Dye?", "I found Shear Bliss."),
    )
    assert offered.tool_calls == (("show_other_options", {"exclude": ["Shear Bliss", "Curl Up And Dye"]}),)
    assert _plan([OTHERS], "Which salon?", "yes please").tool_calls == ()


def test_a_short_valued_answer_is_a_word_or_two_never_the_whole_sentence() -> None:
    assert _plan([CUISINE], "What cuisine?", "Thai").tool_calls == (("set_cuisine", {"cuisine": "Thai"}),)
    assert _plan([CUISINE], "What cuisine?", "I'm really craving some Ethiopian food tonight").tool_calls == (
        ("set_cuisine", {"cuisine": "Ethiopian"}),
    )
    assert _plan([CUISINE], "What cuisine?", "Perfect, that works for me!").tool_calls == ()


def test_an_option_offered_a_few_messages_back_is_picked_by_agreement() -> None:
    agreed = _plan(
        [SPA],
        "What is the name of the spa?",
        "That sounds good, please book an appointment",
        agent_said=("What is the name of the spa?", "I found Great Oaks Spa. What is the name of the spa?"),
    )
    assert agreed.tool_calls == (("set_spa_name", {"spa_name": "Great Oaks Spa"}),)


@pytest.mark.parametrize(
    ("said", "hhmm"),
    [
        ("at seven pm", "19:00"),
        ("for 6 in the evening", "18:00"),
        ('2 o"clock in the afternoon', "14:00"),
        ("eleven am", "11:00"),
        ("half past 6 in the evening", "18:30"),
        ("9 at night", "21:00"),
    ],
)
def test_times_said_with_a_part_of_the_day(said: str, hhmm: str) -> None:
    from slotgraph.models.offline.times import find_times

    assert [f.value.hhmm() for f in find_times(said)] == [hhmm]


def test_a_long_message_of_times_is_read_up_to_a_bound_in_one_pass() -> None:
    from slotgraph.models.offline.times import MAX_TEXT, find_times

    message = "7:30 " * 1700  # 8.5 KB (issue 24: this used to take seconds, every time compared with all)
    found = find_times(message)
    assert len(found) == MAX_TEXT // 5
    assert all(f.end <= MAX_TEXT for f in found)


PATIENT = {
    "name": "set_patient",
    "description": "",
    "parameters": {
        "type": "object",
        "properties": {"patient_name": {"type": "string", "description": "Full name of the patient"}},
    },
}
PAIN = {
    "name": "set_pain",
    "description": "",
    "parameters": {
        "type": "object",
        "properties": {
            "pain_level": {"type": "integer", "description": "Pain level", "minimum": 1, "maximum": 10},
            "visit_date": {"type": "string", "description": "Date of the visit"},
        },
    },
}


@pytest.mark.parametrize("ask", ["Who is the appointment for?", "And the patient?", "Whose visit is it?"])
def test_a_bare_name_answers_however_the_question_is_worded(ask: str) -> None:
    plan = _plan([PATIENT], ask, "maria lopez")
    assert plan.tool_calls == (("set_patient", {"patient_name": "Maria Lopez"}),)


def test_a_score_on_a_scale_is_not_a_date_unless_a_date_is_asked() -> None:
    assert _plan([PAIN], "On a scale of 1 to 10, how bad is the pain?", "7/10").tool_calls == (
        ("set_pain", {"pain_level": 7}),
    )
    assert _plan([PAIN], "How bad is it?", "about 8 out of 10").tool_calls == (
        ("set_pain", {"pain_level": 8}),
    )
    assert _plan([PAIN], "When would you like to come in?", "7/10").tool_calls == (
        ("set_pain", {"visit_date": "2026-07-10"}),
    )


CAB = {
    "name": "set_cab",
    "description": "Record the ride.",
    "parameters": {
        "type": "object",
        "properties": {
            "destination": {"type": "string", "description": "Destination address or location"},
            "ride_type": {"type": "string", "enum": ["Shared", "Standard", "Premium"]},
            "ride_date": {"type": "string", "description": "Date of the ride"},
        },
    },
}


def test_a_place_ends_where_the_next_value_or_sentence_starts() -> None:
    plan = _plan([CAB], "Where to?", "I want to go to 961 Elm Drive in a Premium ride.")
    assert plan.tool_calls == (("set_cab", {"destination": "961 Elm Drive", "ride_type": "Premium"}),)
    assert _plan([CAB], "Where to?", "Atlanta, GA").tool_calls == (("set_cab", {"destination": "Atlanta"}),)
    assert _plan([CAB], "Where to?", "I would prefer a shared ride").tool_calls == (
        ("set_cab", {"ride_type": "Shared"}),
    )


def test_a_street_number_is_not_a_date() -> None:
    plan = _plan([CAB], "Where to?", "Take me to 291 30th Street please")
    assert plan.tool_calls == (("set_cab", {"destination": "291 30th Street"}),)


def test_a_number_said_only_to_be_denied_is_no_value_and_a_count_is_no_time() -> None:
    from slotgraph.models.offline.times import find_times

    assert find_times("It's for 5 people, not 6.", bare=True) == []
    assert [f.value.hhmm() for f in find_times("5 works", bare=True)] == ["17:00"]
    riders = _plan([TRIP], "How many riders?", "It's for 3 riders, not 4.")
    assert riders.tool_calls == (("set_trip", {"riders": 3}),)


RECIPIENT = {
    "name": "set_gift_recipient",
    "description": "Record who the gift card is for.",
    "parameters": {
        "type": "object",
        "properties": {"name": {"type": "string", "description": "Name of the person the card is for"}},
    },
}
TOPIC_MOVE = {
    "name": "transition_topic",
    "description": "Move the conversation to one of this agent's topics, or back with __return__.",
    "parameters": {
        "type": "object",
        "properties": {
            "topic": {
                "type": "string",
                "enum": ["gift_cards", "__return__"],
                "description": "Where to move the conversation. One of:\n"
                "- `gift_cards`: Buy a gift card for someone (amount, who it is for).\n"
                "- `__return__`: go back to where the conversation was before this topic",
            }
        },
    },
}


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("It's for Maria Rossi", "Maria Rossi"),
        ("it's for maria rossi", "Maria Rossi"),
        ("The card is for Maria Rossi, please", "Maria Rossi"),
        ("It's for my daughter, Chloe", "Chloe"),
    ],
)
def test_who_it_is_for_names_the_person(said: str, name: str) -> None:
    plan = _plan([RECIPIENT], "Who is the gift card for?", said)
    assert plan.tool_calls == (("set_gift_recipient", {"name": name}),)


@pytest.mark.parametrize("said", ["Go back", "Let's go back", "let's start over", "hold on, wait"])
def test_a_request_to_go_back_is_not_a_name(said: str) -> None:
    assert _plan([RECIPIENT], "Who is the gift card for?", said).tool_calls == ()


@pytest.mark.parametrize("said", ["Go back", "Let's go back"])
def test_a_request_to_go_back_leaves_the_topic(said: str) -> None:
    tools = tuple(ToolSchema(t["name"], t["description"], t["parameters"]) for t in (RECIPIENT, TOPIC_MOVE))
    request = ModelRequest(instruction("Who is the gift card for?"), (UserMessage(said),), tools)
    response = asyncio.run(OfflineModel(clock=lambda: NOW).generate(request))
    assert [(c.name, c.args) for c in response.tool_calls] == [("transition_topic", {"topic": "__return__"})]


BOOKING_DATE = {
    "name": "set_reservation_basics",
    "description": "Record the party size and/or the preferred date.",
    "parameters": {
        "type": "object",
        "properties": {
            "party_size": {"type": ["integer", "null"], "description": "Number of guests."},
            "preferred_date": {"type": ["string", "null"], "description": "Date of the reservation"},
        },
    },
}


@pytest.mark.parametrize(
    "said", ["who won the game last night?", "did you see the news yesterday?", "what happened two days ago?"]
)
def test_a_past_day_in_a_question_about_something_else_is_not_the_date(said: str) -> None:
    assert _plan([BOOKING_DATE], "What date would you like to join us?", said).tool_calls == ()


@pytest.mark.parametrize(
    ("said", "date"),
    [
        ("last Friday", "2026-05-01"),  # a statement: read, so the engine can say the date has passed
        ("can I book a table for yesterday?", "2026-05-03"),  # a question about the booking: read too
        ("is tomorrow night free?", "2026-05-05"),  # a day to come in a question: an answer
        ("tomorrow night", "2026-05-05"),
    ],
)
def test_dates_about_the_booking_are_still_read(said: str, date: str) -> None:
    plan = _plan([BOOKING_DATE], "What date would you like to join us?", said)
    assert plan.tool_calls == (("set_reservation_basics", {"preferred_date": date}),)
