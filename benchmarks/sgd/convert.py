"""Convert one SGD service schema into a Slotgraph agent: a DAG config and its tools.

The agent mirrors the SGD system policy with the engine owning every decision:

* ``intent`` (only when the service has a search intent): the user's goal, set by ``set_intent``.
* **search slots** ``<search>_<slot>`` (e.g. ``find_restaurants_city``): the search intent's required slots,
  active while ``intent`` is that search; no readback (the gold system never confirms search criteria).
* **search task** (e.g. ``FindRestaurants``): fires when its slots are filled; its result offers the first
  entity (``<search>_offer``). No result: the search slots are cleared and asked again.
* **booking slots**, named as in SGD (``restaurant_name``, ``city``, ``time``, ``date``, ``party_size``): the
  transactional intent's required then optional slots, ``requires_readback``, inputs of the terminal task
  with ``readback_inputs: true`` — they are collected silently and confirmed together in one grouped readback
  just before the booking fires (§7a). Their setters stay visible until then, so a user may change a value
  at any time before the booking, and inline-correct it during the readback.
  Optional slots with a real default (``date: 2019-03-01``, ``party_size: 2``) are never asked: every booking
  setter returns the missing defaults as ``inferred`` values (§6a.1), so they join the grouped readback and
  the user can still change them. Booking slots also accept ``event`` data: a follow-up session (a second
  booking) can start from an accepted offer.
* **filters** ``<search>_<slot>``: the search's optional slots with a ``dontcare`` default, declared last (so
  they are never asked) and read by the search executor when set.
* the **choice slot** — the booking slot a search offers (``restaurant_name``, ``stylist_name``): set when the
  user selects an offer; ``request_alternatives`` (a read-only tool) shows the next offer of the search.

Setters and executors are plain functions built here with real signatures, type hints and docstrings, so the
runtime derives their JSON Schemas: categorical slots become enums (``Literal``; numeric ones ``int``,
``True``/``False`` ones ``bool``), the others strings. Executors call a :class:`~.backend.Backend`.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from slotgraph.runtime import ToolContext

from .backend import Backend
from .data import IntentSchema, ServiceSchema, SlotSchema

__all__ = ["ConvertedAgent", "SetterRef", "ValueKind", "convert_service", "from_sgd_value", "to_sgd_value"]

ValueKind = Literal["str", "int", "bool"]
INTENT_SLOT = "intent"
INTENT_SETTER = "set_intent"
ALTERNATIVES_TOOL = "request_alternatives"
DONTCARE = "dontcare"


@dataclass(frozen=True, slots=True)
class SetterRef:
    """A setter the model calls for an SGD slot: the tool, its parameter and how to type the value."""

    tool: str
    param: str
    dag_slot: str
    kind: ValueKind
    choices: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ConvertedAgent:
    """A converted service: the DAG config, its tools and what the oracle needs to know of their names."""

    service: str
    dag: dict[str, Any]
    tools: tuple[Callable[..., Any], ...]
    instruction: str
    setters: Mapping[str, tuple[SetterRef, ...]]
    intents: tuple[str, ...]
    transactional: str
    transactional_tool: str
    booking_slots: tuple[str, ...]
    search_tools: Mapping[str, str]
    choice_slot: str | None
    asks: Mapping[str, str]

    @property
    def has_intent_slot(self) -> bool:
        return len(self.intents) > 1


def snake(name: str) -> str:
    """``FindRestaurants`` → ``find_restaurants``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _kind(slot: SlotSchema) -> ValueKind:
    values = slot.possible_values
    if slot.is_categorical and values and all(v.isdigit() for v in values):
        return "int"
    if slot.is_categorical and set(values) == {"True", "False"}:
        return "bool"
    return "str"


def _annotation(slot: SlotSchema, kind: ValueKind, *, filter_slot: bool = False) -> Any:
    if filter_slot:
        if slot.is_categorical:
            return Literal[(*slot.possible_values, DONTCARE)]
        return str
    if kind == "int":
        return Literal[tuple(int(v) for v in slot.possible_values)]
    if kind == "bool":
        return bool
    if slot.is_categorical:
        return Literal[tuple(slot.possible_values)]
    return str


def from_sgd_value(value: str, kind: ValueKind, choices: tuple[str, ...] = ()) -> Any:
    """An SGD string value as the setter's type (``"4"`` → ``4``, ``"True"`` → ``True``); None if invalid."""
    text = value.strip()
    if kind == "int":
        return int(text) if text.isdigit() else None
    if kind == "bool":
        return {"true": True, "false": False}.get(text.lower())
    if choices:
        for choice in choices:
            if choice.lower() == text.lower():
                return choice
        return None
    return text


