"""Round 3 of real-language fixes, each a rule about English or about the schema: business names said with
a cue (or as the subject of a sentence about them), told apart from a city of the same name, and the city a
named place is in. The tools below (a bistro booking) are written for these tests; the
phrasings are not taken from any dataset."""

from __future__ import annotations

import datetime as dt
from functools import partial

import pytest

from slotgraph.models.offline.choices import match_choice, match_price_choice, mentions_flag
from slotgraph.models.offline.confirmation import is_affirmative
from slotgraph.models.offline.entities import find_entity_name
from slotgraph.models.offline.places import find_place_names

from .planning import plan_for, setter

NOW = dt.datetime(2026, 5, 4, 9, 0)  # a Monday
_plan = partial(plan_for, now=NOW)

TAVERN = {"type": "string", "description": "Name of the bistro"}
TOWN = {"type": "string", "description": "City where the bistro is located"}
GUESTS = {"type": "integer", "description": "Number of guests at the table"}
CUISINE = {"type": "string", "description": "Style of food served at the bistro"}


def _tavern() -> list[dict[str, object]]:
    return [
        setter("set_tavern", tavern_name=TAVERN),
        setter("set_town", town_city=TOWN),
        setter("set_guests", guests=GUESTS),
        setter("set_cuisine", cuisine=CUISINE),
    ]


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("I'm looking for Copper Kettle.", "Copper Kettle"),
        ("Could you search for Blue Heron Tavern?", "Blue Heron Tavern"),
        ("I'd like a booking in Harbor Lights at eight", "Harbor Lights"),
        ("The bistro we want to try tonight is Maple Barrel", "Maple Barrel"),
        ("Ironwood Taps in Hayward is the place, for three of us.", "Ironwood Taps"),
        ("Yes, the Gilded Goose in Fresno", "Gilded Goose"),
        ("Okay, Rusty Anchor. We are six people.", "Rusty Anchor"),
        ("No, the bistro should be Fish to Table", "Fish to Table"),
    ],
)
def test_a_business_said_with_a_cue_or_as_the_subject_is_the_name(said: str, name: str) -> None:
    plan = _plan(_tavern(), "What is the name of the bistro?", said)
    calls = dict(plan.tool_calls)
    assert calls.get("set_tavern") == {"tavern_name": name}


def test_a_name_said_to_be_the_business_is_no_city_even_when_a_city_bears_it() -> None:
    plan = _plan(_tavern(), "What is the name of the bistro?", "The name of the bistro is Lyon.")
    assert plan.tool_calls == (("set_tavern", {"tavern_name": "Lyon"}),)


def test_once_the_city_is_known_a_name_after_at_is_the_business() -> None:
    said = "a table for two at Lyon around 7 pm"
    plan = _plan(_tavern(), "What is the name of the bistro?", said, given={"set_town"})
    assert dict(plan.tool_calls)["set_tavern"] == {"tavern_name": "Lyon"}
    # a city said after "to" or "in" is still a city, and is not read as the business
    moved = _plan(
        _tavern(), "What is the name of the bistro?", "can you look closer to Fresno?", given={"set_town"}
    )
    assert dict(moved.tool_calls).get("set_town") == {"town_city": "Fresno"}
    assert "set_tavern" not in dict(moved.tool_calls)


def test_a_place_in_a_city_leaves_the_city_to_the_city_parameter() -> None:
    plan = _plan(_tavern(), "Which city?", "we want to eat at Lyon in Modesto", given={"set_tavern"})
    assert dict(plan.tool_calls).get("set_town") == {"town_city": "Modesto"}
    plan = _plan(_tavern(), "What is the name of the bistro?", "we'll eat at Lyon in Modesto")
    assert dict(plan.tool_calls) == {
        "set_tavern": {"tavern_name": "Lyon"},
        "set_town": {"town_city": "Modesto"},
    }


def test_one_word_and_a_place_is_a_name_only_after_a_yes_or_the() -> None:
    assert find_entity_name("Search in Modesto.", None, asked=True) is None
    found = find_entity_name("Yes, Corvino in Modesto.", None, asked=True)
    assert found is not None and found.value == "Corvino"


def test_a_proper_adjective_is_the_category_asked_not_a_business() -> None:
    plan = _plan(_tavern(), "What style of food do you like?", "I'm looking for Lebanese in Modesto.")
    calls = dict(plan.tool_calls)
    assert calls.get("set_cuisine") == {"cuisine": "Lebanese"} and "set_tavern" not in calls


OFFER = "I found Olive Tree Bistro. What is the name of the bistro?"


@pytest.mark.parametrize(
    "said",
    [
        "Sounds alright. Could you book me a table there at 8?",
        "That seems like a fine choice, I'll get a booking with them.",
        "Lovely! Can you make my reservation?",
        "We would like a reservation for 3.",
    ],
)
def test_agreeing_to_the_one_offer_picks_it(said: str) -> None:
    found = find_entity_name(said, OFFER, asked=True)
    assert found is not None and found.value == "Olive Tree Bistro"


