"""The offline model on agents nobody tuned it on: what it reads comes from each agent's own schema — the
verbs and objects of its intents, the nouns of a parameter's description, the meaning of a description (for
values learned from real dialogues), the levels of a price scale. The tools below are written for these
tests (a cinema, a car rental, a dentist, a bistro); none is an agent of the tuning data."""

from __future__ import annotations

import datetime as dt
from functools import partial
from typing import Any

import pytest

from slotgraph.models.offline import plan_turn
from slotgraph.models.offline.actions import is_lookup, match_action, option_cues
from slotgraph.models.offline.choices import match_price_choice, price_level
from slotgraph.models.offline.lexicon import find_learned, learned_values

from .planning import plan_for, setter

NOW = dt.datetime(2026, 5, 4, 9, 0)


def _intent(options: dict[str, str]) -> dict[str, Any]:
    described = "; ".join(f"{k} = {v}" for k, v in options.items())
    return {
        "name": "set_intent",
        "description": "Record what the user wants to do.",
        "parameters": {
            "type": "object",
            "properties": {
                "intent": {
                    "type": "string",
                    "enum": list(options),
                    "description": f"What the user wants to do, one of: {described}.",
                }
            },
        },
    }


_setter = partial(setter, description="Record a value.")
_plan = partial(plan_for, now=NOW)


CINEMA = {
    "FindFilms": "search for films playing in a city",
    "BuyFilmTickets": "buy tickets for a chosen screening",
}
RENTAL = {"LookupCars": "see the cars available in a city", "ReserveRentalCar": "reserve a chosen rental car"}
DENTIST = {"BookVisit": "book a visit with a chosen dentist", "SearchDentists": "find a dentist in a city"}


@pytest.mark.parametrize(
    ("options", "said", "meant"),
    [
        (CINEMA, "I'd like to see something tonight", "FindFilms"),  # nothing named: the look-up first
        (CINEMA, "Can I purchase two tickets please?", "BuyFilmTickets"),  # "purchase" is buying
        (CINEMA, "could you find me a film to buy tickets for", "BuyFilmTickets"),  # an act named wins
        (RENTAL, "I need wheels for the weekend", "LookupCars"),
        (RENTAL, "I want to make a reservation", "ReserveRentalCar"),
        (DENTIST, "my tooth hurts, I need a dentist", "SearchDentists"),
        (DENTIST, "I'd like to book an appointment", "BookVisit"),
    ],
)
def test_an_intent_is_read_from_its_verb_and_object(options: dict[str, str], said: str, meant: str) -> None:
    plan = _plan([_intent(options)], "How can I help you?", said)
    assert plan.tool_calls == (("set_intent", {"intent": meant}),)


def test_what_tells_options_apart_and_what_does_not() -> None:
    assert is_lookup("FindFilms") and is_lookup("LookupCars") and not is_lookup("ReserveRentalCar")
    verb, keys = option_cues("ReserveRestaurant", "reserve a table at a restaurant")
    assert verb in keys and "table" in keys and "restaurant" in keys
    options = list(CINEMA.items())
    assert match_action("hello there", options, asked=True) is None  # a greeting asks for nothing
    assert match_action("I'd like to see something", options, asked=False) is None  # no default unasked
    found = match_action("actually I want to buy the tickets", options, asked=False)
    assert found is not None and found.value == "BuyFilmTickets"
    # acts that need nothing picked first (ordering, cancelling) get no look-up default
    goal = [("OrderPizza", "order a pizza"), ("TrackDelivery", "find out where an order is")]
    assert match_action("I'm hungry, I'd like something", goal, asked=True) is None


CUISINE = {"type": "string", "description": "Style of cooking of the bistro"}


@pytest.mark.parametrize(
    ("directive", "said", "value"),
    [
        ("What style of cooking would you like?", "Some Lebanese cooking would be lovely.", "Lebanese"),
        ("What style of cooking would you like?", "I think I'm in the mood for tapas tonight", "tapas"),
        ("What style of cooking would you like?", "Are there any Ethiopian places?", "Ethiopian"),
        (None, "Find me a Peruvian place downtown", "Peruvian"),  # not asked: a capitalised category
    ],
)
def test_a_category_is_the_word_or_two_that_carries_a_value(
    directive: str | None, said: str, value: str
) -> None:
    plan = _plan([_setter("set_style", style=CUISINE)], directive, said)
    assert plan.tool_calls == (("set_style", {"style": value}),)


