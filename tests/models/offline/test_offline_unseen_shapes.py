"""The offline model on schema shapes of agents it was never tuned on: counts kept to what they count
(a star rating, a number of rooms written as strings beside an "any" value), a weekday followed by a count,
yes/no answers said without a yes-word and features named by their one distinctive word. The tools below
are written for these tests (a lodge, a shuttle); none is an agent of the tuning data."""

from __future__ import annotations

import datetime as dt
from functools import partial

import pytest

from slotgraph.models.offline.choices import match_number_choice, mentions_flag, numeric_values
from slotgraph.models.offline.confirmation import is_agreeing
from slotgraph.models.offline.dates import find_dates

from .planning import plan_for, setter

NOW = dt.datetime(2026, 5, 4, 9, 0)  # a Monday
_plan = partial(plan_for, now=NOW)

NIGHTS = {"type": "string", "description": "How many nights the guest stays at the lodge"}
ROOMS_FILTER = {"type": "string", "enum": ["1", "2", "3", "dontcare"], "description": "Rooms wanted"}
STARS_FILTER = {"type": "string", "enum": ["1", "2", "3", "4", "5", "dontcare"], "description": "Lodge class"}
ARRIVAL = {"type": "string", "format": "date", "description": "Day the guest arrives"}


def _lodge() -> list[dict[str, object]]:
    return [
        setter("set_arrival", arrival_date=ARRIVAL),
        setter("set_nights", number_of_nights=NIGHTS),
        setter("set_rooms_filter", number_of_rooms=ROOMS_FILTER),
        setter("set_stars_filter", star_class=STARS_FILTER),
    ]


def test_numbers_written_as_strings_beside_an_any_value_are_counts() -> None:
    assert numeric_values(["1", "2", "3", "dontcare"]) and numeric_values([1, 2, 3])
    assert not numeric_values(["small", "1", "dontcare"]) and not numeric_values(["1", "any", "dontcare"])
    found = match_number_choice("we need 2 rooms", ["1", "2", "3", "dontcare"], frozenset({"rooms"}))
    assert found is not None and found.value == "2"  # the enum's own spelling


def test_a_count_of_nights_goes_to_no_rooms_or_stars() -> None:
    plan = _plan(_lodge(), "When do you arrive?", "arriving on Wednesday and staying for 4 nights")
    assert plan.tool_calls == (
        ("set_arrival", {"arrival_date": "2026-05-06"}),
        ("set_nights", {"number_of_nights": "4"}),
    )
    # during a readback nothing asks for a room count: "4 nights" still is no number of rooms
    assert match_number_choice("staying 3 nights", ["1", "2", "3", "dontcare"], frozenset({"rooms"})) is None


def test_a_weekday_followed_by_a_count_is_no_day_of_the_month() -> None:
    dates = find_dates("check in Wednesday, 2 nights", NOW)
    assert [f.value for f in dates] == [dt.date(2026, 5, 6)]
    assert [f.value for f in find_dates("July 3 people", NOW)] != [dt.date(2026, 7, 3)]
    assert [f.value for f in find_dates("Wednesday the 13th", NOW)] == [dt.date(2026, 5, 13)]


def test_a_number_before_another_parameters_word_is_not_the_asked_count() -> None:
    plan = _plan(_lodge(), "How many nights will you stay?", "a 4 star lodge please")
    assert plan.tool_calls == (("set_stars_filter", {"star_class": "4"}),)


SHUTTLE_STOP = {"type": "string", "description": "Stop the shuttle ride ends at"}
SEATS = {"type": "integer", "description": "Seats in the shuttle ride"}
POOLED = {"type": "boolean", "description": "Whether the shuttle ride is pooled with strangers"}


def _shuttle() -> list[dict[str, object]]:
    return [setter("set_stop", stop=SHUTTLE_STOP), setter("set_seats", seats=SEATS),
            setter("set_pooled", pooled_ride=POOLED)]  # fmt: skip


