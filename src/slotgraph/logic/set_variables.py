"""The ``set_variables`` built-in: the model saves what it learned into the agent's declared variables.

An agent that declares mutable variables gets one ``set_variables`` tool whose parameter schema *is* the
declarations: one optional property per mutable variable, typed and described from ``variables:`` (this is
why a declaration needs a description — it is the model's hint). :func:`set_variables_parameters` builds
that schema; :func:`apply_set_variables` writes a call's values through the session's store, so a saved
fact re-renders ``#when`` sections and opens tool gates for the very next model call of the turn.

Names the model may not write — undeclared, linked (read-only), published by a capability's tools or
maintained by the runtime (``current_topic``) — and values of the wrong type
are not an error of the call: they are listed under ``rejected`` in the result, with why, so the model can
correct itself; the other values are saved.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from slotgraph.config.logic import VariableDeclaration
from slotgraph.logic.errors import VariableWriteError
from slotgraph.logic.variables import VariableChange, VariableStore
from slotgraph.names import SET_VARIABLES

__all__ = ["SET_VARIABLES", "apply_set_variables", "set_variables_description", "set_variables_parameters"]

_JSON_TYPES: Final = {
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "list": "array",
    "object": "object",
}


def set_variables_description() -> str:
    return (
        "Save facts you learned in the conversation into the session's variables. Pass only the variables "
        "you have a value for; each is optional. Values the tool cannot save are listed under 'rejected' "
        "with the reason."
    )


def set_variables_parameters(declarations: Sequence[VariableDeclaration]) -> dict[str, Any]:
    """The tool's JSON Schema: one optional, typed, described property per mutable declaration."""
    properties: dict[str, Any] = {}
    for declaration in declarations:
        if not declaration.writable:
            continue
        prop: dict[str, Any] = {"description": declaration.description}
        json_type = _JSON_TYPES.get(declaration.type)
        if json_type is not None:
            prop["type"] = [json_type, "null"]
        properties[declaration.name] = prop
    return {"type": "object", "properties": properties, "additionalProperties": False}


def apply_set_variables(
    store: VariableStore, args: Mapping[str, Any]
) -> tuple[dict[str, Any], list[VariableChange]]:
    """Write ``args`` through ``store``: ``(the tool result, the changes made)``; never raises."""
    saved: dict[str, Any] = {}
    rejected: dict[str, str] = {}
    changes: list[VariableChange] = []
    for name, value in args.items():
        declaration = store.declarations.get(name)
        if declaration is None or name in store.maintained:
            known = ", ".join(sorted(d.name for d in store.declarations.values() if d.writable)) or "none"
            what = "maintained by the runtime" if name in store.maintained else "not a variable of this agent"
            rejected[name] = f"{what}; the variables you can set are: {known}"
            continue
        if not declaration.mutable:
            rejected[name] = f"read-only (it follows {declaration.linked_to!r}); it cannot be set"
            continue
        if declaration.published_by is not None:
            tools = " and ".join(declaration.published_by.tools)
            rejected[name] = f"read-only for you: the results of {tools} keep it up to date"
            continue
        try:
            change = store.set(name, value, source=SET_VARIABLES)
        except VariableWriteError as err:
            rejected[name] = str(err)
            continue
        saved[name] = value
        if change is not None:
            changes.append(change)
    result: dict[str, Any] = {"saved": saved}
    if rejected:
        result["rejected"] = rejected
        result["message"] = "Some values were not saved; see 'rejected', correct them and call again."
    return result, changes
