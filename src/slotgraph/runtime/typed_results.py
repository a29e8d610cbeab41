"""Typed results: an agent's slots as a pydantic model, and a session's outcome parsed into it.

:func:`slots_model` builds one field per slot that holds collected data (announce slots, which only say
something, are left out):

* the **type** comes from the slot's setter — the annotation of the setter parameter that carries the slot
  (``setter_field``, else the parameter named like the slot, else the setter's only parameter), or the JSON
  Schema of that parameter for a tool that is not a Python function (an MCP or HTTP tool). A slot filled
  only by a task or an event has no declared type: ``Any``;
* the **description** is the slot's ``hint`` (else its ``label``, else the setter parameter's description);
* a field is **required** when every completed session has the slot filled: it is collected for (or made by)
  every terminal task, directly or through the tasks and ``requires`` it depends on, and it has no
  ``condition``. Every other field is optional (``None`` when absent). ``partial=True`` makes every field
  optional: the model of a session still in progress.

:func:`session_result` reads a session into a :class:`SessionResult`: its status, its confirmed slot values
(``filled``; values still awaiting a readback are not in it) validated into the slots model — the agent's,
or a pydantic model of the caller's own — and its task results. A session that has not completed is refused
unless ``partial=True``; values that do not fit the model raise :class:`SlotsValidationError`, naming each
slot, what is wrong and the value.

``Agent.slots_model()`` and ``Session.result()`` are the entry points; both keep the work here.
"""

from __future__ import annotations

import keyword
import re
import types
import typing
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from slotgraph.config.compiled import CompiledDag, CompiledSlot, CompiledTask
from slotgraph.engine.dag import task_result_ok
from slotgraph.runtime.errors import SessionError, SessionNotCompleteError, SlotsValidationError

if TYPE_CHECKING:
    from slotgraph.runtime.agent import Agent
    from slotgraph.runtime.session import Session
    from slotgraph.runtime.tools import Tool

__all__ = [
    "SessionNotCompleteError",
    "SessionResult",
    "SlotsValidationError",
    "TaskOutcome",
    "session_result",
    "slots_model",
]

SlotsT = TypeVar("SlotsT", bound=BaseModel)


class TaskOutcome(BaseModel):
    """What one task of the DAG returned: whether it succeeded (its ``success_check``) and its result."""

    model_config = ConfigDict(frozen=True)

    succeeded: bool = Field(
        description="The engine's success rule: `success_check` truthy, every output there."
    )
    result: Any = Field(description="The task tool's result, as routed into the session state.")


class SessionResult(BaseModel, Generic[SlotsT]):
    """A session's outcome: its status, its confirmed slot values as ``SlotsT``, and its task results."""

    model_config = ConfigDict(frozen=True)

    session_id: str
    agent: str = Field(description="The agent whose slots these are.")
    status: Literal["in_progress", "complete", "escalated"]
    ended: bool = Field(description="The conversation is over (completed, escalated, or ended by a tool).")
    slots: SlotsT
    tasks: dict[str, TaskOutcome] = Field(description="Every task that ran, by name, in the DAG's order.")

    @property
    def complete(self) -> bool:
        """The session reached a terminal task that succeeded."""
        return self.status == "complete"


# ---- the slots model -------------------------------------------------------------------------------------


def slots_model(agent: Agent, *, partial: bool = False) -> type[BaseModel]:
    """The pydantic model of ``agent``'s slots (see the module docstring); ``partial``: every field optional.

    Field names are the slot names; a name that is not a Python identifier (or clashes with pydantic) gets a
    safe field name and keeps the slot name as its alias, so validating and dumping ``by_alias`` use the
    slot names."""
    dag = agent.dag
    required = set() if partial else _always_filled(dag)
    fields: dict[str, Any] = {}
    for slot in dag.slots:
        if slot.sources == ("announce",):
            continue
        annotation, described = _slot_type(agent, slot)
        description = slot.hint or slot.label or described
        name = _field_name(slot.name)
        alias = slot.name if name != slot.name else None
        if slot.name in required:
            fields[name] = (annotation, Field(..., alias=alias, description=description))
        else:
            fields[name] = (annotation | None, Field(None, alias=alias, description=description))
    model: type[BaseModel] = create_model(
        _model_name(agent.name, partial),
        __config__=ConfigDict(frozen=True, populate_by_name=True, extra="ignore"),
        __doc__=f"The slots of the agent {agent.name!r}" + (" (every field optional)." if partial else "."),
        **fields,
    )
    return model