@pytest.mark.parametrize(
    "said", ["I don't mind at all", "we're fine with that", "I'd like that", "that would be nice", "sure"]
)
def test_a_yes_said_without_a_yes_word_answers_a_yes_no_question(said: str) -> None:
    assert is_agreeing(said)
    plan = _plan(_shuttle(), "Should the ride be pooled with strangers?", said)
    assert plan.tool_calls == (("set_pooled", {"pooled_ride": True}),)


def test_agreeing_is_not_declining() -> None:
    assert not is_agreeing("I'd rather not") and not is_agreeing("no thanks")
    plan = _plan(_shuttle(), "Should the ride be pooled with strangers?", "I'd rather not")
    assert plan.tool_calls == (("set_pooled", {"pooled_ride": False}),)


def test_a_feature_is_named_by_its_one_distinctive_word() -> None:
    # "ride" is every parameter's word here: "a pooled shuttle" names the feature without it
    plan = _plan(_shuttle(), None, "Could I get a pooled shuttle for 3 seats")
    assert ("set_pooled", {"pooled_ride": True}) in plan.tool_calls
    assert mentions_flag("a pooled shuttle", ["pooled", "ride"]) is None  # without the agent's words
    assert mentions_flag("a pooled shuttle", ["pooled", "ride"], common=frozenset({"ride"})) is True
    assert mentions_flag("not a pooled one", ["pooled", "ride"], common=frozenset({"ride"})) is False


BISTRO_NAME = {"type": "string", "description": "Name of the bistro"}
DISHES = {"type": "string", "description": "Style of dishes the bistro cooks"}
BUDGET = {"type": "string", "enum": ["cheap", "moderate", "pricey"], "description": "Price band of a bistro"}
TERRACE = {"type": "boolean", "description": "Whether the bistro has terrace seating"}


def _bistro() -> list[dict[str, object]]:
    return [
        setter("set_bistro", bistro_name=BISTRO_NAME),
        setter("set_dishes", dishes=DISHES),
        setter("set_budget", price_band=BUDGET),
        setter("set_terrace", terrace_seating=TERRACE),
    ]


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("I'd prefer Georgian kind of dishes", "Georgian"),  # "kind of" between the value and its noun
        ("I really like Basque dishes", "Basque"),  # a cue word before it does not make it a bistro's name
        ("I'd like Georgian if there is any", "Georgian"),  # the style is asked: no name was
    ],
)
def test_a_style_said_after_a_name_cue_is_the_style_not_a_name(said: str, value: str) -> None:
    plan = _plan(_bistro(), "What style of dishes would you like?", said)
    assert plan.tool_calls == (("set_dishes", {"dishes": value}),)


def test_price_words_and_features_said_beside_a_style_are_not_part_of_it() -> None:
    plan = _plan(_bistro(), "What style of dishes would you like?", "some moderately priced Basque dishes")
    assert plan.tool_calls == (
        ("set_dishes", {"dishes": "Basque"}),
        ("set_budget", {"price_band": "moderate"}),
    )
    plan = _plan(_bistro(), "What style of dishes would you like?", "Basque. And a terrace seating please.")
    assert ("set_dishes", {"dishes": "Basque"}) in plan.tool_calls
    plan = _plan(_bistro(), "What style of dishes would you like?", "somewhere cheap with good reviews")
    assert plan.tool_calls == (("set_budget", {"price_band": "cheap"}),)


NEXT_RESULT = {
    "name": "next_result",
    "description": "Show the next result when the user asks for other options.",
    "parameters": {
        "type": "object",
        "properties": {"exclude": {"type": "array", "items": {"type": "string"}, "description": "Shown"}},
    },
}
OFFERED = ("I found Lantern Bistro. What is the name of the bistro?",)