def to_sgd_value(value: Any) -> str:
    """A typed value back to the SGD string form (``4`` → ``"4"``, ``True`` → ``"True"``)."""
    return str(value)


def make_tool(
    name: str,
    doc: str,
    params: list[tuple[str, Any, Any]],
    impl: Callable[[dict[str, Any], ToolContext | None], Any],
    *,
    with_context: bool = False,
) -> Callable[..., Any]:
    """A plain function ``name(**params)`` with a real signature, annotations and docstring."""

    def tool(**kwargs: Any) -> Any:
        context = kwargs.pop("context", None)
        return impl(kwargs, context)

    parameters = [
        inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=a, default=d) for p, a, d in params
    ]
    annotations: dict[str, Any] = {p: a for p, a, _ in params}
    if with_context:
        parameters.append(
            inspect.Parameter("context", inspect.Parameter.KEYWORD_ONLY, annotation=ToolContext)
        )
        annotations["context"] = ToolContext
    annotations["return"] = dict
    tool.__name__ = tool.__qualname__ = name
    tool.__doc__ = doc
    tool.__signature__ = inspect.Signature(parameters, return_annotation=dict)  # type: ignore[attr-defined]
    tool.__annotations__ = annotations
    return tool


def _sentence(description: str) -> str:
    """An SGD description as a clause: "Reserve a table" → "reserve a table" (acronyms kept)."""
    text = description.strip().rstrip(".")
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def _args_doc(rows: list[tuple[str, str]]) -> str:
    if not rows:
        return ""
    return "\n\nArgs:\n" + "\n".join(f"    {p}: {d}" for p, d in rows)