def test_leftovers_and_lower_case_words_said_in_passing_are_no_category() -> None:
    assert (
        _plan([_setter("set_style", style=CUISINE)], None, "find me a nice place downtown").tool_calls == ()
    )
    asked = _plan([_setter("set_style", style=CUISINE)], "What style of cooking?", "I prefer it")
    assert asked.tool_calls == ()


PRICE = {
    "type": "string",
    "enum": ["cheap", "moderate", "pricey", "ultra high-end"],
    "description": "Price range of the bistro",
}


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("something affordable please", "moderate"),
        ("a fancy place for our anniversary", "pricey"),
        ("not too expensive", "moderate"),
        ("the most expensive one you have", "ultra high-end"),
        ("somewhere low cost", "cheap"),
    ],
)
def test_a_price_level_said_in_everyday_words(said: str, value: str) -> None:
    assert _plan([_setter("set_price", price_range=PRICE)], None, said).tool_calls == (
        ("set_price", {"price_range": value}),
    )


def test_a_question_about_the_price_sets_no_level() -> None:
    assert _plan([_setter("set_price", price_range=PRICE)], None, "Is it a pricey place?").tool_calls == ()
    assert price_level("a quiet table") is None
    assert match_price_choice("cheap", ["economy", "business"]) is None  # no value names a level


def test_values_learned_from_real_dialogues_apply_by_meaning_of_the_description() -> None:
    # a parameter described like the learned cuisine slot gets its entries; an unrelated one gets none
    learned = learned_values("Category of food served by the restaurant")
    assert ("sushi", "Japanese") in learned
    assert learned_values("Number of bags to check in") == ()
    found = find_learned("I'm craving SUSHI tonight", learned)
    assert found is not None and found.value == "Japanese"
    places = learned_values("Location of the hotel")
    assert ("chi-town", "Chicago") in places
    tools = [_setter("set_where", location={"type": "string", "description": "Location of the hotel"})]
    assert _plan(tools, "Where are you staying?", "We'll be in Chi-town").tool_calls == (
        ("set_where", {"location": "Chicago"}),
    )


STAY = _setter(
    "set_stay",
    number_of_days={"type": "string", "description": "Number of days in the reservation"},
    number_of_rooms={
        "type": "integer",
        "enum": [1, 2, 3],
        "description": "Number of rooms in the reservation",
    },
)


@pytest.mark.parametrize(
    ("directive", "said", "args"),
    [
        ("How many days?", "for 3 nights", {"number_of_days": "3"}),  # a count, written as the string type
        (None, "two rooms for five days", {"number_of_days": "5", "number_of_rooms": 2}),
        ("How many days?", "just one room", {"number_of_rooms": 1}),  # a room is no day
    ],
)
def test_a_number_of_things_is_a_count_in_its_own_unit(
    directive: str | None, said: str, args: dict[str, Any]
) -> None:
    assert _plan([STAY], directive, said).tool_calls == (("set_stay", args),)


def test_yes_no_answers_and_ordinals() -> None:
    shared = _setter(
        "set_shared", shared_ride={"type": "boolean", "description": "Whether the ride is shared"}
    )
    assert _plan([shared], "Is a shared ride okay?", "sure, why not").tool_calls == (
        ("set_shared", {"shared_ride": True}),
    )
    day = _setter(
        "set_day",
        check_in_date={"type": "string", "description": "Start date of the stay"},
        hotel_name={"type": "string", "description": "Name of the hotel"},
    )
    assert _plan([day], "Which hotel do you like?", "the second one").tool_calls == ()  # picks, not a date
    assert _plan([day], "What is the start date?", "the second").tool_calls == (
        ("set_day", {"check_in_date": "2026-06-02"}),  # the next 2nd
    )


SALON = _setter("set_salon", stylist_name={"type": "string", "description": "Name of the hair stylist/salon"})


