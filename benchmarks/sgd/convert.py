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
* search criteria are ``changeable``: a new city or cuisine said after a search ran runs it again, as the SGD
  system does ("Can you find me a salon in Pleasanton instead?").
* an optional booking slot with a real default also takes ``dontcare`` ("any day works"): the booking call
  then leaves it out, as the gold call does.
* **any service**: several transactional intents (``ReserveOnewayFlight`` and ``ReserveRoundtripFlights``)
  each get a booking task that fires only while ``intent`` names it (``intent`` stays changeable, so the user
  can move from the search to a booking); their slots are the union, each active while the intent is a search
  or a booking that uses it. A service with no transactional intent is its searches only. Slot names that are
  not Python identifiers (``from``, ``class``) get a trailing underscore in the agent (``from_``); the
  backend still sees the SGD names.

Setters and executors are plain functions built here with real signatures, type hints and docstrings, so the
runtime derives their JSON Schemas: categorical slots become enums (``Literal``; numeric ones ``int``,
``True``/``False`` ones ``bool``), the others strings. Executors call a :class:`~.backend.Backend`.
"""

from __future__ import annotations

import inspect
import keyword
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
    slot: str = ""
    """The SGD slot name (``param`` is the same name made a Python identifier: ``from`` → ``from_``)."""
    dontcare: bool = False
    """The setter also takes ``dontcare`` (a filter, or an optional booking string with a default)."""

    @property
    def sgd_slot(self) -> str:
        return self.slot or self.param


@dataclass(frozen=True, slots=True)
class ConvertedAgent:
    """A converted service: the DAG config, its tools and what the oracle needs to know of their names."""

    service: str
    dag: dict[str, Any]
    tools: tuple[Callable[..., Any], ...]
    instruction: str
    setters: Mapping[str, tuple[SetterRef, ...]]
    intents: tuple[str, ...]
    transactionals: tuple[str, ...]
    """The transactional intents (bookings), in schema order: usually one, none for a search-only service."""
    transactional_tools: tuple[str, ...]
    booking_slots: tuple[str, ...]
    search_tools: Mapping[str, str]
    choice_slot: str | None
    asks: Mapping[str, str]

    @property
    def has_intent_slot(self) -> bool:
        return len(self.intents) > 1

    @property
    def transactional(self) -> str | None:
        """The first transactional intent (a follow-up session starts from it); None when there is none."""
        return self.transactionals[0] if self.transactionals else None


def snake(name: str) -> str:
    """``FindRestaurants`` → ``find_restaurants``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def ident(name: str) -> str:
    """An SGD slot name as a Python identifier: ``from`` → ``from_``, ``class`` → ``class_``; others as is."""
    safe = re.sub(r"\W", "_", name)
    if not safe or safe[0].isdigit() or keyword.iskeyword(safe) or safe != name:
        return safe + "_"
    return safe


def _kind(slot: SlotSchema) -> ValueKind:
    values = slot.possible_values
    if slot.is_categorical and values and all(v.isdigit() for v in values):
        return "int"
    if slot.is_categorical and set(values) == {"True", "False"}:
        return "bool"
    return "str"


def _annotation(
    slot: SlotSchema, kind: ValueKind, *, filter_slot: bool = False, dontcare: bool = False
) -> Any:
    if filter_slot:
        if slot.is_categorical:
            return Literal[(*slot.possible_values, DONTCARE)]
        return str
    if kind == "int":
        return Literal[tuple(int(v) for v in slot.possible_values)]
    if kind == "bool":
        return bool
    if slot.is_categorical:
        return (
            Literal[(*slot.possible_values, DONTCARE)] if dontcare else Literal[tuple(slot.possible_values)]
        )
    return str


def from_sgd_value(
    value: str, kind: ValueKind, choices: tuple[str, ...] = (), *, dontcare: bool = False
) -> Any:
    """An SGD string value as the setter's type (``"4"`` → ``4``, ``"True"`` → ``True``); None if invalid.
    ``dontcare`` passes through when the setter takes it."""
    text = value.strip()
    if dontcare and text == DONTCARE:
        return DONTCARE
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


_FLAG_RE = re.compile(r"^boolean flag (?:indicating )?(?:if|whether)\s+", re.I)


