"""The gold backend: answers a call with the gold call of the same method and arguments."""

from __future__ import annotations

import pytest
from benchmarks.sgd import Catalogue, GoldBackend
from benchmarks.sgd.backend import find_name
from benchmarks.sgd.data import Act, Dialogue, GoldCall

FAIL = (Act("NOTIFY_FAILURE", "", (), ()),)
OK = (Act("NOTIFY_SUCCESS", "", (), ()),)


def _gold(
    method: str, params: dict[str, str], results: list[dict[str, str]], acts: tuple[Act, ...]
) -> GoldCall:
    return GoldCall(method, params, tuple(results), acts, 0)


def test_matching_transaction_returns_the_gold_record() -> None:
    backend = GoldBackend((_gold("GetRide", {"destination": "Mall"}, [{"ride_fare": "11.45"}], OK),))
    assert backend.call("GetRide", {"destination": "mall "}, transactional=True) == {
        "success": True, "ride_fare": "11.45",
    }  # fmt: skip
    assert backend.calls[0].matched


def test_gold_failure_with_a_record_offers_it_as_alternative() -> None:
    backend = GoldBackend((_gold("Reserve", {"time": "11:45"}, [{"time": "12:00"}], FAIL),))
    reply = backend.call("Reserve", {"time": "11:45"}, transactional=True)
    assert reply["success"] is False and reply["alternative"] == {"time": "12:00"}


def test_gold_failure_without_records_fails_plainly() -> None:
    backend = GoldBackend((_gold("Reserve", {"time": "11:45"}, [], FAIL),))
    assert "alternative" not in backend.call("Reserve", {"time": "11:45"}, transactional=True)


def test_unknown_arguments_get_what_a_real_backend_gives_and_count_as_mismatch() -> None:
    backend = GoldBackend((_gold("Find", {"city": "A"}, [{"name": "x"}], ()),))
    assert backend.call("Find", {"city": "B"}, transactional=False) == {
        "success": False,
        "count": 0,
        "results": [],
    }
    assert backend.call("Reserve", {"city": "A"}, transactional=True)["success"] is False
    assert [c.matched for c in backend.calls] == [False, False]
    search = backend.call("Find", {"city": "A"}, transactional=False)
    assert search == {"success": True, "count": 1, "results": [{"name": "x"}]}


# --- looking a said name up in the service's database ---------------------------------------------------

ROWS = (
    {"restaurant_name": "Kampai Bar And Grill", "city": "San Jose"},
    {"restaurant_name": "Wooden Charcoal Korean Village Barbecue House", "city": "Los Angeles"},
    {"restaurant_name": "Rubio's Coastal Grill", "city": "Cupertino"},
    {"restaurant_name": "Sushi Ran", "city": "Sausalito"},
    {"restaurant_name": "Sushi Ran Express", "city": "Mill Valley"},
    {"restaurant_name": "Golden Dragon", "city": "Oakland"},
    {"restaurant_name": "Golden Dragon Palace", "city": "Oakland"},
    {"restaurant_name": "The Van's Restaurant", "city": "Belmont"},
)


@pytest.mark.parametrize(
    ("said", "known", "found"),
    [
        ("Kampai Bar", {}, "Kampai Bar And Grill"),
        ("kampai bar & grill", {}, "Kampai Bar And Grill"),  # case, "&" and "and" the same
        ("the Kampai", {}, "Kampai Bar And Grill"),  # a leading "the" is no part of the name
        ("Wooden Charcoal Barbecue", {}, "Wooden Charcoal Korean Village Barbecue House"),  # words left out
        ("rubios", {}, "Rubio's Coastal Grill"),  # punctuation ignored
        ("The Van's", {}, "The Van's Restaurant"),  # a leading "the" on either side
        ("Vans Restaurant", {}, "The Van's Restaurant"),
        ("Sushi Ran", {}, "Sushi Ran"),  # said as the database spells it: kept
        ("Golden", {}, None),  # two names start so, nothing tells them apart
        ("Golden", {"city": "Oakland"}, None),  # both in the city: still a tie
        ("Bar And Grill", {}, None),  # a name starts with its first word
        ("Zazie", {}, None),  # unknown
        ("the", {}, None),
    ],
)
def test_a_said_name_is_found_as_the_database_spells_it(
    said: str, known: dict[str, str], found: str | None
) -> None:
    assert find_name(ROWS, "restaurant_name", said, known) == found


def test_the_booking_values_known_tell_two_names_apart() -> None:
    rows = (
        {"restaurant_name": "Lucky Star Cafe", "city": "Napa"},
        {"restaurant_name": "Lucky Star Diner", "city": "Fresno"},
        {"restaurant_name": "Lucky Star", "city": "Davis"},
    )
    assert find_name(rows, "restaurant_name", "Lucky Star", {}) == "Lucky Star"  # spelt as said
    assert find_name(rows, "restaurant_name", "lucky star", {}) == "Lucky Star"
    assert find_name(rows, "restaurant_name", "Lucky Star", {"city": "fresno "}) == "Lucky Star Diner"
    assert find_name(rows, "restaurant_name", "Lucky Star", {"city": "Davis"}) == "Lucky Star"
    assert find_name(rows[:2], "restaurant_name", "Lucky Star", {}) is None


def test_the_catalogue_holds_every_row_returned_and_every_name_sent() -> None:
    first = Dialogue("1_1", "Restaurants_1", (), (_gold("Find", {"city": "Napa"}, [ROWS[0], ROWS[1]], OK),))
    booked = _gold("Reserve", {"restaurant_name": "Sushi Ran", "city": "Sausalito"}, [], FAIL)
    second = Dialogue("1_2", "Restaurants_1", (), (booked,))
    other = Dialogue("2_1", "Hotels_2", (), (_gold("Find", {}, [{"where_to": "Paris"}], OK),))
    catalogue = Catalogue.of([first, second, other])
    rows = catalogue.of_service("Restaurants_1")
    assert {r.get("restaurant_name") for r in rows} == {None, ROWS[0]["restaurant_name"],
                                                        ROWS[1]["restaurant_name"], "Sushi Ran"}  # fmt: skip
    assert catalogue.of_service("Hotels_2") == ({"where_to": "Paris"},)
    assert catalogue.of_service("Buses_1") == ()
    backend = GoldBackend((), rows)
    assert backend.find_name("restaurant_name", "Kampai Bar", {}) == "Kampai Bar And Grill"
