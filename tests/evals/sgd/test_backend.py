"""The gold backend: answers a call with the gold call of the same method and arguments."""

from __future__ import annotations

from benchmarks.sgd import GoldBackend
from benchmarks.sgd.data import Act, GoldCall

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
