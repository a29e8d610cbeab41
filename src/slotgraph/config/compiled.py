"""The compiled DAG: what the engine consumes.

:func:`slotgraph.config.compile_config` turns a validated :class:`~slotgraph.config.nodes.DagConfig` into a
:class:`CompiledDag`: immutable values, sources normalised, conditions and readback formatters compiled
once through :mod:`slotgraph.expr`, response parts frozen as plain data, and the lookup tables the spec's
``after_tool_callback`` reads (``_setter_slots``, ``_multi_setter_slots``, ``_slot_requires``,
``_slot_validates``, ``_executor_tasks``) derived once. A compiled DAG is immutable and shared freely
between sessions and threads; a cache of compiled DAGs is keyed by the config's content
(:attr:`CompiledDag.content`), never by a name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import FrozenInstanceError
from types import MappingProxyType
from typing import Any, ClassVar, Final, TypeVar

from slotgraph.config.content import ConfigContent
from slotgraph.expr import ExpressionError

__all__ = [
    "Bootstrap",
    "CompiledCondition",
    "CompiledDag",
    "CompiledSlot",
    "CompiledTask",
    "ConditionEnv",
    "Exhaust",
    "ExhaustCall",
    "FailurePolicy",
    "Formatter",
    "Responses",
    "SlotValidation",
    "SteerBack",
    "ValidateAgainst",
    "condition_env",
]

Formatter = Callable[[Any], str]
"""A readback formatter: value -> text. Never raises (falls back to ``str(value)``)."""

ResponseParts = tuple[Mapping[str, Any], ...]


_R = TypeVar("_R", bound="Record")
_EMPTY: Final[Mapping[str, Any]] = MappingProxyType({})


def assign_once(obj: Record, name: str, value: object) -> None:
    """A :class:`Record`'s ``__setattr__``: a field is set once, by the constructor; any later assignment
    raises :class:`~dataclasses.FrozenInstanceError`, as on a frozen dataclass, and a name that is not a
    field raises :class:`AttributeError`.

    Compiled, the constructor stores the fields directly and this runs only for a later assignment (a
    compiled record has no ``__dict__``). In pure Python the constructor's stores come here and go into the
    instance's ``__dict__`` (a record has no ``__slots__`` for that reason: a dict lookup tells a first
    store from a later one without the exception a slot's ``hasattr`` raises, half the cost)."""
    if name not in obj._names:
        raise AttributeError(f"{type(obj).__name__!r} object has no field {name!r}")
    state = getattr(obj, "__dict__", None)
    if state is None or name in state:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    state[name] = value


def refuse_delete(name: str) -> None:
    """A :class:`Record`'s ``__delattr__``."""
    raise FrozenInstanceError(f"cannot delete field {name!r}")


class Record:
    """An immutable value with named fields: the frozen dataclass's behaviour (equality and ``repr`` over its
    compared fields, hash, :class:`~dataclasses.FrozenInstanceError` on assignment) for the values compiling
    a config makes by the dozen.

    Why not a frozen dataclass: its generated ``__init__`` sets each field through ``object.__setattr__``,
    Python code that the compiled core cannot compile, and a compiled config builds ~40 such values (a
    ``CompiledSlot`` has 19 fields): 6.5 µs per slot compiled against 0.1 µs for this class, whose
    ``__init__`` is written out and compiled to direct stores (docs/performance.md, "Compiled values built
    by compiled code"). Each
    subclass lists its fields in ``_fields`` (the constructor's keywords, in order) and ``_names`` (the same
    as a set), those of equality and ``repr`` in ``_compared``, declares them ``Final`` (the compiled core
    makes them read-only) and defines ``__setattr__`` / ``__delattr__`` with :func:`assign_once` /
    :func:`refuse_delete` (on each class: the compiled core stores fields directly only for a class that
    defines them itself).
    """

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _names: ClassVar[frozenset[str]] = frozenset()
    _compared: ClassVar[tuple[str, ...]] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._compared)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._compared)
        return f"{type(self).__qualname__}({fields})"

    def __copy__(self: _R) -> _R:
        return self  # immutable

    def __deepcopy__(self: _R, memo: dict[int, Any]) -> _R:
        return self  # immutable, and shared freely

    def replace(self: _R, **changes: Any) -> _R:
        """A copy with ``changes`` (field name -> new value), as :func:`dataclasses.replace`."""
        unknown = changes.keys() - self._names
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field(s) {sorted(unknown)}")
        return type(self)(**{name: changes.get(name, getattr(self, name)) for name in self._fields})


