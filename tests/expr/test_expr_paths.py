"""extract_output_path beyond the shared fixtures: non-str input, caps, exotic containers."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest

from slotgraph.expr import ExpressionSyntaxError, Position, extract_output_path, parse_output_path


def test_parse_output_path_steps() -> None:
    assert parse_output_path("$.order.items[0]['a b'][\"c\"]") == ("order", "items", 0, "a b", "c")
    assert parse_output_path("$") == ()


def test_malformed_path_points_at_the_bad_segment() -> None:
    with pytest.raises(ExpressionSyntaxError) as info:
        extract_output_path({}, "$.a.[0]")
    assert info.value.code == "bad_path"
    assert info.value.position == Position(1, 3)
    assert "^" in str(info.value)


@pytest.mark.parametrize("path", [None, 1, b"$.a"])
def test_non_string_paths_are_refused(path: Any) -> None:
    with pytest.raises(ExpressionSyntaxError) as info:
        extract_output_path({}, path)
    assert info.value.code == "invalid_source"


def test_overlong_path_is_refused() -> None:
    with pytest.raises(ExpressionSyntaxError) as info:
        extract_output_path({}, "$" + ".a" * 3000)
    assert info.value.code == "too_long"


def test_reads_through_any_mapping_and_tuples() -> None:
    value = MappingProxyType({"a": ({"b": 1},)})
    assert extract_output_path(value, "$.a[0].b") == 1


def test_does_not_read_attributes() -> None:
    class Result:
        def __init__(self) -> None:
            self.order = {"id": 1}

    assert extract_output_path(Result(), "$.order.id") is None


def test_huge_index_is_missing_not_an_error() -> None:
    assert extract_output_path([1], "$[999999999999999999]") is None