@pytest.mark.parametrize(
    "said",
    [
        "Could you recommend a quieter bistro?",
        "is there a cheaper place nearby?",
        "Do you know of any bistro with a terrace?",
        "I want something with a higher rating",
    ],
)
def test_after_an_offer_a_request_for_a_different_one_asks_for_the_next(said: str) -> None:
    plan = _plan([NEXT_RESULT], "What is the name of the bistro?", said, agent_said=OFFERED)
    assert plan.tool_calls == (("next_result", {"exclude": ["Lantern Bistro"]}),)


@pytest.mark.parametrize(
    "said",
    ["Do you know the price band of the bistro?", "Is there a terrace at Lantern Bistro?", "Sounds good"],
)
def test_a_question_about_the_offered_one_asks_for_no_other(said: str) -> None:
    assert _plan([NEXT_RESULT], "What is the name of the bistro?", said, agent_said=OFFERED).tool_calls == ()


def test_before_anything_was_offered_a_request_is_no_request_for_another() -> None:
    plan = _plan([NEXT_RESULT], "How can I help you?", "Could you recommend a bistro?", agent_said=())
    assert plan.tool_calls == ()


def _intent(options: dict[str, str]) -> dict[str, object]:
    described = "; ".join(f"{k} = {v}" for k, v in options.items())
    return setter(
        "set_intent",
        intent={"type": "string", "enum": list(options), "description": f"What the user wants: {described}."},
    )


VET = {"LookupVets": "find a vet clinic in a town", "BookVisit": "book a visit with a chosen vet clinic"}
CLINIC_NAME = {"type": "string", "description": "Name of the vet clinic"}
GREETING = "How can I help you? I can find a vet clinic in a town, or book a visit with a vet clinic."


def test_scheduling_is_booking() -> None:
    plan = _plan([_intent(VET)], "How can I help you?", "I need to schedule a check for my cat")
    assert plan.tool_calls == (("set_intent", {"intent": "BookVisit"}),)


def test_a_request_naming_one_business_asks_to_act_on_it_not_to_look_one_up() -> None:
    tools = [_intent(VET), setter("set_clinic", clinic_name=CLINIC_NAME)]
    plan = _plan(tools, GREETING, "I'd like to take Rex to Paws And Claws")
    assert plan.tool_calls == (
        ("set_intent", {"intent": "BookVisit"}),
        ("set_clinic", {"clinic_name": "Paws And Claws"}),
    )
    plan = _plan(tools, GREETING, "Can you find a clinic like Paws And Claws?")
    assert ("set_intent", {"intent": "LookupVets"}) in plan.tool_calls  # the look-up is named: it stays


def test_a_stay_said_as_arriving_and_leaving_is_a_start_and_a_length() -> None:
    plan = _plan(_lodge(), "When do you arrive?", "we'll get in on the 12th and head home on the 15th")
    assert plan.tool_calls == (
        ("set_arrival", {"arrival_date": "2026-05-12"}),
        ("set_nights", {"number_of_nights": "3"}),
    )


def test_a_feature_is_named_by_another_form_of_its_word() -> None:
    assert mentions_flag("we'd like to pool with others", ["pooled"]) is True
    plan = _plan(_shuttle(), "How many seats?", "Three seats, and we are happy to pool")
    assert plan.tool_calls == (("set_seats", {"seats": 3}), ("set_pooled", {"pooled_ride": True}))


LODGE_NAME = {"type": "string", "description": "Name of the lodge"}