class _Builder:
    """Accumulates the slots, tasks and tools of one converted service."""

    def __init__(self, service: ServiceSchema, backend: Backend) -> None:
        self.service = service
        self.backend = backend
        self.tx = service.transactional
        self.searches = service.searches
        self.slots: list[dict[str, Any]] = []
        self.tasks: list[dict[str, Any]] = []
        self.tools: list[Callable[..., Any]] = []
        self.setters: dict[str, list[SetterRef]] = {}
        self.asks: dict[str, str] = {}
        self.choice = self._choice_slot()
        self.defaults = {k: v for k, v in self.tx.optional_slots.items() if v != DONTCARE}
        self.search_tools: dict[str, str] = {}
        self.filters: list[tuple[IntentSchema, str]] = []

    def _choice_slot(self) -> str | None:
        for search in self.searches:
            for name in self.tx.required_slots:
                offered = name in search.result_slots
                if offered and name not in search.required_slots and name not in search.optional_slots:
                    return name
        return None

    def _ask(self, dag_slot: str, sgd: str, text: str) -> str:
        self.asks[text] = sgd
        return text

    # --- setters -------------------------------------------------------------------------------------
    def _setter(self, dag_slot: str, slot: SlotSchema, *, booking: bool, filter_slot: bool = False) -> str:
        kind: ValueKind = "str" if filter_slot else _kind(slot)
        annotation = _annotation(slot, kind, filter_slot=filter_slot)
        tool_name = f"set_{dag_slot}"
        defaults = self.defaults
        booking_inputs = (*self.tx.required_slots, *self.tx.optional_slots)
        service = self.service

        def impl(args: dict[str, Any], context: ToolContext | None) -> dict[str, Any]:
            value = args[slot.name]
            if isinstance(value, str) and not value.strip():
                return {"error": True, "error_code": "empty"}
            result: dict[str, Any] = {"stored": True, "value": value}
            if booking and context is not None:
                state = context.state
                known = {*state.get("filled", {}), *state.get("pending", {}), *state.get("deferred", {})}
                inferred = {}
                for name, default in defaults.items():
                    if name != dag_slot and name in booking_inputs and name not in known:
                        inferred[name] = from_sgd_value(default, _kind(service.slot(name)))
                if inferred:
                    result["inferred"] = inferred
            return result

        role = "search filter" if filter_slot else ("booking" if booking else "search")
        doc = f"Record the {slot.description.lower()} ({role})." + _args_doc([(slot.name, slot.description)])
        self.tools.append(make_tool(tool_name, doc, [(slot.name, annotation, inspect.Parameter.empty)], impl,
                                    with_context=booking))  # fmt: skip
        choices = slot.possible_values if (slot.is_categorical and kind == "str") else ()
        if filter_slot and slot.is_categorical:
            choices = (*slot.possible_values, DONTCARE)
        self.setters.setdefault(slot.name, []).append(
            SetterRef(tool_name, slot.name, dag_slot, kind, choices)
        )
        return tool_name

    # --- sections -------------------------------------------------------------------------------------
    def intent_slot(self) -> None:
        intents = self.service.intents
        names = tuple(i.name for i in intents)
        # The model sees each intent with what it means, not only its CamelCase identifier; the value it
        # passes stays the identifier.
        described = "; ".join(f"{i.name} = {_sentence(i.description)}" for i in intents)
        options = ", or ".join(_sentence(i.description) for i in intents)

        def impl(args: dict[str, Any], context: ToolContext | None) -> dict[str, Any]:
            return {"stored": True, "value": args["intent"]}

        doc = "Record what the user wants to do." + _args_doc(
            [("intent", f"What the user wants to do, one of: {described}.")]
        )
        self.tools.append(
            make_tool(INTENT_SETTER, doc, [("intent", Literal[names], inspect.Parameter.empty)], impl)
        )
        self.slots.append({
            "name": INTENT_SLOT, "source": ["event", "user"], "setter": INTENT_SETTER,
            "ask": self._ask(INTENT_SLOT, INTENT_SLOT, f"How can I help you? I can {options}."),
            "hint": "What the user wants to do", "label": "request",
        })  # fmt: skip

    def search(self, search: IntentSchema) -> None:
        prefix = snake(search.name)
        condition = f"lambda filled: filled.get('{INTENT_SLOT}') == '{search.name}'"
        inputs = []
        for name in search.required_slots:
            slot = self.service.slot(name)
            dag_slot = f"{prefix}_{name}"
            setter = self._setter(dag_slot, slot, booking=False)
            ask = self._ask(dag_slot, name, f"To search, what is the {slot.description.lower()}?")
            self.slots.append({"name": dag_slot, "source": "user", "setter": setter, "ask": ask,
                               "condition": condition, "hint": f"{slot.description} (search)"})  # fmt: skip
            inputs.append(dag_slot)
        offer = f"{prefix}_offer"
        self.slots.append({"name": offer, "source": f"task:{search.name}"})
        tool_name = prefix
        filters = [f"{prefix}_{n}" for n, d in search.optional_slots.items() if d == DONTCARE]
        backend, choice = self.backend, self.choice

        def impl(args: dict[str, Any], context: ToolContext | None) -> dict[str, Any]:
            params = {k[len(prefix) + 1 :]: to_sgd_value(v) for k, v in args.items()}
            filled = context.state.get("filled", {}) if context is not None else {}
            for name in filters:
                value = filled.get(name)
                if value is not None and str(value) != DONTCARE:
                    params[name[len(prefix) + 1 :]] = to_sgd_value(value)
            reply = backend.call(search.name, params, transactional=False)
            results = list(reply.get("results", []))
            if not reply.get("success") or not results:
                return {"success": False, "count": 0, "results": []}
            first = results[0]
            shown = str(first.get(choice, "")) if choice else ", ".join(f"{k} {v}" for k, v in first.items())
            return {"success": True, "count": len(results), "offer": shown, "results": results}

        params = [(n, str, inspect.Parameter.empty) for n in inputs]
        doc = f"Search: {search.description}." + _args_doc([(n, n.replace("_", " ")) for n in inputs])
        self.tools.append(make_tool(tool_name, doc, params, impl, with_context=True))
        self.search_tools[tool_name] = search.name
        self.tasks.append({
            "name": search.name, "tool": tool_name, "inputs": inputs, "outputs": {"offer": offer},
            "requires": [INTENT_SLOT], "success_check": "success", "condition": condition,
            "then_say": f"I found {{{offer}}}.",
            "on_failure": {"retry_say": "I found nothing for that. Let us try other criteria.",
                           "max_retries": 3, "clear_slots": inputs,
                           "on_exhaust": {"say": "I could not find anything, sorry."}},
        })  # fmt: skip
        self.filters.extend(
            (search, n) for n in search.optional_slots if search.optional_slots[n] == DONTCARE
        )

    def booking(self) -> None:
        inputs = []
        for name in (*self.tx.required_slots, *self.tx.optional_slots):
            slot = self.service.slot(name)
            setter = self._setter(name, slot, booking=True)
            entry: dict[str, Any] = {
                "name": name, "source": ["event", "user"], "setter": setter, "requires_readback": True,
                "hint": slot.description, "label": slot.description.lower(),
            }  # fmt: skip
            if name not in self.defaults:
                entry["ask"] = self._ask(name, name, f"What is the {slot.description.lower()}?")
            else:
                entry["ask"] = self._ask(name, name, f"Which {slot.description.lower()}?")
            self.slots.append(entry)
            inputs.append(name)
        backend, tx = self.backend, self.tx

        def impl(args: dict[str, Any], context: ToolContext | None) -> dict[str, Any]:
            params = {k: to_sgd_value(v) for k, v in args.items()}
            return backend.call(tx.name, params, transactional=True)

        params = [(n, _annotation(self.service.slot(n), _kind(self.service.slot(n))), inspect.Parameter.empty)
                  for n in inputs]  # fmt: skip
        doc = f"{tx.description}." + _args_doc([(n, self.service.slot(n).description) for n in inputs])
        self.tools.append(make_tool(snake(tx.name), doc, params, impl))
        self.tasks.append({
            "name": tx.name, "tool": snake(tx.name), "inputs": inputs, "success_check": "success",
            "terminal": True, "readback_inputs": True, "then_say": "Done: your booking is confirmed.",
            "on_failure": {"max_retries": 1,
                           "on_exhaust": {"say": "Sorry, the booking did not go through."}},
        })  # fmt: skip

    def filter_slots(self) -> None:
        for search, name in self.filters:
            slot = self.service.slot(name)
            dag_slot = f"{snake(search.name)}_{name}"
            setter = self._setter(dag_slot, slot, booking=False, filter_slot=True)
            ask = self._ask(dag_slot, name, f"Any preference for the {slot.description.lower()}?")
            self.slots.append({"name": dag_slot, "source": "user", "setter": setter, "ask": ask,
                               "hint": f"{slot.description} (search filter)"})  # fmt: skip

    def alternatives_tool(self) -> None:
        choice = self.choice
        searches = [s.name for s in self.searches]

        def impl(args: dict[str, Any], context: ToolContext | None) -> dict[str, Any]:
            exclude = {str(x).strip().lower() for x in args.get("exclude") or ()}
            results: list[Mapping[str, Any]] = []
            task_results = context.state.get("task_results", {}) if context is not None else {}
            for name in searches:
                results.extend(task_results.get(name, {}).get("results", []))
            for row in results:
                key = str(row.get(choice, "")) if choice else str(row)
                if key.strip().lower() not in exclude:
                    return {"offer": key, "details": dict(row)}
            return {"offer": None, "message": "There are no other options."}

        doc = "Show the next search result when the user asks for other options." + _args_doc(
            [("exclude", "The options already offered to the user.")]
        )
        self.tools.append(make_tool(ALTERNATIVES_TOOL, doc, [("exclude", list[str] | None, None)], impl,
                                    with_context=True))  # fmt: skip