def test_an_agreement_is_no_name_and_a_number_with_a_slash_is_part_of_one() -> None:
    assert find_entity_name("Sounds OK. Is it far?", None, asked=True) is None
    offered = find_entity_name("that works", "I found 24/7 Diner Express.", asked=True)
    assert offered is not None and offered.value == "24/7 Diner Express"


@pytest.mark.parametrize(
    "said",
    ["Is there a patio?", "Looks fine, where is it and do they have a patio?", "And is there a patio there?"],
)
def test_asking_whether_there_is_a_feature_does_not_ask_for_it(said: str) -> None:
    assert mentions_flag(said, ["patio"]) is None


def test_asking_for_an_option_with_a_feature_still_asks_for_it() -> None:
    assert mentions_flag("Is there a bistro with a patio?", ["patio"]) is True
    assert mentions_flag("I'd love a patio, is it far?", ["patio"]) is True


def test_an_intensifier_alone_names_no_value() -> None:
    levels = ["cheap", "moderate", "very expensive"]
    assert match_choice("thank you very much, that's all", levels) is None
    found = match_choice("make it very expensive", levels)
    assert found is not None and found.value == "very expensive"


@pytest.mark.parametrize("said", ["Thank you, that's perfect. Is it far?", "thanks so much, that works"])
def test_a_yes_after_thanks_is_a_yes(said: str) -> None:
    assert is_affirmative(said)
    assert not is_affirmative("Thank you. Where is it?")


def _stay() -> list[dict[str, object]]:
    return [
        setter("set_destination", destination_city={"type": "string", "description": "City to stay in"}),
        setter("set_guests", guests=GUESTS),
        setter("set_rating", min_rating={"type": "string", "description": "Review rating of the cabin"}),
    ]


def test_a_city_opening_a_later_sentence_is_the_city() -> None:
    said = "Some Lebanese food would be great. Modesto would suit us."
    plan = _plan(_tavern(), "What style of food do you like?", said)
    assert dict(plan.tool_calls).get("set_town") == {"town_city": "Modesto"}


def test_a_town_named_after_a_saint_or_a_mountain_is_its_own_town() -> None:
    plan = _plan(_tavern(), "Which city?", "somewhere in Ste. Modesto please")
    assert dict(plan.tool_calls).get("set_town") == {"town_city": "Ste. Modesto"}
    plan = _plan(_tavern(), "What style of food?", "Search Fresno for Lebanese food")
    assert dict(plan.tool_calls).get("set_town") == {"town_city": "Fresno"}


def test_a_place_said_to_be_not_the_one_is_skipped_and_initials_keep_their_dot() -> None:
    plan = _plan(_stay(), "Where to?", "We aren't flying to Denver. We are flying to Boise.")
    assert dict(plan.tool_calls).get("set_destination") == {"destination_city": "Boise"}
    assert [name for _, name, _, _ in find_place_names("I'm heading to Washington D.C.")] == [
        "Washington D.C."
    ]


@pytest.mark.parametrize(
    "said",
    ["show me ones with a 4.5 rating or more", "any cabins rated better than 4.5", "a 4.5 rated cabin"],
)
def test_a_rating_said_before_or_after_its_word(said: str) -> None:
    plan = _plan(_stay(), "Anything else?", said)
    assert dict(plan.tool_calls).get("set_rating") == {"min_rating": "4.50"}


@pytest.mark.parametrize(
    ("said", "count"),
    [
        ("we are four.", 4),
        ("There'll be 5 of us", 5),
        ("arriving with 3 other guests", 4),
        ("I'm the only one", 1),
    ],
)
def test_how_many_we_are(said: str, count: int) -> None:
    plan = _plan(_stay(), "Where to?", said)
    assert dict(plan.tool_calls).get("set_guests") == {"guests": count}


def test_an_embedded_whether_question_sets_no_feature() -> None:
    assert mentions_flag("Go ahead, and tell me the price and whether it has a patio.", ["patio"]) is None


FOOD_KIND = {"type": "string", "description": "Kind of food served by the restaurant"}


@pytest.mark.parametrize(
    ("said", "cuisine"),
    [
        ("we feel like burritos", "Mexican"),
        ("something meatless please", "Vegetarian"),
        ("dim sum", "Chinese"),
    ],
)
def test_a_dish_or_a_regional_kitchen_names_its_cuisine(said: str, cuisine: str) -> None:
    tools = [setter("set_food", food_kind=FOOD_KIND)]
    plan = _plan(tools, "What kind of food would you like?", said)
    assert plan.tool_calls == (("set_food", {"food_kind": cuisine}),)


def test_a_name_before_the_kind_of_business_is_one_of_that_name_unless_it_is_the_category() -> None:
    booking = _tavern()[:3]  # no category to read it as
    plan = _plan(booking, "What is the name of the bistro?", "We want an Ember Grove bistro in Fresno")
    assert dict(plan.tool_calls).get("set_tavern") == {"tavern_name": "Ember Grove"}
    plan = _plan(_tavern(), "What is the name of the bistro?", "We want a Lebanese bistro in Fresno")
    assert "set_tavern" not in dict(plan.tool_calls)