def test_an_earlier_offer_is_picked_by_a_word_only_it_has() -> None:
    said = (
        "I found Fernhill Mountain Lodge. What is the name of the lodge?",
        "I found Bramble Creek Inn. What is the name of the lodge?",
    )
    tools = [setter("set_lodge", lodge_name=LODGE_NAME), setter("set_nights", number_of_nights=NIGHTS)]
    plan = _plan(
        tools, "What is the name of the lodge?", "The Bramble one was nicer, book it", agent_said=said
    )
    assert plan.tool_calls == (("set_lodge", {"lodge_name": "Bramble Creek Inn"}),)  # "one" is no count
    plan = _plan(tools, "What is the name of the lodge?", "Let's go back to Fernhill", agent_said=said)
    assert plan.tool_calls == (("set_lodge", {"lodge_name": "Fernhill Mountain Lodge"}),)


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("We'd love a table at Little Saigon Kitchen tonight", "Little Saigon Kitchen"),  # capitalised
        ("Harbor Lights, please.", "Harbor Lights"),  # a bare name with a polite ending
        ("Zuni bistro in the Mission", "Zuni"),  # the reply opens with the name and its kind
        ("I'd like a reservation for Blue Door Cafe", "Blue Door Cafe"),
    ],
)
def test_a_business_name_is_read_from_more_ways_of_naming_it(said: str, name: str) -> None:
    plan = _plan([setter("set_bistro", bistro_name=BISTRO_NAME)], "What is the name of the bistro?", said)
    assert plan.tool_calls == (("set_bistro", {"bistro_name": name}),)


@pytest.mark.parametrize("said", ["The bistro is fine", "a little bistro", "Basque bistro please"])
def test_judgements_and_styles_are_no_business_name(said: str) -> None:
    tools = [setter("set_bistro", bistro_name=BISTRO_NAME), setter("set_dishes", dishes=DISHES)]
    plan = _plan(tools, "What style of dishes would you like?", said)
    assert all(name != "set_bistro" for name, _ in plan.tool_calls)


ARRIVE = {"type": "string", "format": "date", "description": "Date of arrival at the cabin"}
DEPART = {"type": "string", "format": "date", "description": "Date of departure from the cabin"}


def test_a_date_with_no_end_named_goes_to_the_end_once_the_start_was_given() -> None:
    tools = [setter("set_check_in", check_in_date=ARRIVE), setter("set_check_out", check_out_date=DEPART),
             setter("set_town", town={"type": "string", "description": "Town of the cabin"})]  # fmt: skip
    fresh = _plan(tools, "Which town?", "On May 20th")
    assert fresh.tool_calls == (("set_check_in", {"check_in_date": "2026-05-20"}),)
    later = _plan(tools, "Which town?", "On May 20th", given=frozenset({"set_check_in"}))
    assert later.tool_calls == (("set_check_out", {"check_out_date": "2026-05-20"}),)
    named = _plan(tools, "Which town?", "arriving May 20th", given=frozenset({"set_check_in"}))
    assert named.tool_calls == (("set_check_in", {"check_in_date": "2026-05-20"}),)  # a change of the start


@pytest.mark.parametrize(
    "said",
    [
        "Do they have a terrace seating?",
        "Is there terrace seating there?",
        "I'd like to know if they have terrace seating",
        "does it have terrace seating",
    ],
)
def test_a_question_about_what_was_offered_sets_no_feature(said: str) -> None:
    plan = _plan(_bistro(), "What is the name of the bistro?", said, agent_said=OFFERED)
    assert all(name != "set_terrace" for name, _ in plan.tool_calls)


def test_a_request_put_as_a_question_still_asks_for_the_feature() -> None:
    plan = _plan(_bistro(), "What style of dishes?", "Can you find one with terrace seating?")
    assert ("set_terrace", {"terrace_seating": True}) in plan.tool_calls


@pytest.mark.parametrize(
    "said", ["That will be fine for me.", "Got it. That's what I want.", "that'd be great"]
)
def test_more_ways_to_say_yes_to_a_readback(said: str) -> None:
    tools = [setter("confirm_pending"), setter("reject_pending"), setter("set_seats", seats=SEATS)]
    plan = _plan(tools, "Just to confirm: 3 seats. Is that correct?", said, readback=True)
    assert plan.tool_calls == (("confirm_pending", {}),)


@pytest.mark.parametrize(("said", "seats"), [("just for one", 1), ("five individuals", 5)])
def test_more_ways_to_count_people(said: str, seats: int) -> None:
    assert _plan(_shuttle(), "How many seats?", said).tool_calls == (("set_seats", {"seats": seats}),)