def convert_service(service: ServiceSchema, backend: Backend) -> ConvertedAgent:
    """Build the agent of ``service`` whose executors call ``backend``."""
    b = _Builder(service, backend)
    intents = tuple(i.name for i in service.intents)
    if len(intents) > 1:
        b.intent_slot()
    for search in b.searches:
        b.search(search)
    b.booking()
    b.filter_slots()
    if b.searches:
        b.alternatives_tool()
    dag = {
        "config_id": f"sgd_{snake(service.name)}",
        "slots": b.slots,
        "tasks": b.tasks,
        "steer_back": {"soft_after": 20, "hard_after": 30, "escalate_after": 40},
        "x-source": "Converted from the Schema-Guided Dialogue schema (CC BY-SA 4.0).",
    }
    instruction = (
        f"You are the assistant of {service.name}: {service.description}. Help the user using only the "
        "tools you are given."
    )
    return ConvertedAgent(
        service=service.name,
        dag=dag,
        tools=tuple(b.tools),
        instruction=instruction,
        setters={k: tuple(v) for k, v in b.setters.items()},
        intents=intents,
        transactional=b.tx.name,
        transactional_tool=snake(b.tx.name),
        booking_slots=(*b.tx.required_slots, *b.tx.optional_slots),
        search_tools=dict(b.search_tools),
        choice_slot=b.choice,
        asks=dict(b.asks),
    )