def _model_name(agent: str, partial: bool) -> str:
    words = [w for w in re.split(r"[^A-Za-z0-9]+", agent) if w]
    base = "".join(w[:1].upper() + w[1:] for w in words) or "Agent"
    if base[0].isdigit():
        base = "Agent" + base
    return base + ("PartialSlots" if partial else "Slots")


_TAKEN = frozenset(dir(BaseModel))


def _field_name(slot: str) -> str:
    name = re.sub(r"\W", "_", slot)
    if not name or name[0].isdigit() or name.startswith("_"):
        name = "slot_" + name.lstrip("_")
    if keyword.iskeyword(name) or name in _TAKEN:
        name += "_"
    return name


def _slot_type(agent: Agent, slot: CompiledSlot) -> tuple[Any, str | None]:
    """The slot's type and its setter parameter's description (``Any`` and None without a setter)."""
    tool = agent.tools.get(slot.setter) if slot.setter else None
    if tool is None:
        return Any, None
    properties = tool.schema.parameters.get("properties") or {}
    param = _setter_param(slot, tool, properties)
    if param is None:
        return Any, None
    schema = properties.get(param) or {}
    described = schema.get("description") if isinstance(schema, Mapping) else None
    if tool.validator is not None and param in tool.validator.model_fields:
        annotation = tool.validator.model_fields[param].annotation
        return _without_none(annotation), described if isinstance(described, str) else None
    return _from_schema(schema), described if isinstance(described, str) else None


def _setter_param(slot: CompiledSlot, tool: Tool, properties: Mapping[str, Any]) -> str | None:
    """The setter parameter that carries the slot's value: as the engine routes it."""
    for name in (slot.setter_field, slot.name):
        if name is not None and name in properties:
            return name
    return next(iter(properties)) if len(properties) == 1 else None


def _without_none(annotation: Any) -> Any:
    """``annotation`` without ``None`` in it (``int | None`` → ``int``); ``Any`` when nothing is left."""
    if annotation is None or annotation is type(None):
        return Any
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        kept = [a for a in typing.get_args(annotation) if a is not type(None)]
        if not kept:
            return Any
        return kept[0] if len(kept) == 1 else typing.Union[tuple(kept)]  # noqa: UP007
    return annotation


_JSON_TYPES: Mapping[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool}


def _from_schema(schema: Any) -> Any:
    """A Python type for a JSON Schema (an MCP or HTTP tool's parameter); ``Any`` for what it cannot say."""
    if not isinstance(schema, Mapping):
        return Any
    if "enum" in schema and isinstance(schema["enum"], list) and schema["enum"]:
        values = [v for v in schema["enum"] if isinstance(v, str | int | bool) or v is None]
        if len(values) == len(schema["enum"]) and any(v is not None for v in values):
            return Literal[tuple(v for v in values if v is not None)]
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return _union(_from_schema(option) for option in schema[key])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union(_from_schema({**schema, "type": k}) for k in kind)
    if kind == "null":
        return type(None)
    if isinstance(kind, str) and kind in _JSON_TYPES:
        return _JSON_TYPES[kind]
    if kind == "array":
        return list[_from_schema(schema.get("items"))]  # type: ignore[misc]
    if kind == "object":
        return dict[str, Any]
    return Any


def _union(options: Iterable[Any]) -> Any:
    kept: list[Any] = []
    for option in options:
        if option is Any:
            return Any
        if option is not type(None) and option not in kept:
            kept.append(option)
    if not kept:
        return Any
    return kept[0] if len(kept) == 1 else typing.Union[tuple(kept)]  # noqa: UP007


def _always_filled(dag: CompiledDag) -> set[str]:
    """The slots every completed session has filled: those every terminal task needs or makes (through the
    tasks and ``requires`` they depend on), leaving out conditional slots and the needs of conditional
    tasks. Without a terminal task a session never completes: none."""
    terminals = [task for task in dag.tasks if task.terminal]
    if not terminals:
        return set()
    needs = [_needs(dag, task) for task in terminals]
    common = set.intersection(*needs)
    return {name for name in common if dag.slot_by_name[name].condition is None}


def _needs(dag: CompiledDag, terminal: CompiledTask) -> set[str]:
    """The slots filled whenever ``terminal`` succeeded: its inputs, requires and outputs, and for each slot
    needed its requires and (for a slot only a task fills) that task's needs and outputs."""
    found: set[str] = set()
    tasks_seen: set[str] = set()
    todo: list[CompiledTask] = [terminal]
    while todo:
        task = todo.pop()
        if task.name in tasks_seen:
            continue
        tasks_seen.add(task.name)
        if task.condition is not None and task is not terminal:
            continue  # a conditional task may not run: what it needs is not guaranteed
        slots = [*task.inputs, *task.requires, *task.outputs.values()]
        while slots:
            name = slots.pop()
            slot = dag.slot_by_name.get(name)
            if slot is None or name in found or slot.condition is not None:
                continue
            found.add(name)
            slots.extend(slot.requires)
            makers = [s.removeprefix("task:") for s in slot.sources]
            if all(s.startswith("task:") for s in slot.sources) and len(makers) == 1:
                maker = dag.task_by_name.get(makers[0])
                if maker is not None:
                    todo.append(maker)
    return found