def test_a_misspelt_price_word_still_names_a_level() -> None:
    plan = _plan(_bistro(), "What style of dishes?", "somewhere afforadable please")
    assert plan.tool_calls == (("set_budget", {"price_band": "moderate"}),)
    plan = _plan(_bistro(), "What style of dishes?", "somewhere affable please")
    assert all(name != "set_budget" for name, _ in plan.tool_calls)


def test_a_request_is_no_place() -> None:
    tools = [setter("set_stop", stop={"type": "string", "description": "Destination address of the ride"})]
    assert _plan(tools, "Where does the ride end?", "Try again, this time earlier").tool_calls == ()
    assert _plan(tools, "Where does the ride end?", "Please book it").tool_calls == ()


def test_a_value_learned_for_a_category_is_no_business_name() -> None:
    food = {"type": "string", "description": "Cuisine of food served by the eatery"}
    tools = [setter("set_eatery", eatery_name={"type": "string", "description": "Name of the eatery"}),
             setter("set_food", food_type=food)]  # fmt: skip
    plan = _plan(tools, "What cuisine?", "I'm in town for a day. I would like Sushi at a good price.")
    assert plan.tool_calls == (("set_food", {"food_type": "Japanese"}),)
    assert _plan(tools, "What cuisine?", "I am staying in the area").tool_calls == ()


SMOKING = {"type": "boolean", "description": "Whether smoking is allowed in the lodge"}


def test_a_feature_said_as_another_form_or_negated_with_non() -> None:
    tools = [setter("set_smoking", smoking_allowed=SMOKING), setter("set_nights", number_of_nights=NIGHTS)]
    plan = _plan(tools, "How many nights?", "two nights somewhere I can smoke")
    assert ("set_smoking", {"smoking_allowed": True}) in plan.tool_calls
    plan = _plan(tools, "Is smoking allowed?", "I'd prefer non-smoking")
    assert plan.tool_calls == (("set_smoking", {"smoking_allowed": False}),)


def test_a_price_level_said_in_passing_is_read_on_its_scale_before_its_words() -> None:
    plan = _plan(_bistro(), "What style of dishes?", "Basque, not too pricey")
    assert plan.tool_calls == (
        ("set_dishes", {"dishes": "Basque"}),
        ("set_budget", {"price_band": "moderate"}),
    )


def test_the_one_proper_adjective_inside_a_sentence_is_the_style() -> None:
    plan = _plan(_bistro(), "What style of dishes?", "I want to sit somewhere quiet and eat Basque")
    assert plan.tool_calls == (("set_dishes", {"dishes": "Basque"}),)
    plan = _plan(_bistro(), "What style of dishes?", "Somewhere with nice options, maybe Georgian")
    assert plan.tool_calls == (("set_dishes", {"dishes": "Georgian"}),)


SPECIALTY = {
    "type": "string",
    "enum": ["Marriage Counselor", "Child Psychologist", "Psychiatrist"],
    "description": "Specialty of the counselor",
}


def test_a_choice_said_in_passing_by_a_long_word_only_its_value_has() -> None:
    tools = [setter("set_specialty", specialty=SPECIALTY), setter("set_town", town=LODGE_NAME)]
    plan = _plan(tools, "Which town?", "We need some help with our marriage")
    assert plan.tool_calls == (("set_specialty", {"specialty": "Marriage Counselor"}),)
    assert _plan(tools, "Which town?", "Is she a marriage counselor?").tool_calls == ()  # a question
    # "counselor" is no value's own word here: it is in the parameter's description
    assert _plan(tools, "Which town?", "any counselor will do").tool_calls == ()


RIDE_END = {"type": "string", "description": "Destination for the shuttle ride"}
LODGE_AREA = {"type": "string", "description": "Location of the lodge"}