class ConditionEnv(Mapping[str, Any]):
    """What a slot or task condition reads: the filled slots, then the agent's session variables.

    A filled slot wins over a variable of the same name; a name that is neither is missing (``None`` to an
    expression). ``filled`` is read live, so an environment stays valid while the engine fills slots.
    """

    __slots__ = ("_filled", "_variables")

    def __init__(self, filled: Mapping[str, Any], variables: Mapping[str, Any]) -> None:
        self._filled = filled
        self._variables = variables

    def __getitem__(self, key: str) -> Any:
        if key in self._filled:
            return self._filled[key]
        return self._variables[key]

    def __contains__(self, key: object) -> bool:
        return key in self._filled or key in self._variables

    def __iter__(self) -> Iterator[str]:
        yield from self._filled
        yield from (k for k in self._variables if k not in self._filled)

    def __len__(self) -> int:
        return len(self._filled) + sum(1 for k in self._variables if k not in self._filled)


def condition_env(filled: Mapping[str, Any], variables: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """``filled`` itself without variables (nothing to look up twice), else a :class:`ConditionEnv`."""
    return ConditionEnv(filled, variables) if variables else filled


class CompiledCondition(Record):
    """A slot or task condition compiled once. ``is_active`` evaluates it against ``filled``.

    A condition that fails to evaluate (e.g. ``int('abc')``) makes the slot/task *inactive*: the error is
    returned by :meth:`check` so the engine can log it, and :meth:`is_active` is ``False``.
    """

    _fields = ("source", "fn", "raw", "reads")
    _names = frozenset(_fields)
    _compared = _fields

    source: Final[str]
    fn: Final[Callable[[Mapping[str, Any]], Any]]
    """The condition; raises only :class:`~slotgraph.expr.ExpressionError`."""
    raw: Final[Callable[[Mapping[str, Any]], Any] | None]
    """The bare compiled body (may raise anything): what :meth:`is_active` calls, as it discards errors."""
    reads: Final[frozenset[str] | None]
    """The slots the condition reads (``None``: it may read any), so a caller can keep a verdict until one
    of them changes."""

    def __init__(
        self,
        source: str,
        fn: Callable[[Mapping[str, Any]], Any],
        raw: Callable[[Mapping[str, Any]], Any] | None = None,
        reads: frozenset[str] | None = None,
    ) -> None:
        self.source = source
        self.fn = fn
        self.raw = raw
        self.reads = reads

    def __setattr__(self, name: str, value: object) -> None:
        assign_once(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_delete(name)

    def check(self, filled: Mapping[str, Any]) -> tuple[bool, ExpressionError | None]:
        try:
            return bool(self.fn(filled)), None
        except ExpressionError as err:
            return False, err

    def is_active(self, filled: Mapping[str, Any]) -> bool:
        try:
            return bool((self.raw or self.fn)(filled))
        except Exception:  # a condition that fails to evaluate makes its slot/task inactive (see check)
            return False


class Responses(Record):
    """Rich response parts for one location (docs/engine.md#rich-responses): the default list and per-channel
    overrides."""

    _fields = ("default", "by_channel")
    _names = frozenset(_fields)
    _compared = _fields

    default: Final[ResponseParts | None]
    by_channel: Final[Mapping[str, ResponseParts]]

    def __init__(
        self,
        default: ResponseParts | None = None,
        by_channel: Mapping[str, ResponseParts] = _EMPTY,
    ) -> None:
        self.default = default
        self.by_channel = by_channel

    def __setattr__(self, name: str, value: object) -> None:
        assign_once(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_delete(name)

    def resolve(self, channel: str | None) -> ResponseParts | None:
        """The spec's resolution order: ``channel_*[channel]`` if present, else the default list."""
        if channel is not None and channel in self.by_channel:
            return self.by_channel[channel]
        return self.default

    @property
    def empty(self) -> bool:
        return self.default is None and not self.by_channel


NO_RESPONSES = Responses()


class ExhaustCall(Record):
    """``on_exhaust.then`` resolved to a tool call; ``args`` may hold ``{slot}`` placeholders."""

    _fields = ("tool", "args")
    _names = frozenset(_fields)
    _compared = _fields

    tool: Final[str]
    args: Final[Mapping[str, Any]]

    def __init__(
        self,
        tool: str,
        args: Mapping[str, Any] = _EMPTY,
    ) -> None:
        self.tool = tool
        self.args = args

    def __setattr__(self, name: str, value: object) -> None:
        assign_once(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_delete(name)


class Exhaust(Record):
    """``on_exhaust``: what to say, which tool to call, which parts to attach."""

    _fields = ("say", "then", "responses")
    _names = frozenset(_fields)
    _compared = _fields

    say: Final[str | None]
    then: Final[ExhaustCall | None]
    responses: Final[Responses]

    def __init__(
        self,
        say: str | None = None,
        then: ExhaustCall | None = None,
        responses: Responses = NO_RESPONSES,
    ) -> None:
        self.say = say
        self.then = then
        self.responses = responses

    def __setattr__(self, name: str, value: object) -> None:
        assign_once(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_delete(name)


class ValidateAgainst(Record):
    """``validate_against``: the setter's ``response_field`` must be one of ``filled_slot``'s options."""

    _fields = ("response_field", "filled_slot", "error_code")
    _names = frozenset(_fields)
    _compared = _fields

    response_field: Final[str]
    filled_slot: Final[str]
    error_code: Final[str]

    def __init__(
        self,
        response_field: str,
        filled_slot: str,
        error_code: str,
    ) -> None:
        self.response_field = response_field
        self.filled_slot = filled_slot
        self.error_code = error_code

    def __setattr__(self, name: str, value: object) -> None:
        assign_once(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_delete(name)


class SlotValidation(Record):
    """A slot's ``validation``: error messages and parts by code, the retry bound, exhaustion."""

    _fields = ("errors", "error_responses", "max_retries", "on_exhaust")
    _names = frozenset(_fields)
    _compared = _fields

    errors: Final[Mapping[str, str]]
    error_responses: Final[Mapping[str, Responses]]
    max_retries: Final[int | None]
    on_exhaust: Final[Exhaust | None]

    def __init__(
        self,
        errors: Mapping[str, str] = _EMPTY,
        error_responses: Mapping[str, Responses] = _EMPTY,
        max_retries: int | None = None,
        on_exhaust: Exhaust | None = None,
    ) -> None:
        self.errors = errors
        self.error_responses = error_responses
        self.max_retries = max_retries
        self.on_exhaust = on_exhaust

    def __setattr__(self, name: str, value: object) -> None:
        assign_once(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_delete(name)


class CompiledSlot(Record):
    """A slot as the engine reads it (a :class:`Record`: immutable, compared by value)."""

    _fields = (
        "name", "sources", "event_key", "setter", "setter_field", "ask", "message", "preempt", "requires",
        "requires_readback", "formatter", "condition", "hint", "label", "validate_against", "validation",
        "responses", "accept_early", "changeable",
    )  # fmt: skip
    _names = frozenset(_fields)
    _compared = _fields

    name: Final[str]
    sources: Final[tuple[str, ...]]
    """Normalised source list in priority order: ``"user"``, ``"event"``, ``"announce"``, ``"task:Name"``."""
    event_key: Final[str]
    setter: Final[str | None]
    setter_field: Final[str | None]
    ask: Final[str | None]
    message: Final[str | None]
    """Announce text (announce slots only)."""
    preempt: Final[bool]
    """Announce delivery mode: verbatim (True, the default) or guided (False)."""
    requires: Final[tuple[str, ...]]
    requires_readback: Final[bool]
    formatter: Final[Formatter]
    condition: Final[CompiledCondition | None]
    hint: Final[str | None]
    label: Final[str | None]
    validate_against: Final[ValidateAgainst | None]
    validation: Final[SlotValidation | None]
    responses: Final[Responses]
    accept_early: Final[bool]
    """A value given before the slot is askable is kept as a candidate (``_candidates``)."""
    changeable: Final[bool]
    """A confirmed value may be changed through the setter (``_changes``, downstream recomputation)."""

    def __init__(
        self,
        name: str,
        sources: tuple[str, ...],
        event_key: str,
        setter: str | None = None,
        setter_field: str | None = None,
        ask: str | None = None,
        message: str | None = None,
        preempt: bool = True,
        requires: tuple[str, ...] = (),
        requires_readback: bool = False,
        formatter: Formatter = str,
        condition: CompiledCondition | None = None,
        hint: str | None = None,
        label: str | None = None,
        validate_against: ValidateAgainst | None = None,
        validation: SlotValidation | None = None,
        responses: Responses = NO_RESPONSES,
        accept_early: bool = False,
        changeable: bool = False,
    ) -> None:
        self.name = name
        self.sources = sources
        self.event_key = event_key
        self.setter = setter
        self.setter_field = setter_field
        self.ask = ask
        self.message = message
        self.preempt = preempt
        self.requires = requires
        self.requires_readback = requires_readback
        self.formatter = formatter
        self.condition = condition
        self.hint = hint
        self.label = label
        self.validate_against = validate_against
        self.validation = validation
        self.responses = responses
        self.accept_early = accept_early
        self.changeable = changeable

    def __setattr__(self, name: str, value: object) -> None:
        assign_once(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_delete(name)

    @property
    def is_user(self) -> bool:
        return "user" in self.sources

    @property
    def is_event(self) -> bool:
        return "event" in self.sources

    @property
    def is_announce(self) -> bool:
        return "announce" in self.sources

    @property
    def task_source(self) -> str | None:
        """The task name of a ``task:Name`` source, else None."""
        for src in self.sources:
            if src.startswith("task:"):
                return src[len("task:") :]
        return None

    def is_active(self, filled: Mapping[str, Any]) -> bool:
        return self.condition is None or self.condition.is_active(filled)


class FailurePolicy(Record):
    """A task's ``on_failure``. ``max_retries`` counts *attempts in total*, the first one included (the
    platform's key and meaning): ``max_retries: 2`` is one failed attempt and one retry. Read it as
    :attr:`max_attempts`."""

    _fields = ("retry_say", "retry_responses", "max_retries", "clear_slots", "on_exhaust")
    _names = frozenset(_fields)
    _compared = _fields

    retry_say: Final[str | None]
    retry_responses: Final[Responses]
    max_retries: Final[int]
    clear_slots: Final[tuple[str, ...]]
    on_exhaust: Final[Exhaust | None]

    def __init__(
        self,
        retry_say: str | None = None,
        retry_responses: Responses = NO_RESPONSES,
        max_retries: int = 1,
        clear_slots: tuple[str, ...] = (),
        on_exhaust: Exhaust | None = None,
    ) -> None:
        self.retry_say = retry_say
        self.retry_responses = retry_responses
        self.max_retries = max_retries
        self.clear_slots = clear_slots
        self.on_exhaust = on_exhaust

    def __setattr__(self, name: str, value: object) -> None:
        assign_once(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_delete(name)

    @property
    def max_attempts(self) -> int:
        """How many times the task runs at most before ``on_exhaust`` (the config's ``max_retries``)."""
        return self.max_retries


class CompiledTask(Record):
    """A task as the engine reads it (a :class:`Record`: immutable, compared by value)."""

    _fields = (
        "name", "tool", "inputs", "requires", "outputs", "success_check", "terminal", "readback_inputs",
        "parallel", "readback_together", "then_say", "then_responses", "condition", "on_failure",
        "loop_clear_slots",
    )  # fmt: skip
    _names = frozenset(_fields)
    _compared = _fields

    name: Final[str]
    tool: Final[str]
    inputs: Final[tuple[str, ...]]
    requires: Final[tuple[str, ...]]
    outputs: Final[Mapping[str, str]]
    """``{result_key: slot_name}``."""
    success_check: Final[str | None]
    terminal: Final[bool]
    readback_inputs: Final[bool]
    parallel: Final[bool]
    """May fire in one decision with other ready, independent ``parallel`` tasks (never when terminal)."""
    readback_together: Final[bool]
    """The grouped readback of its inputs is confirmed only as a whole (no partial confirmation)."""
    then_say: Final[str | None]
    then_responses: Final[Responses]
    condition: Final[CompiledCondition | None]
    on_failure: Final[FailurePolicy | None]
    loop_clear_slots: Final[tuple[str, ...] | None]
    """``on_complete.clear_slots`` of a terminal task: on success these slots and every task result are
    cleared and the flow starts over instead of completing (``None``: no loop)."""

    def __init__(
        self,
        name: str,
        tool: str,
        inputs: tuple[str, ...] = (),
        requires: tuple[str, ...] = (),
        outputs: Mapping[str, str] = _EMPTY,
        success_check: str | None = None,
        terminal: bool = False,
        readback_inputs: bool = False,
        parallel: bool = False,
        readback_together: bool = False,
        then_say: str | None = None,
        then_responses: Responses = NO_RESPONSES,
        condition: CompiledCondition | None = None,
        on_failure: FailurePolicy | None = None,
        loop_clear_slots: tuple[str, ...] | None = None,
    ) -> None:
        self.name = name
        self.tool = tool
        self.inputs = inputs
        self.requires = requires
        self.outputs = outputs
        self.success_check = success_check
        self.terminal = terminal
        self.readback_inputs = readback_inputs
        self.parallel = parallel
        self.readback_together = readback_together
        self.then_say = then_say
        self.then_responses = then_responses
        self.condition = condition
        self.on_failure = on_failure
        self.loop_clear_slots = loop_clear_slots

    def __setattr__(self, name: str, value: object) -> None:
        assign_once(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_delete(name)

    def is_active(self, filled: Mapping[str, Any]) -> bool:
        return self.condition is None or self.condition.is_active(filled)


class SteerBack(Record):
    """``steer_back``: after how many off-flow turns the soft, hard and escalating tiers apply."""

    _fields = ("soft_after", "hard_after", "escalate_after", "on_exhaust")
    _names = frozenset(_fields)
    _compared = _fields

    soft_after: Final[int]
    hard_after: Final[int]
    escalate_after: Final[int]
    on_exhaust: Final[Exhaust | None]

    def __init__(
        self,
        soft_after: int = 2,
        hard_after: int = 4,
        escalate_after: int = 6,
        on_exhaust: Exhaust | None = None,
    ) -> None:
        self.soft_after = soft_after
        self.hard_after = hard_after
        self.escalate_after = escalate_after
        self.on_exhaust = on_exhaust

    def __setattr__(self, name: str, value: object) -> None:
        assign_once(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_delete(name)


DEFAULT_STEER_BACK: Final = SteerBack()


class Bootstrap(Record):
    """``bootstrap``: the routing tool whose stored value opens the flow
    (docs/engine.md#tool-result-routing)."""

    _fields = ("tool", "slot", "reset_on_complete")
    _names = frozenset(_fields)
    _compared = _fields

    tool: Final[str]
    slot: Final[str]
    reset_on_complete: Final[bool]

    def __init__(
        self,
        tool: str,
        slot: str,
        reset_on_complete: bool = False,
    ) -> None:
        self.tool = tool
        self.slot = slot
        self.reset_on_complete = reset_on_complete

    def __setattr__(self, name: str, value: object) -> None:
        assign_once(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_delete(name)


class CompiledDag(Record):
    """The compiled config (a :class:`Record`: immutable, compared by value but for :attr:`content` and
    :attr:`derived`)."""

    _fields = (
        "slots", "tasks", "steer_back", "confirm_transition_prefixes", "gate_slot", "config_id",
        "readback_responses", "event_mappings", "bootstrap", "content", "slot_by_name", "task_by_name",
        "setter_slots", "multi_setter_slots", "executor_tasks", "conditional_slots", "state_tables",
        "derived",
    )  # fmt: skip
    _names = frozenset(_fields)
    _compared = (
        "slots", "tasks", "steer_back", "confirm_transition_prefixes", "gate_slot", "config_id",
        "readback_responses", "event_mappings", "bootstrap", "slot_by_name", "task_by_name", "setter_slots",
        "multi_setter_slots", "executor_tasks", "conditional_slots", "state_tables",
    )  # fmt: skip

    slots: Final[tuple[CompiledSlot, ...]]
    tasks: Final[tuple[CompiledTask, ...]]
    steer_back: Final[SteerBack]
    confirm_transition_prefixes: Final[tuple[str, ...]]
    gate_slot: Final[str | None]
    config_id: Final[str | None]
    readback_responses: Final[Responses]
    """``readback_response`` / ``channel_readback_response``: parts attached to every readback prompt."""
    event_mappings: Final[Mapping[str, Mapping[str, Any]]]
    """``{platform event name: {event_data key: value}}`` merged into ``event_data`` before pre-fill."""
    bootstrap: Final[Bootstrap | None]
    content: Final[ConfigContent | None]
    """The raw config's content as compiled: the cache key and a frozen copy (see
    :mod:`slotgraph.config.content`)."""

    # Derived lookups (built by compile_config; the platform's sm-cached mappings).
    slot_by_name: Final[Mapping[str, CompiledSlot]]
    task_by_name: Final[Mapping[str, CompiledTask]]
    setter_slots: Final[Mapping[str, tuple[str, ...]]]
    """``{setter_tool: (slot, ...)}`` for every setter, single- or multi-slot, in declaration order."""
    multi_setter_slots: Final[Mapping[str, Mapping[str, str]]]
    """``{setter_tool: {setter_field: slot}}`` for multi-slot setters (slots with ``setter_field``)."""
    executor_tasks: Final[Mapping[str, str]]
    """``{executor_tool: task_name}``."""
    conditional_slots: Final[tuple[CompiledSlot, ...]]
    """The slots with a ``condition``, in declaration order."""
    state_tables: Final[Mapping[str, Any]]
    """The routing tables the spec caches in ``sm`` (``_setter_slots``, ``_multi_setter_slots``,
    ``_slot_requires``, ``_slot_validates``, ``_executor_tasks``) as plain data, built once. Never hand these
    objects out: the engine writes copies into ``sm``."""
    derived: Final[dict[str, Any]]
    """Views other packages derive from this config on first use and keep with it (the engine's
    :class:`~slotgraph.engine.plan.EnginePlan`), keyed by their module; never part of equality (a new
    dict when not given)."""

    def __init__(
        self,
        slots: tuple[CompiledSlot, ...],
        tasks: tuple[CompiledTask, ...],
        steer_back: SteerBack = DEFAULT_STEER_BACK,
        confirm_transition_prefixes: tuple[str, ...] = (),
        gate_slot: str | None = None,
        config_id: str | None = None,
        readback_responses: Responses = NO_RESPONSES,
        event_mappings: Mapping[str, Mapping[str, Any]] = _EMPTY,
        bootstrap: Bootstrap | None = None,
        content: ConfigContent | None = None,
        slot_by_name: Mapping[str, CompiledSlot] = _EMPTY,
        task_by_name: Mapping[str, CompiledTask] = _EMPTY,
        setter_slots: Mapping[str, tuple[str, ...]] = _EMPTY,
        multi_setter_slots: Mapping[str, Mapping[str, str]] = _EMPTY,
        executor_tasks: Mapping[str, str] = _EMPTY,
        conditional_slots: tuple[CompiledSlot, ...] = (),
        state_tables: Mapping[str, Any] = _EMPTY,
        derived: dict[str, Any] | None = None,
    ) -> None:
        self.slots = slots
        self.tasks = tasks
        self.steer_back = steer_back
        self.confirm_transition_prefixes = confirm_transition_prefixes
        self.gate_slot = gate_slot
        self.config_id = config_id
        self.readback_responses = readback_responses
        self.event_mappings = event_mappings
        self.bootstrap = bootstrap
        self.content = content
        self.slot_by_name = slot_by_name
        self.task_by_name = task_by_name
        self.setter_slots = setter_slots
        self.multi_setter_slots = multi_setter_slots
        self.executor_tasks = executor_tasks
        self.conditional_slots = conditional_slots
        self.state_tables = state_tables
        self.derived = {} if derived is None else derived

    def __setattr__(self, name: str, value: object) -> None:
        assign_once(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_delete(name)

    @property
    def fingerprint(self) -> str:
        """Content hash of the raw config (sha256 of its canonical JSON, as
        :func:`~slotgraph.config.config_fingerprint`), computed when first read."""
        return "" if self.content is None else self.content.fingerprint

    def slot(self, name: str) -> CompiledSlot:
        return self.slot_by_name[name]

    def task(self, name: str) -> CompiledTask:
        return self.task_by_name[name]
