"""Field descriptions in the JSON Schemas come from attribute docstrings, read when a schema is generated."""

from __future__ import annotations

import importlib
import pkgutil

from pydantic import BaseModel, ConfigDict, Field

import slotgraph.config
from slotgraph.config.docstrings import DocumentedJsonSchema, attribute_docstrings


class _Base(BaseModel):
    shared: int = 0
    """From the base class."""


class _Child(_Base):
    model_config = ConfigDict(populate_by_name=True)

    plain: str = ""
    """A plain field,
    over two lines."""
    aliased: int = Field(0, alias="also-known-as")
    """Documented under its attribute name."""
    explicit: int = Field(0, description="given explicitly")
    """Not used: the explicit description wins."""
    undocumented: int = 0


def test_docstrings_are_read_from_the_class_and_its_bases() -> None:
    docs = attribute_docstrings(_Child)
    assert docs["shared"] == "From the base class."
    assert docs["plain"] == "A plain field,\nover two lines."
    assert "undocumented" not in docs


def test_the_schema_generator_fills_descriptions_by_alias_and_keeps_explicit_ones() -> None:
    properties = _Child.model_json_schema(schema_generator=DocumentedJsonSchema)["properties"]
    assert properties["also-known-as"]["description"] == "Documented under its attribute name."
    assert properties["explicit"]["description"] == "given explicitly"
    assert properties["shared"]["description"] == "From the base class."
    assert "description" not in properties["undocumented"]


def test_config_models_do_not_extract_docstrings_at_import() -> None:
    # pydantic's use_attribute_docstrings re-reads the source for every class while the module imports; the
    # schema generator does it only when a schema is asked for (slotgraph schema, editors)
    for info in pkgutil.walk_packages(slotgraph.config.__path__, "slotgraph.config."):
        module = importlib.import_module(info.name)
        for cls in vars(module).values():
            if isinstance(cls, type) and issubclass(cls, BaseModel):
                assert not cls.model_config.get("use_attribute_docstrings"), (
                    f"{cls.__module__}.{cls.__qualname__}: drop use_attribute_docstrings=True from its "
                    "model_config; slotgraph.config.docstrings.DocumentedJsonSchema documents the schema"
                )