def test_a_number_the_agent_found_is_a_name_that_can_be_agreed_to() -> None:
    found = find_entity_name("That works.", "I found 1912. What is the name of the bistro?", asked=True)
    assert found is not None and found.value == "1912"
    assert find_entity_name("That works.", "It is 1912 now.", asked=True) is None


def test_a_reply_opening_with_for_and_a_number_counts_people() -> None:
    plan = _plan(_tavern(), "What time would you like?", "Yes, for two.")
    assert plan.tool_calls == (("set_guests", {"guests": 2}),)


def _readback() -> list[dict[str, object]]:
    patio = {"type": "boolean", "description": "Whether the bistro has a patio"}
    return [setter("confirm_pending"), setter("reject_pending"), setter("set_tavern", tavern_name=TAVERN),
            setter("set_patio", has_patio=patio)]  # fmt: skip


def test_during_the_readback_thats_the_one_confirms_and_a_question_names_no_business() -> None:
    plan = _plan(
        _readback(), "Just to confirm: Olive Tree. Is that correct?", "That's the one.", readback=True
    )
    assert plan.tool_calls == (("confirm_pending", {}),)
    said = "Yes, that's fine. Is it a Patio bistro?"
    plan = _plan(_readback(), "Just to confirm: Olive Tree. Is that correct?", said, readback=True)
    assert plan.tool_calls == (("confirm_pending", {}),)


def test_economical_is_the_middle_of_a_price_scale() -> None:
    found = match_price_choice("something economical", ["cheap", "moderate", "pricey", "ultra high-end"])
    assert found is not None and found.value == "moderate"


NEXT_RESULT = {
    "name": "next_result",
    "description": "Show another option when the user asks for other options.",
    "parameters": {"type": "object", "properties": {}},
}


@pytest.mark.parametrize("said", ["Got any more bistro ideas?", "Please find a better option."])
def test_asking_for_more_or_better_suggestions_asks_for_the_next_option(said: str) -> None:
    plan = _plan([NEXT_RESULT], "Which bistro?", said, agent_said=("I found Olive Tree.",))
    assert plan.tool_calls == (("next_result", {}),)


def test_a_number_after_a_party_phrase_is_people_not_a_time() -> None:
    when = {"type": "string", "format": "time", "description": "Time of the booking"}
    tools = [setter("set_time", time=when), setter("set_guests", guests=GUESTS)]
    plan = _plan(tools, "What time?", "please get a table for us for five")
    assert plan.tool_calls == (("set_guests", {"guests": 5}),)
    plan = _plan(tools, "What time?", "a reservation for seven")
    assert plan.tool_calls == (("set_guests", {"guests": 7}),)


def test_a_rating_takes_no_words_and_a_place_stops_at_a_glued_sentence() -> None:
    tools = [setter("set_rating", min_rating={"type": "string", "description": "Review rating of the cabin"}),
             setter("set_area", area={"type": "string", "description": "Location of the cabin"})]  # fmt: skip
    assert _plan(tools, "What rating?", "Gosh this cabin looks lovely.").tool_calls == ()
    plan = _plan(tools, "Where?", "We want Boise.and we arrive Friday")
    assert plan.tool_calls == (("set_area", {"area": "Boise"}),)
    assert _plan(tools, "Where?", "You got it.").tool_calls == ()


def test_next_is_no_name_and_a_question_after_and_asks_about_it() -> None:
    assert find_entity_name("I'll visit on Friday Next week", None, asked=False) is None
    assert mentions_flag("Give me the address and do they have a patio?", ["patio"]) is None


def _shuttle() -> list[dict[str, object]]:
    stop = {"type": "string", "description": "Destination address of the shuttle"}
    return [setter("set_stop", dropoff=stop)]


@pytest.mark.parametrize(
    ("said", "place"),
    [
        ("We must reach Holy Cross Chapel.", "Holy Cross Chapel"),
        ("It's for one. We're going to Four Winds Plaza.", "Four Winds Plaza"),
        ("Take us to 77 Birch Road #4", "77 Birch Road #4"),
        ("I have to get to 12 Alder Court Unit 5 where my sister lives", "12 Alder Court Unit 5"),
    ],
)
def test_a_destination_after_reach_a_number_word_a_unit_number_or_before_a_clause(
    said: str, place: str
) -> None:
    plan = _plan(_shuttle(), "Where to?", said)
    assert dict(plan.tool_calls).get("set_stop") == {"dropoff": place}


def test_a_house_number_is_no_count() -> None:
    tools = [*_shuttle(), setter("set_guests", guests=GUESTS)]
    plan = _plan(tools, "Where to?", "Take us to 77 Birch Road")
    assert plan.tool_calls == (("set_stop", {"dropoff": "77 Birch Road"}),)


def test_a_correction_opening_with_no_and_a_full_stop_names_only_the_business() -> None:
    found = find_entity_name("No. It's the Blue Fern.", None, asked=True)
    assert found is not None and (found.value, found.start) == ("Blue Fern", 13)
