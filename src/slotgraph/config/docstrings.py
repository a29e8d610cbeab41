"""Field documentation for the published JSON Schemas, read from the config nodes' attribute docstrings.

The config nodes document each field with a string literal on the line below it. Pydantic can turn those
into field descriptions itself (``use_attribute_docstrings``), but it does so while each class is *created*,
by walking the import's call stack and re-reading the module's source for every class: it made importing the
config layer (and so ``slotgraph validate``) slower by
~50–100 ms CPU each time. The descriptions are only needed when a JSON Schema is generated
(``slotgraph schema``, editors), so they are read there instead, once per class:
:class:`DocumentedJsonSchema` is the schema generator that fills each property's ``description`` from its
attribute docstring (a description given explicitly with ``Field(description=...)`` wins).

>>> DagConfig.model_json_schema(schema_generator=DocumentedJsonSchema)   # doctest: +SKIP
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from functools import cache
from itertools import pairwise
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

__all__ = ["DocumentedJsonSchema", "attribute_docstrings"]


@cache
def _own_docstrings(cls: type[Any]) -> dict[str, str]:
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):  # no source (a class built at run time, a frozen application)
        return {}
    tree = ast.parse(source)
    klass = tree.body[0] if tree.body else None
    if not isinstance(klass, ast.ClassDef):
        return {}
    docs: dict[str, str] = {}
    body = klass.body
    for statement, following in pairwise(body):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[statement.target.id] = inspect.cleandoc(following.value.value)
    return docs


def attribute_docstrings(cls: type[BaseModel]) -> dict[str, str]:
    """Field name → the docstring written below it, in ``cls`` or a base class (the subclass's wins)."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if isinstance(klass, type) and issubclass(klass, BaseModel) and klass is not BaseModel:
            docs.update(_own_docstrings(klass))
    return docs


class DocumentedJsonSchema(GenerateJsonSchema):
    """A JSON Schema generator that adds each model field's attribute docstring as its ``description``."""

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        json_schema = super().model_schema(schema)
        cls = schema["cls"]
        properties = json_schema.get("properties")
        if not isinstance(properties, dict) or not (isinstance(cls, type) and issubclass(cls, BaseModel)):
            return json_schema
        docs = attribute_docstrings(cls)
        for name, field in cls.model_fields.items():
            key = field.alias if self.by_alias and field.alias else name
            prop = properties.get(key)
            if isinstance(prop, dict) and "description" not in prop and name in docs:
                prop["description"] = docs[name]
        return json_schema
