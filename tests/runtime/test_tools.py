"""Tools from plain functions: schemas, argument checks, injected context, module loading."""

from __future__ import annotations

import asyncio
import datetime
from pathlib import Path
from typing import Any, Literal

import pytest

from slotgraph.runtime import (
    AgentLoadError,
    ToolContext,
    ToolDefinitionError,
    load_tools_module,
    tool_from_function,
)
from slotgraph.runtime.tool_schema import parse_docstring
from slotgraph.runtime.tools import ToolRegistry, module_functions

NOW = datetime.datetime(2026, 7, 11, 9, 30)
CONTEXT = ToolContext(NOW, NOW.date(), {"filled": {}}, "WEB", "s1")


def book(
    party_size: int,
    seating: Literal["indoor", "outdoor"],
    note: str | None = None,
    price: float = 0.0,
    vip: bool = False,
    tags: list[str] | None = None,
) -> dict[str, Any]:
    """Book a table.

    Convert natural language to the formats below.

    Args:
        party_size: How many guests,
            as a whole number.
        seating: Where to sit.
        note: Anything else.

    Returns:
        The booking.
    """
    return {"party_size": party_size}


def test_schema_from_type_hints_and_google_docstring() -> None:
    schema = tool_from_function(book).schema
    assert schema.name == "book"
    assert schema.description == "Book a table.\n\nConvert natural language to the formats below."
    params = schema.parameters
    assert params["required"] == ["party_size", "seating"]
    assert params["additionalProperties"] is False
    props = params["properties"]
    assert props["party_size"] == {"type": "integer", "description": "How many guests, as a whole number."}
    assert props["seating"] == {
        "type": "string",
        "enum": ["indoor", "outdoor"],
        "description": "Where to sit.",
    }
    assert props["note"] == {"type": ["string", "null"], "description": "Anything else."}
    assert props["price"] == {"type": "number"}
    assert props["vip"] == {"type": "boolean"}
    assert props["tags"] == {"type": ["array", "null"], "items": {"type": "string"}}


def test_context_parameters_stay_out_of_the_schema_and_are_injected() -> None:
    seen: dict[str, Any] = {}

    def set_date(date: str, *, today: datetime.date | None = None, context: ToolContext | None = None) -> Any:
        """Record the date."""
        seen.update(today=today, context=context)
        return {"stored": True, "value": date}

    def with_now(ctx: ToolContext, now: datetime.datetime) -> Any:
        """Annotated context under another name, and the clock."""
        return {"session": ctx.session_id, "now": now}

    tool = tool_from_function(set_date)
    assert list(tool.schema.parameters["properties"]) == ["date"]
    asyncio.run(tool.invoke({"date": "2026-07-18"}, CONTEXT))
    assert seen == {"today": NOW.date(), "context": CONTEXT}
    other = tool_from_function(with_now)
    assert other.schema.parameters["properties"] == {}
    assert asyncio.run(other.invoke({}, CONTEXT)) == {"session": "s1", "now": NOW}


def test_async_tools_are_awaited() -> None:
    async def lookup(code: str) -> dict[str, str]:
        """Look something up."""
        return {"code": code}

    assert asyncio.run(tool_from_function(lookup).invoke({"code": "x"}, CONTEXT)) == {"code": "x"}


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({"seating": "indoor"}, "party_size: Field required"),
        ({"party_size": "many", "seating": "indoor"}, "party_size"),
        ({"party_size": 2, "seating": "roof"}, "seating"),
        ({"party_size": 2, "seating": "indoor", "colour": "red"}, "colour: Extra inputs are not permitted"),
    ],
)
def test_bad_arguments_are_reported_not_raised(args: dict[str, Any], problem: str) -> None:
    validated, error = tool_from_function(book).check_args(args)
    assert validated is None and error is not None and problem in error


def test_good_arguments_are_validated_and_only_given_ones_passed() -> None:
    validated, error = tool_from_function(book).check_args({"party_size": "4", "seating": "indoor"})
    assert error is None and validated == {"party_size": 4, "seating": "indoor"}


def test_unsupported_annotation_is_a_clear_definition_error() -> None:
    def bad(when: complex) -> None:
        """Nope."""

    with pytest.raises(ToolDefinitionError, match=r"'bad'.*parameter 'when'.*fix: use int"):
        tool_from_function(bad)


def test_var_args_are_refused() -> None:
    def bad(*values: int) -> None:
        """Nope."""

    with pytest.raises(ToolDefinitionError, match="declare each argument by name"):
        tool_from_function(bad)


def test_docstring_without_sections() -> None:
    parsed = parse_docstring("Record the time.\n\n  Convert to HH:MM.\n")
    assert parsed.description == "Record the time.\n\nConvert to HH:MM."
    assert parsed.params == {}


def test_load_tools_module_and_select_functions(tmp_path: Path) -> None:
    file = tmp_path / "tools.py"
    file.write_text(
        "from datetime import date\n\n"
        "def set_a(a: int) -> dict:\n    '''Set a.'''\n    return {'stored': True, 'value': a}\n\n"
        "def _helper() -> None:\n    pass\n"
    )
    module = load_tools_module(file)
    assert [f.__name__ for f in module_functions(module)] == ["set_a"]


def test_a_tools_module_that_fails_to_import_is_a_clear_error(tmp_path: Path) -> None:
    file = tmp_path / "tools.py"
    file.write_text("import definitely_not_a_module_xyz\n")
    with pytest.raises(AgentLoadError, match=r"importing the tools module failed: ModuleNotFoundError"):
        load_tools_module(file)
    with pytest.raises(AgentLoadError, match="not found"):
        load_tools_module(tmp_path / "missing.py")


def test_bella_notte_setter_schema_hides_the_injected_today() -> None:
    module = load_tools_module(Path(__file__).parents[2] / "examples" / "bella_notte" / "tools.py")
    tool = tool_from_function(module.set_reservation_basics)
    assert set(tool.schema.parameters["properties"]) == {"party_size", "preferred_date"}
    assert "required" not in tool.schema.parameters
    result = asyncio.run(
        tool.invoke({"preferred_date": "2026-07-01"}, ToolContext(NOW, NOW.date(), {}, None, "s"))
    )
    assert result["field_errors"] == {"preferred_date": "past_date"}  # judged against the session clock


def test_a_registrys_names_follow_every_addition() -> None:
    def first() -> None:
        """First."""

    def second() -> None:
        """Second."""

    registry = ToolRegistry([tool_from_function(first)])
    assert registry.names == ("first",)
    assert registry.names is registry.names  # kept between additions: every step reads it
    registry.add(tool_from_function(second))
    assert registry.names == ("first", "second")
    registry.add(tool_from_function(second, name="first"))  # an override keeps its place
    assert registry.names == ("first", "second") and registry.get("first").fn is second
