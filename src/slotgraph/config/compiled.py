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

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Final, TypeVar

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


_V = TypeVar("_V", bound="Value")
_EMPTY: Final[Mapping[str, Any]] = MappingProxyType({})


def _empty() -> Mapping[str, Any]:
    """The default of a mapping field: one shared read-only empty mapping."""
    return _EMPTY


class Value:
    """The base of the compiled values, each a ``@dataclass(frozen=True)``: immutable, so a copy is the value
    itself, and :meth:`replace` makes a changed one. (Not ``slots=True``: on Python 3.11 a frozen slotted
    dataclass answers an assignment to an unknown attribute with a ``TypeError`` instead of an
    ``AttributeError``.)"""

    def __copy__(self: _V) -> _V:
        return self

    def __deepcopy__(self: _V, memo: dict[int, Any]) -> _V:
        return self  # immutable, and shared freely between sessions and threads

    def replace(self: _V, **changes: Any) -> _V:
        """A copy with ``changes`` (field name -> new value), as :func:`dataclasses.replace`."""
        unknown = changes.keys() - {f.name for f in fields(self)}  # type: ignore[arg-type]
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field(s) {sorted(unknown)}")
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]


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


@dataclass(frozen=True)
class CompiledCondition(Value):
    """A slot or task condition compiled once. ``is_active`` evaluates it against ``filled``.

    A condition that fails to evaluate (e.g. ``int('abc')``) makes the slot/task *inactive*: the error is
    returned by :meth:`check` so the engine can log it, and :meth:`is_active` is ``False``.
    """

    source: str
    fn: Callable[[Mapping[str, Any]], Any]
    """The condition; raises only :class:`~slotgraph.expr.ExpressionError`."""
    raw: Callable[[Mapping[str, Any]], Any] | None = None
    """The bare compiled body (may raise anything): what :meth:`is_active` calls, as it discards errors."""
    reads: frozenset[str] | None = None
    """The slots the condition reads (``None``: it may read any), so a caller can keep a verdict until one
    of them changes."""

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


@dataclass(frozen=True)
class Responses(Value):
    """Rich response parts for one location (docs/engine.md#rich-responses): the default list and per-channel
    overrides."""

    default: ResponseParts | None = None
    by_channel: Mapping[str, ResponseParts] = field(default_factory=_empty)

    def resolve(self, channel: str | None) -> ResponseParts | None:
        """The spec's resolution order: ``channel_*[channel]`` if present, else the default list."""
        if channel is not None and channel in self.by_channel:
            return self.by_channel[channel]
        return self.default

    @property
    def empty(self) -> bool:
        return self.default is None and not self.by_channel


NO_RESPONSES = Responses()


@dataclass(frozen=True)
class ExhaustCall(Value):
    """``on_exhaust.then`` resolved to a tool call; ``args`` may hold ``{slot}`` placeholders."""

    tool: str
    args: Mapping[str, Any] = field(default_factory=_empty)


@dataclass(frozen=True)
class Exhaust(Value):
    """``on_exhaust``: what to say, which tool to call, which parts to attach."""

    say: str | None = None
    then: ExhaustCall | None = None
    responses: Responses = NO_RESPONSES


@dataclass(frozen=True)
class ValidateAgainst(Value):
    """``validate_against``: the setter's ``response_field`` must be one of ``filled_slot``'s options."""

    response_field: str
    filled_slot: str
    error_code: str


@dataclass(frozen=True)
class SlotValidation(Value):
    """A slot's ``validation``: error messages and parts by code, the retry bound, exhaustion."""

    errors: Mapping[str, str] = field(default_factory=_empty)
    error_responses: Mapping[str, Responses] = field(default_factory=_empty)
    max_retries: int | None = None
    on_exhaust: Exhaust | None = None


@dataclass(frozen=True)
class CompiledSlot(Value):
    """A slot as the engine reads it (immutable, compared by value)."""

    name: str
    sources: tuple[str, ...]
    """Normalised source list in priority order: ``"user"``, ``"event"``, ``"announce"``, ``"task:Name"``."""
    event_key: str
    setter: str | None = None
    setter_field: str | None = None
    ask: str | None = None
    message: str | None = None
    """Announce text (announce slots only)."""
    preempt: bool = True
    """Announce delivery mode: verbatim (True, the default) or guided (False)."""
    requires: tuple[str, ...] = ()
    requires_readback: bool = False
    formatter: Formatter = str
    condition: CompiledCondition | None = None
    hint: str | None = None
    label: str | None = None
    validate_against: ValidateAgainst | None = None
    validation: SlotValidation | None = None
    responses: Responses = NO_RESPONSES
    accept_early: bool = False
    """A value given before the slot is askable is kept as a candidate (``_candidates``)."""
    changeable: bool = False
    """A confirmed value may be changed through the setter (``_changes``, downstream recomputation)."""

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