@pytest.mark.parametrize(
    ("directive", "said", "name"),
    [
        (None, "At the Revamp Salon this Sunday at 1:30 pm", "Revamp Salon"),
        (None, "No, the salon's name is actually Hairapy.", "Hairapy"),
        (None, "I want to visit Fig & Clover on the 13th", "Fig & Clover"),
        ("Which salon would you like?", "Rae Talbot Salon", "Rae Talbot Salon"),
        (None, "yes, it's called marnee in San Francisco", "Marnee"),
        (
            "What is the name of the hair stylist/salon?",
            "I found A Cut Above. That works for me",
            "A Cut Above",
        ),
    ],
)
def test_business_names_after_cues_and_by_agreement(directive: str | None, said: str, name: str) -> None:
    if said.startswith("I found"):  # the offer is the agent's message, the agreement the user's
        offer, said = said.split(". ", 1)
        plan = plan_turn(
            [SALON],
            system_instruction=f"<system_directive>\n{directive}\n</system_directive>",
            user_text=said,
            now=NOW,
            agent_said=(offer + ".",),
        )
    else:
        plan = _plan([SALON], directive, said)
    assert plan.tool_calls == (("set_salon", {"stylist_name": name}),)


def test_a_question_about_an_offer_or_an_adjective_is_no_name() -> None:
    offer = ("I found Flying Fish Grill.",)
    asking = plan_turn([SALON], system_instruction="", user_text="Does this salon take walk-ins?",
                       now=NOW, agent_said=offer)  # fmt: skip
    assert asking.tool_calls == ()
    assert _plan([SALON], None, "I want to go to a nice salon nearby").tool_calls == ()
    assert _plan([SALON], "Which salon?", "In San Francisco.").tool_calls == ()


def test_a_count_in_the_parameters_own_words_and_that_one_is_no_count() -> None:
    beds = _setter(
        "set_beds",
        number_of_beds={"type": "integer", "enum": [1, 2, 3, 4], "description": "Number of bed rooms"},
    )
    assert _plan([beds], None, "a 2 bedroom apartment in Sunnyvale").tool_calls == (
        ("set_beds", {"number_of_beds": 2}),
    )
    seats = _setter(
        "set_seats",
        number_of_seats={"type": "integer", "enum": [1, 2, 3, 4], "description": "Number of event tickets"},
    )
    assert _plan([seats], "How many tickets?", "That one sounds fun, I want 2 tickets").tool_calls == (
        ("set_seats", {"number_of_seats": 2}),
    )


def test_a_name_after_tickets_for_and_a_category_answer_is_not_also_a_name() -> None:
    film = _setter("set_film", movie_name={"type": "string", "description": "Name of the movie"})
    assert _plan([film], None, "I want to buy 3 tickets for Dumbo").tool_calls == (
        ("set_film", {"movie_name": "Dumbo"}),
    )
    event = _setter(
        "set_event",
        category={"type": "string", "enum": ["Music", "Sports"], "description": "Type of event"},
        event_name={"type": "string", "description": "Name of event"},
    )
    assert _plan([event], "What type of event?", "Music").tool_calls == (
        ("set_event", {"category": "Music"}),
    )


def test_a_part_of_the_day_before_the_hour_and_features_asked_for_in_a_question() -> None:
    when = _setter("set_time", show_time={"type": "string", "description": "Time of the show"})
    assert _plan([when], "What time?", "Make it evening 6").tool_calls == (
        ("set_time", {"show_time": "18:00"}),
    )
    assert _plan([when], "What time?", "afternoon 12 works").tool_calls == (
        ("set_time", {"show_time": "12:00"}),
    )
    flag = {
        "type": "string",
        "enum": ["True", "False", "dontcare"],
        "description": "Whether pets are allowed",
    }
    pets = _setter("set_pets", pets_allowed=flag)
    assert _plan([pets], None, "Can you find me a place where pets are allowed?").tool_calls == (
        ("set_pets", {"pets_allowed": "True"}),
    )
    assert _plan([pets], None, "Are pets allowed there?").tool_calls == ()  # asks about the offer