# ---- a session's result ----------------------------------------------------------------------------------


def session_result(
    session: Session,
    slots: type[SlotsT] | None = None,
    *,
    partial: bool = False,
    agent: str | None = None,
) -> SessionResult[Any]:
    """``session``'s result (see the module docstring). ``slots``: your own pydantic model of the slots
    (default: the agent's :func:`slots_model`). ``agent``: in a multi-agent app, which agent's slots (default:
    the one the conversation is with)."""
    member, sm = _member(session, agent)
    status = sm.get("status", "in_progress")
    if status not in ("in_progress", "complete", "escalated"):
        raise SessionError(f"session {session.id!r} has an unknown status {status!r}")
    if status != "complete" and not partial:
        raise SessionNotCompleteError(
            f"session {session.id!r} is {status}, not complete: {_progress(member.dag, sm)}",
            fix="read what it has so far with session.result(partial=True), or finish the conversation",
        )
    model: type[BaseModel] = slots if slots is not None else member.slots_model(partial=partial)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise TypeError(f"result() takes a pydantic model class for the slots, got {model!r}")
    filled = dict(sm.get("filled") or {})
    try:
        values = model.model_validate(filled)
    except ValidationError as err:
        raise _invalid(err, model, member, filled, own=slots is not None) from None
    return SessionResult[model](  # type: ignore[valid-type]
        session_id=session.id,
        agent=member.name,
        status=status,
        ended=session.ended or status != "in_progress",
        slots=values,
        tasks=_tasks(member.dag, sm),
    )


def _member(session: Session, name: str | None) -> tuple[Agent, Mapping[str, Any]]:
    """The agent whose slots are read, and its state."""
    if name is None or name == session.agent.name:
        return session.agent, session.state
    team = session.team
    member = team.get(name) if team is not None else None
    if member is None:
        known = ", ".join(sorted(team.names)) if team is not None else session.agent.name
        raise SessionError(f"the session has no agent named {name!r}", fix=f"use one of: {known}")
    return member, session.agent_states.get(name) or {}


def _progress(dag: CompiledDag, sm: Mapping[str, Any]) -> str:
    filled = sm.get("filled") or {}
    data = [slot.name for slot in dag.slots if slot.sources != ("announce",)]
    missing = [name for name in data if name not in filled]
    got = len(data) - len(missing)
    shown = ", ".join(missing[:6]) + (", …" if len(missing) > 6 else "")
    return f"{got} of {len(data)} slots filled" + (f" (not yet: {shown})" if missing else "")


def _tasks(dag: CompiledDag, sm: Mapping[str, Any]) -> dict[str, TaskOutcome]:
    results = sm.get("task_results") or {}
    out: dict[str, TaskOutcome] = {}
    for task in dag.tasks:
        if task.name not in results:
            continue
        out[task.name] = TaskOutcome(
            succeeded=task_result_ok(task, results[task.name]), result=results[task.name]
        )
    return out


def _invalid(
    err: ValidationError, model: type[BaseModel], agent: Agent, filled: Mapping[str, Any], *, own: bool
) -> SlotsValidationError:
    """Each problem as ``slot 'x': what is wrong (the value …)``, with where the field's type came from."""
    aliases = {name: (info.alias or name) for name, info in model.model_fields.items()}
    lines: list[str] = []
    for problem in err.errors():
        where = problem["loc"][0] if problem["loc"] else "?"
        slot = aliases.get(str(where), str(where))
        if problem["type"] == "missing":
            lines.append(f"slot {slot!r}: not filled, but the model requires it")
            continue
        value = filled.get(slot, problem.get("input"))
        lines.append(f"slot {slot!r}: {problem['msg']} (the session holds {value!r:.80})")
    details = "\n".join(f"  {line}" for line in lines)
    if own:
        fix = (
            f"make {model.__name__}'s fields fit the values the agent's setters store, or make them optional"
        )
    else:
        fix = (
            "the derived model types a slot from its setter's parameter: make the setter store a value of "
            "that type, or pass your own model to session.result()"
        )
    head = f"the slots of agent {agent.name!r} do not fit {model.__name__} ({len(lines)} problem(s))"
    return SlotsValidationError(f"{head}:\n{details}", fix=fix)