def test_a_place_one_rides_to_is_kept_as_said_and_ends_before_the_next_clause() -> None:
    plan = _plan([setter("set_end", destination=RIDE_END)], "Where to?", "to SFO please")
    assert plan.tool_calls == (("set_end", {"destination": "SFO"}),)  # the airport, not the city
    said = "I want to go to Pier 7, can you get a shuttle for me?"
    plan = _plan([setter("set_end", destination=RIDE_END)], "Where to?", said)
    assert plan.tool_calls == (("set_end", {"destination": "Pier 7"}),)
    plan = _plan([setter("set_area", destination=LODGE_AREA)], "Where to?", "to SFO please")
    assert plan.tool_calls == (("set_area", {"destination": "San Francisco"}),)  # a location is its city


def _readback_tools() -> list[dict[str, object]]:
    return [
        setter("confirm_pending"),
        setter("reject_pending"),
        setter("set_bistro", bistro_name=BISTRO_NAME),
    ]


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("No, I want to go to Harbor Lights.", "Harbor Lights"),
        ("No, sorry. I'd like to try the Blue Door Cafe instead.", "Blue Door Cafe"),
    ],
)
def test_a_business_named_in_a_correction_during_the_readback_replaces_it(said: str, name: str) -> None:
    plan = _plan(_readback_tools(), "Just to confirm: Lantern Bistro. Is that correct?", said, readback=True)
    assert plan.tool_calls == (("set_bistro", {"bistro_name": name}),)
    plan = _plan(_readback_tools(), "Just to confirm: Lantern Bistro. Is that correct?", "No", readback=True)
    assert plan.tool_calls == (("reject_pending", {}),)


@pytest.mark.parametrize(
    "said",
    [
        "Can you give me the address of this bistro.",
        "I don't like that place, is there somewhere else",
        "Sounds good, what is their phone number?",
    ],
)
def test_asking_about_an_offer_or_disliking_it_does_not_pick_it(said: str) -> None:
    tools = [setter("set_bistro", bistro_name=BISTRO_NAME)]
    plan = _plan(tools, "What is the name of the bistro?", said, agent_said=OFFERED)
    assert ("set_bistro", {"bistro_name": "Lantern Bistro"}) not in plan.tool_calls
    plan = _plan(tools, "What is the name of the bistro?", "Sounds good, book it", agent_said=OFFERED)
    assert plan.tool_calls == (("set_bistro", {"bistro_name": "Lantern Bistro"}),)


@pytest.mark.parametrize("said", ["That's all correct.", "Sounds fantastic!", "It's all good"])
def test_still_more_ways_to_say_yes(said: str) -> None:
    tools = [setter("confirm_pending"), setter("reject_pending"), setter("set_seats", seats=SEATS)]
    plan = _plan(tools, "Just to confirm: 3 seats. Is that correct?", said, readback=True)
    assert plan.tool_calls == (("confirm_pending", {}),)


def test_a_capitalised_the_is_part_of_the_name() -> None:
    tools = [setter("set_bistro", bistro_name=BISTRO_NAME)]
    plan = _plan(tools, "What is the name of the bistro?", "a table at The Copper Pot please")
    assert plan.tool_calls == (("set_bistro", {"bistro_name": "The Copper Pot"}),)
    plan = _plan(tools, "What is the name of the bistro?", "a table at the Copper Pot please")
    assert plan.tool_calls == (("set_bistro", {"bistro_name": "Copper Pot"}),)


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("I am interested in Zuni at noon", "Zuni"),
        ("Actually, make it Harbor Lights at 6 pm.", "Harbor Lights"),
        ("I could go for some Copper Pot tonight", "Copper Pot"),
    ],
)
def test_more_cues_before_a_business_name(said: str, name: str) -> None:
    plan = _plan([setter("set_bistro", bistro_name=BISTRO_NAME)], "What is the name of the bistro?", said)
    assert plan.tool_calls == (("set_bistro", {"bistro_name": name}),)
    assert _plan([setter("set_bistro", bistro_name=BISTRO_NAME)], None, "make it 6 people").tool_calls == ()