@pytest.mark.parametrize("said", ["You got it.", "Sounds perfect.", "That'll work, thanks", "you're right"])
def test_more_ways_to_say_yes_to_a_readback(said: str) -> None:
    tools = [
        {
            "name": "confirm_pending",
            "description": "Confirm.",
            "parameters": {"type": "object", "properties": {}},
        },
        {
            "name": "reject_pending",
            "description": "Reject.",
            "parameters": {"type": "object", "properties": {}},
        },
    ]
    assert _plan(tools, "Just to confirm — 2 tickets. Is that correct?", said).tool_calls == (
        ("confirm_pending", {}),
    )


def test_a_length_in_days_is_a_count_and_a_feature_by_its_distinctive_word() -> None:
    stay = _setter("set_stay", stay_length={"type": "string", "description": "Length of stay in days"})
    assert _plan([stay], "How long will you stay?", "for 3 nights").tool_calls == (
        ("set_stay", {"stay_length": "3"}),
    )
    flag = {"type": "string", "enum": ["True", "False", "dontcare"], "description": "Has vegetarian options"}
    veg = _setter("set_veg", has_vegetarian_options=flag)
    assert _plan([veg], None, "somewhere with vegetarian food").tool_calls == (
        ("set_veg", {"has_vegetarian_options": "True"}),
    )
    stars = {"type": "integer", "enum": [1, 2, 3, 4, 5], "description": "Star rating of the hotel"}
    assert _plan([_setter("set_stars", star_rating=stars)], None, "a 4 star hotel").tool_calls == (
        ("set_stars", {"star_rating": 4}),
    )


def test_a_person_the_agent_offered_is_picked_by_agreement_only_when_asked() -> None:
    therapist = _setter(
        "set_therapist", therapist_name={"type": "string", "description": "Name of the therapist"}
    )
    offer = ("I found Ana Ruiz.",)
    instruction = "<system_directive>\nWhat is the name of the therapist?\n</system_directive>"
    picked = plan_turn([therapist], system_instruction=instruction, user_text="that one sounds good",
                       now=NOW, agent_said=offer)  # fmt: skip
    assert picked.tool_calls == (("set_therapist", {"therapist_name": "Ana Ruiz"}),)
    other = "<system_directive>\nWhat date would you like?\n</system_directive>"
    date = _setter("set_date", appointment_date={"type": "string", "description": "Date of the appointment"})
    unasked = plan_turn([therapist, date], system_instruction=other, user_text="sounds good",
                        now=NOW, agent_said=offer)  # fmt: skip
    assert unasked.tool_calls == ()


def test_a_rating_is_read_as_a_number_with_the_decimals_learned_for_ratings() -> None:
    rating = _setter("set_rating", rating={"type": "string", "description": "Review rating of the apartment"})
    for said in ("a rating of 3.8 or higher", "4.2 stars or higher", "as long as it is at least 3.4"):
        (call,) = _plan([rating], None, said).tool_calls
        assert call[1]["rating"] in {"3.80", "4.20", "3.40"}  # two decimals, as ratings were written
    assert _plan([rating], None, "we are 4 people").tool_calls == ()


def test_a_count_is_no_address_and_a_first_word_is_a_city_only_as_the_answer() -> None:
    ride = _setter(
        "set_ride",
        destination={"type": "string", "description": "Destination address for the ride"},
        riders={"type": "integer", "description": "Number of riders"},
    )
    assert _plan([ride], "Where to, and for how many?", "It's just me. So only 1, please.").tool_calls == (
        ("set_ride", {"riders": 1}),
    )
    city = _setter(
        "set_city",
        city={"type": "string", "description": "City where the shop is located"},
        time={"type": "string", "description": "Time of the visit"},
    )  # the time is asked: the city is not
    assert _plan([city], "What time?", "Milpitas.").tool_calls == (("set_city", {"city": "Milpitas"}),)
    assert _plan([city], "What time?", "Reserve for six in the evening.").tool_calls == (
        ("set_city", {"time": "18:00"}),  # "Reserve" opens the sentence: no city
    )


def test_a_list_parameter_never_takes_the_users_words() -> None:
    alternatives = {
        "name": "request_alternatives",
        "description": "Show the next result.",
        "parameters": {
            "type": "object",
            "properties": {
                "exclude": {
                    "type": ["array", "null"],
                    "items": {"type": "string"},
                    "description": "The options already offered to the user.",
                }
            },
        },
    }
    assert _plan([alternatives], "Which options?", "American").tool_calls == ()