def _question(slot: SlotSchema) -> str:
    """What the agent asks for a booking slot: "What is the time of the show?"; for a yes/no flag, a yes/no
    question ("Yes or no: ride is shared with other passengers?")."""
    flag = _FLAG_RE.sub("", slot.description.strip().rstrip("."))
    if flag != slot.description.strip().rstrip(".") and _kind(slot) == "bool":
        return f"Yes or no: {flag}?"
    return f"What is the {slot.description.lower()}?"


def _args_doc(rows: list[tuple[str, str]]) -> str:
    if not rows:
        return ""
    return "\n\nArgs:\n" + "\n".join(f"    {p}: {d}" for p, d in rows)


class _Builder:
    """Accumulates the slots, tasks and tools of one converted service."""

    def __init__(self, service: ServiceSchema, backend: Backend) -> None:
        self.service = service
        self.backend = backend
        self.txs = service.transactionals
        self.searches = service.searches
        self.slots: list[dict[str, Any]] = []
        self.tasks: list[dict[str, Any]] = []
        self.tools: list[Callable[..., Any]] = []
        self.setters: dict[str, list[SetterRef]] = {}
        self.asks: dict[str, str] = {}
        self.choice = self._choice_slot()
        self.booking_names: tuple[str, ...] = tuple(
            dict.fromkeys(
                n
                for tx in self.txs
                for n in (*tx.required_slots, *tx.optional_slots)
                if tx.optional_slots.get(n) != DONTCARE
            )
        )
        self.booking_filters: tuple[str, ...] = tuple(
            dict.fromkeys(
                n
                for tx in self.txs
                for n, default in tx.optional_slots.items()
                if default == DONTCARE and n not in self.booking_names
            )
        )
        self.defaults: dict[str, str] = {}
        for tx in self.txs:
            for name, default in tx.optional_slots.items():
                if default != DONTCARE:
                    self.defaults.setdefault(name, default)
        self.search_tools: dict[str, str] = {}
        self.filters: list[tuple[IntentSchema, str]] = []

    def _choice_slot(self) -> str | None:
        for search in self.searches:
            for tx in self.txs:
                for name in tx.required_slots:
                    offered = name in search.result_slots
                    if offered and name not in search.required_slots and name not in search.optional_slots:
                        return name
        return None

    def _users(self, name: str) -> tuple[str, ...]:
        """The transactional intents whose booking reads slot ``name`` (as an input or a filter)."""
        return tuple(tx.name for tx in self.txs if name in (*tx.required_slots, *tx.optional_slots))

    def _ask(self, dag_slot: str, sgd: str, text: str) -> str:
        self.asks[text] = sgd
        return text

    # --- setters -------------------------------------------------------------------------------------
    def _setter(self, dag_slot: str, slot: SlotSchema, *, booking: bool, filter_slot: bool = False) -> str:
        kind: ValueKind = "str" if filter_slot else _kind(slot)
        # A string slot with a real default also takes "dontcare" (the booking leaves it out); numbers and
        # flags keep their plain type (the default is what "any" means for them).
        dontcare = filter_slot or (booking and slot.name in self.defaults and kind == "str")
        annotation = _annotation(slot, kind, filter_slot=filter_slot, dontcare=dontcare)
        tool_name = f"set_{dag_slot}"
        param = ident(slot.name)
        defaults = self.defaults
        users = self._users
        service = self.service
        backend = self.backend
        # The business a search offers is looked up by the name the person said, as a booking backend does.
        looked_up = booking and slot.name == self.choice and kind == "str"
        booking_names = self.booking_names

        def impl(args: dict[str, Any], context: ToolContext | None) -> dict[str, Any]:
            value = args[param]
            if isinstance(value, str) and not value.strip():
                return {"error": True, "error_code": "empty"}
            if looked_up and isinstance(value, str) and value != DONTCARE:
                state = context.state if context is not None else {}
                values = {**state.get("filled", {}), **state.get("pending", {})}
                known = {n: str(values[ident(n)]) for n in booking_names if values.get(ident(n)) is not None}
                value = backend.find_name(slot.name, value, known) or value
            result: dict[str, Any] = {"stored": True, "value": value}
            if booking and context is not None:
                state = context.state
                known = {*state.get("filled", {}), *state.get("pending", {}), *state.get("deferred", {})}
                intent = state.get("filled", {}).get(INTENT_SLOT)
                inferred = {}
                for name, default in defaults.items():
                    # with several bookings, only the defaults of the one the intent names (or of all)
                    used = users(name)
                    wanted = intent in used or len(used) == len(service.transactionals) or intent is None
                    if wanted and ident(name) != dag_slot and ident(name) not in known:
                        inferred[ident(name)] = from_sgd_value(default, _kind(service.slot(name)))
                if inferred:
                    result["inferred"] = inferred
            return result

        role = "search filter" if filter_slot else ("booking" if booking else "search")
        described = slot.description + (
            f" ({DONTCARE!r} when the user has no preference)" if dontcare else ""
        )
        doc = f"Record the {slot.description.lower()} ({role})." + _args_doc([(param, described)])
        self.tools.append(make_tool(tool_name, doc, [(param, annotation, inspect.Parameter.empty)], impl,
                                    with_context=booking))  # fmt: skip
        choices = slot.possible_values if (slot.is_categorical and kind == "str") else ()
        if filter_slot and slot.is_categorical:
            choices = (*slot.possible_values, DONTCARE)
        self.setters.setdefault(slot.name, []).append(
            SetterRef(tool_name, param, dag_slot, kind, choices, slot=slot.name, dontcare=dontcare)
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
        entry: dict[str, Any] = {
            "name": INTENT_SLOT, "source": ["event", "user"], "setter": INTENT_SETTER,
            "ask": self._ask(INTENT_SLOT, INTENT_SLOT, f"How can I help you? I can {options}."),
            "hint": "What the user wants to do", "label": "request",
        }  # fmt: skip
        if len(self.txs) > 1:
            entry["changeable"] = True  # from the search to the booking the user names
        self.slots.append(entry)

    def search(self, search: IntentSchema) -> None:
        prefix = snake(search.name)
        several = len(self.service.intents) > 1  # else there is no intent slot: the search is all there is
        condition = f"lambda filled: filled.get('{INTENT_SLOT}') == '{search.name}'" if several else None
        # Criteria said before the intent is known ("a Mexican place in Palo Alto") are early answers: kept
        # and used once the intent is this search.
        early = f"lambda filled: filled.get('{INTENT_SLOT}') in (None, '{search.name}')"
        inputs = []
        sgd_of: dict[str, str] = {}
        for name in search.required_slots:
            slot = self.service.slot(name)
            dag_slot = f"{prefix}_{ident(name)}"
            setter = self._setter(dag_slot, slot, booking=False)
            ask = self._ask(dag_slot, name, f"To search, what is the {slot.description.lower()}?")
            entry: dict[str, Any] = {"name": dag_slot, "source": "user", "setter": setter, "ask": ask,
                                     "hint": f"{slot.description} (search)", "changeable": True}  # fmt: skip
            if condition is not None:
                entry.update(condition=early, requires=[INTENT_SLOT], accept_early=True)
            self.slots.append(entry)
            inputs.append(dag_slot)
            sgd_of[dag_slot] = name
        offer = f"{prefix}_offer"
        self.slots.append({"name": offer, "source": f"task:{search.name}"})
        tool_name = prefix
        # Optional criteria: "don't care" ones are filters the user may set; one with a real default (a
        # number of travellers) is sent with its default until the user says otherwise (as SGD's system).
        filters = {f"{prefix}_{ident(n)}": (n, d) for n, d in search.optional_slots.items()}
        backend, choice = self.backend, self.choice

        def impl(args: dict[str, Any], context: ToolContext | None) -> dict[str, Any]:
            params = {sgd_of[k]: to_sgd_value(v) for k, v in args.items()}
            filled = context.state.get("filled", {}) if context is not None else {}
            for dag_name, (name, default) in filters.items():
                value = filled.get(dag_name, default)
                if value is not None and str(value) != DONTCARE:
                    params[name] = to_sgd_value(value)
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
        task: dict[str, Any] = {
            "name": search.name, "tool": tool_name, "inputs": inputs, "outputs": {"offer": offer},
            "success_check": "success", "then_say": f"I found {{{offer}}}.",
            "on_failure": {"retry_say": "I found nothing for that. Let us try other criteria.",
                           "max_retries": 3, "clear_slots": inputs,
                           "on_exhaust": {"say": "I could not find anything, sorry."}},
        }  # fmt: skip
        if condition is not None:
            task["requires"], task["condition"] = [INTENT_SLOT], condition
        self.tasks.append(task)
        self.filters.extend((search, n) for n in search.optional_slots)

    def booking(self) -> None:
        several = len(self.txs) > 1
        for name in self.booking_names:
            slot = self.service.slot(name)
            dag_slot = ident(name)
            setter = self._setter(dag_slot, slot, booking=True)
            entry: dict[str, Any] = {
                "name": dag_slot, "source": ["event", "user"], "setter": setter, "requires_readback": True,
                "hint": slot.description, "label": slot.description.lower(), "changeable": True,
            }  # fmt: skip
            if name not in self.defaults:
                entry["ask"] = self._ask(dag_slot, name, _question(slot))
            else:
                entry["ask"] = self._ask(dag_slot, name, f"Which {slot.description.lower()}?")
            others = [tx.name for tx in self.txs if tx.name not in self._users(name)]
            if several and others:
                # collected during a search or a booking that reads it; inactive in the other bookings
                entry["condition"] = f"lambda filled: filled.get('{INTENT_SLOT}') not in {others!r}"
            self.slots.append(entry)
        for tx in self.txs:
            self._booking_task(tx, condition=several)

    def _booking_task(self, tx: IntentSchema, *, condition: bool) -> None:
        names = tuple(n for n in (*tx.required_slots, *tx.optional_slots) if n in self.booking_names)
        filters = [n for n, d in tx.optional_slots.items() if d == DONTCARE and n in self.booking_filters]
        inputs = [ident(n) for n in names]
        sgd_of = dict(zip(inputs, names, strict=True))
        backend = self.backend

        def impl(args: dict[str, Any], context: ToolContext | None) -> dict[str, Any]:
            params = {sgd_of[k]: to_sgd_value(v) for k, v in args.items() if v != DONTCARE}
            filled = context.state.get("filled", {}) if context is not None else {}
            for name in filters:  # an optional "don't care" slot the user gave: sent as given
                value = filled.get(ident(name))
                if value is not None and str(value) != DONTCARE:
                    params[name] = to_sgd_value(value)
            return backend.call(tx.name, params, transactional=True)

        params = [
            (ident(n), _annotation(self.service.slot(n), _kind(self.service.slot(n)),
                                   dontcare=n in self.defaults and _kind(self.service.slot(n)) == "str"),
             inspect.Parameter.empty)
            for n in names
        ]  # fmt: skip
        doc = f"{tx.description}." + _args_doc([(ident(n), self.service.slot(n).description) for n in names])
        self.tools.append(make_tool(snake(tx.name), doc, params, impl, with_context=True))
        task: dict[str, Any] = {
            "name": tx.name, "tool": snake(tx.name), "inputs": inputs, "success_check": "success",
            "terminal": True, "readback_inputs": True, "then_say": "Done: your booking is confirmed.",
            "on_failure": {"max_retries": 1,
                           "on_exhaust": {"say": "Sorry, the booking did not go through."}},
        }  # fmt: skip
        if condition:
            task["condition"] = f"lambda filled: filled.get('{INTENT_SLOT}') == '{tx.name}'"
        self.tasks.append(task)

    def filter_slots(self) -> None:
        for search, name in self.filters:
            slot = self.service.slot(name)
            dag_slot = f"{snake(search.name)}_{ident(name)}"
            setter = self._setter(dag_slot, slot, booking=False, filter_slot=True)
            ask = self._ask(dag_slot, name, f"Any preference for the {slot.description.lower()}?")
            hint = f"{slot.description} (search filter)"
            self.slots.append({"name": dag_slot, "source": "user", "setter": setter, "ask": ask,
                               "hint": hint, "changeable": True})  # fmt: skip
        # a booking's optional "don't care" slot: never asked, sent if given
        for name in self.booking_filters:
            slot = self.service.slot(name)
            dag_slot = ident(name)
            setter = self._setter(dag_slot, slot, booking=False, filter_slot=True)
            ask = self._ask(dag_slot, name, f"Any preference for the {slot.description.lower()}?")
            hint = f"{slot.description} (booking preference)"
            self.slots.append({"name": dag_slot, "source": "user", "setter": setter, "ask": ask,
                               "hint": hint, "changeable": True})  # fmt: skip

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
        transactionals=tuple(tx.name for tx in b.txs),
        transactional_tools=tuple(snake(tx.name) for tx in b.txs),
        booking_slots=b.booking_names,
        search_tools=dict(b.search_tools),
        choice_slot=b.choice,
        asks=dict(b.asks),
    )