@dataclass(frozen=True)
class FailurePolicy(Value):
    """A task's ``on_failure``. ``max_retries`` counts *attempts in total*, the first one included (the
    platform's key and meaning): ``max_retries: 2`` is one failed attempt and one retry. Read it as
    :attr:`max_attempts`."""

    retry_say: str | None = None
    retry_responses: Responses = NO_RESPONSES
    max_retries: int = 1
    clear_slots: tuple[str, ...] = ()
    on_exhaust: Exhaust | None = None

    @property
    def max_attempts(self) -> int:
        """How many times the task runs at most before ``on_exhaust`` (the config's ``max_retries``)."""
        return self.max_retries


@dataclass(frozen=True)
class CompiledTask(Value):
    """A task as the engine reads it (immutable, compared by value)."""

    name: str
    tool: str
    inputs: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    outputs: Mapping[str, str] = field(default_factory=_empty)
    """``{result_key: slot_name}``."""
    success_check: str | None = None
    terminal: bool = False
    readback_inputs: bool = False
    parallel: bool = False
    """May fire in one decision with other ready, independent ``parallel`` tasks (never when terminal)."""
    readback_together: bool = False
    """The grouped readback of its inputs is confirmed only as a whole (no partial confirmation)."""
    then_say: str | None = None
    then_responses: Responses = NO_RESPONSES
    condition: CompiledCondition | None = None
    on_failure: FailurePolicy | None = None
    loop_clear_slots: tuple[str, ...] | None = None
    """``on_complete.clear_slots`` of a terminal task: on success these slots and every task result are
    cleared and the flow starts over instead of completing (``None``: no loop)."""

    def is_active(self, filled: Mapping[str, Any]) -> bool:
        return self.condition is None or self.condition.is_active(filled)


@dataclass(frozen=True)
class SteerBack(Value):
    """``steer_back``: after how many off-flow turns the soft, hard and escalating tiers apply."""

    soft_after: int = 2
    hard_after: int = 4
    escalate_after: int = 6
    on_exhaust: Exhaust | None = None


DEFAULT_STEER_BACK: Final = SteerBack()


@dataclass(frozen=True)
class Bootstrap(Value):
    """``bootstrap``: the routing tool whose stored value opens the flow
    (docs/engine.md#tool-result-routing)."""

    tool: str
    slot: str
    reset_on_complete: bool = False


@dataclass(frozen=True)
class CompiledDag(Value):
    """The compiled config (immutable, compared by value but for :attr:`content` and
    :attr:`derived`)."""

    slots: tuple[CompiledSlot, ...]
    tasks: tuple[CompiledTask, ...]
    steer_back: SteerBack = DEFAULT_STEER_BACK
    confirm_transition_prefixes: tuple[str, ...] = ()
    gate_slot: str | None = None
    config_id: str | None = None
    readback_responses: Responses = NO_RESPONSES
    """``readback_response`` / ``channel_readback_response``: parts attached to every readback prompt."""
    event_mappings: Mapping[str, Mapping[str, Any]] = field(default_factory=_empty)
    """``{platform event name: {event_data key: value}}`` merged into ``event_data`` before pre-fill."""
    bootstrap: Bootstrap | None = None
    content: ConfigContent | None = field(default=None, compare=False, repr=False)
    """The raw config's content as compiled: the cache key and a frozen copy (see
    :mod:`slotgraph.config.content`)."""

    # Derived lookups (built by compile_config; the platform's sm-cached mappings).
    slot_by_name: Mapping[str, CompiledSlot] = field(default_factory=_empty)
    task_by_name: Mapping[str, CompiledTask] = field(default_factory=_empty)
    setter_slots: Mapping[str, tuple[str, ...]] = field(default_factory=_empty)
    """``{setter_tool: (slot, ...)}`` for every setter, single- or multi-slot, in declaration order."""
    multi_setter_slots: Mapping[str, Mapping[str, str]] = field(default_factory=_empty)
    """``{setter_tool: {setter_field: slot}}`` for multi-slot setters (slots with ``setter_field``)."""
    executor_tasks: Mapping[str, str] = field(default_factory=_empty)
    """``{executor_tool: task_name}``."""
    conditional_slots: tuple[CompiledSlot, ...] = ()
    """The slots with a ``condition``, in declaration order."""
    state_tables: Mapping[str, Any] = field(default_factory=_empty)
    """The routing tables the spec caches in ``sm`` (``_setter_slots``, ``_multi_setter_slots``,
    ``_slot_requires``, ``_slot_validates``, ``_executor_tasks``) as plain data, built once. Never hand these
    objects out: the engine writes copies into ``sm``."""
    derived: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """Views other packages derive from this config on first use and keep with it (the engine's
    :class:`~slotgraph.engine.plan.EnginePlan`), keyed by their module; never part of equality (a new
    dict when not given)."""

    @property
    def fingerprint(self) -> str:
        """Content hash of the raw config (sha256 of its canonical JSON, as
        :func:`~slotgraph.config.config_fingerprint`), computed when first read."""
        return "" if self.content is None else self.content.fingerprint

    def slot(self, name: str) -> CompiledSlot:
        return self.slot_by_name[name]

    def task(self, name: str) -> CompiledTask:
        return self.task_by_name[name]
