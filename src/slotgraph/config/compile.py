"""``compile_config``: a validated DAG config turned into the engine's :class:`CompiledDag`.

Compilation validates first (any error raises :class:`ConfigValidationError` with every issue), then builds
frozen values once: sources
normalised, ``event_key`` defaulted to the slot name, conditions and readback formatters compiled through
:mod:`slotgraph.expr`, response parts frozen, ``then`` resolved to a :class:`ExhaustCall`, and the lookup
tables derived. Results are cached by content: the key is a digest of the config's serialised content
(:class:`~slotgraph.config.content.ConfigContent`), never a name, so the engine may call
:func:`compile_config` on every invocation cheaply. The cache is a bounded, thread-safe LRU.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

from slotgraph.config.compiled import (
    NO_RESPONSES,
    Bootstrap,
    CompiledDag,
    CompiledSlot,
    CompiledTask,
    Exhaust,
    ExhaustCall,
    FailurePolicy,
    Responses,
    SlotValidation,
    SteerBack,
    ValidateAgainst,
)
from slotgraph.config.conditions import compile_condition
from slotgraph.config.content import ConfigContent, check_tree, fingerprint_of
from slotgraph.config.formatters import compile_formatter

if TYPE_CHECKING:  # the typed nodes (pydantic) load only when a config is validated: not from a plan
    from slotgraph.config.nodes import DagConfig, ResponsePart

__all__ = [
    "CACHE_SIZE",
    "clear_compile_cache",
    "compile_config",
    "config_fingerprint",
    "legacy_steer_back",
    "note_validated",
]

CACHE_SIZE: Final = 256

_V = TypeVar("_V")


class _LruCache(Generic[_V]):
    """A small thread-safe LRU keyed by content fingerprint."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[str, _V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> _V | None:
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
            return item

    def put(self, key: str, value: _V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


# Module-level state, keyed by content only: compiled configs, and the fingerprints of contents that passed
# full validation in this process (an agent's loader validates its DAG with positions and tool names; the
# compilation that follows does not validate the very same content again).
_CACHE: Final[_LruCache[CompiledDag]] = _LruCache(CACHE_SIZE)
_VALIDATED: Final[_LruCache[bool]] = _LruCache(CACHE_SIZE)


def clear_compile_cache() -> None:
    """Empty the compiled-config cache and the compiled-condition cache (tests; long-lived processes that
    reload many configs)."""
    _CACHE.clear()
    _VALIDATED.clear()
    compile_condition.cache_clear()


def config_fingerprint(raw: Mapping[str, Any] | DagConfig) -> str:
    """sha256 (hex) of the config's canonical JSON: equal content, equal fingerprint."""
    return fingerprint_of(_as_raw(raw))


def note_validated(raw: Mapping[str, Any]) -> None:
    """Record that ``raw`` passed :func:`~slotgraph.config.validation.validate_raw` (no errors) in this
    process, so :func:`compile_config` of the same content does not validate it again. For loaders that
    validate with more context (positions, tool names) just before compiling; keyed by content, never by
    object."""
    _VALIDATED.put(ConfigContent(_as_raw(raw)).key, True)


def _as_raw(raw: Mapping[str, Any] | DagConfig) -> Any:
    if isinstance(raw, Mapping):
        return raw
    return raw.model_dump(mode="json", exclude_unset=True)  # a DagConfig (not a Mapping)


# The builders read a typed node's fields by name: a pydantic node keeps them in its ``__dict__``.
Node = Mapping[str, Any]


def _fields(node: object) -> Node:
    """A typed node's fields by name (its ``__dict__``)."""
    fields: Node = node.__dict__
    return fields


def _part(part: Node | ResponsePart) -> Mapping[str, Any]:
    """A response part as frozen JSON data (a typed part dumps as JSON: ``ResponsePart``'s serializer)."""
    return MappingProxyType(dict(part) if isinstance(part, Mapping) else part.model_dump())


def _parts(parts: list[Node] | list[ResponsePart] | None) -> tuple[Mapping[str, Any], ...] | None:
    if parts is None:
        return None
    return tuple(_part(part) for part in parts)


def _responses(default: list[Any] | None, by_channel: Mapping[str, list[Any]] | None) -> Responses:
    if default is None and not by_channel:
        return NO_RESPONSES
    channels = {channel: _parts(parts) or () for channel, parts in (by_channel or {}).items()}
    return Responses(default=_parts(default), by_channel=MappingProxyType(channels))


def _tool_call(then: object) -> ExhaustCall | None:
    if then is None:
        return None
    if isinstance(then, str):
        return ExhaustCall(then, MappingProxyType({}))
    call = _fields(then)
    return ExhaustCall(call["tool"], MappingProxyType(dict(call["args"])))


def _exhaust(node: object) -> Exhaust | None:
    if node is None:
        return None
    block = _fields(node)
    return Exhaust(
        say=block["say"],
        then=_tool_call(block["then"]),
        responses=_responses(block["response"], block["channel_responses"]),
    )


def _validation(node: object) -> SlotValidation:
    v = _fields(node)
    by_code: Mapping[str, list[Any]] = v["error_responses"] or {}
    by_channel: Mapping[str, Mapping[str, list[Any]]] = v["channel_error_responses"] or {}
    codes = set(by_code) | {c for parts in by_channel.values() for c in parts}
    error_responses = {
        code: _responses(
            by_code.get(code),
            {
                channel: codes_parts[code]
                for channel, codes_parts in by_channel.items()
                if code in codes_parts
            },
        )
        for code in sorted(codes)
    }
    return SlotValidation(
        errors=MappingProxyType(dict(v["errors"])),
        error_responses=MappingProxyType(error_responses),
        max_retries=v["max_retries"],
        on_exhaust=_exhaust(v["on_exhaust"]),
    )


def _slot(index: int, node: object, changeable_default: bool = False) -> CompiledSlot:
    slot = _fields(node)
    source: str | list[str] = slot["source"]
    sources = (source,) if isinstance(source, str) else tuple(source)
    against = None if slot["validate_against"] is None else _fields(slot["validate_against"])
    condition: str | None = slot["condition"]
    preempt: bool | None = slot["preempt"]
    return CompiledSlot(
        name=slot["name"],
        sources=tuple(s.strip() if s.startswith("task:") else s for s in sources),
        event_key=slot["event_key"] or slot["name"],
        setter=slot["setter"],
        setter_field=slot["setter_field"],
        ask=slot["ask"],
        message=slot["message"],
        preempt=True if preempt is None else preempt,
        requires=tuple(slot["requires"]),
        requires_readback=slot["requires_readback"],
        formatter=compile_formatter(slot["readback_fmt"], location=f"slots[{index}].readback_fmt"),
        condition=None if condition is None else compile_condition(condition),
        hint=slot["hint"],
        label=slot["label"],
        validate_against=None
        if against is None
        else ValidateAgainst(against["response_field"], against["filled_slot"], against["error_code"]),
        validation=None if slot["validation"] is None else _validation(slot["validation"]),
        responses=_responses(slot["response"], slot["channel_responses"]),
        accept_early=slot["accept_early"],
        changeable=_changeable(slot, sources, changeable_default),
    )


def _changeable(slot: Node, sources: tuple[str, ...], default: bool) -> bool:
    """A slot's ``changeable``: explicit, else the DAG's default for user slots with a setter."""
    changeable: bool | None = slot["changeable"]
    if changeable is not None:
        return changeable
    return default and "user" in sources and slot["setter"] is not None


def _task(node: object) -> CompiledTask:
    task = _fields(node)
    failure = None
    if task["on_failure"] is not None:
        f = _fields(task["on_failure"])
        failure = FailurePolicy(
            retry_say=f["retry_say"],
            retry_responses=_responses(f["retry_response"], f["channel_retry_response"]),
            max_retries=f["max_retries"],
            clear_slots=tuple(f["clear_slots"]),
            on_exhaust=_exhaust(f["on_exhaust"]),
        )
    condition: str | None = task["condition"]
    on_complete = None if task["on_complete"] is None else _fields(task["on_complete"])
    return CompiledTask(
        name=task["name"],
        tool=task["tool"],
        inputs=tuple(task["inputs"]),
        requires=tuple(task["requires"]),
        outputs=MappingProxyType(dict(task["outputs"])),
        success_check=task["success_check"],
        terminal=task["terminal"],
        readback_inputs=task["readback_inputs"],
        readback_together=task["readback_together"],
        parallel=task["parallel"] and not task["terminal"],
        then_say=task["then_say"],
        then_responses=_responses(task["then_response"], task["channel_then_response"]),
        condition=None if condition is None else compile_condition(condition),
        on_failure=failure,
        loop_clear_slots=None if on_complete is None else tuple(on_complete["clear_slots"]),
    )


def legacy_steer_back(node: object) -> SteerBack:
    """``steer_back``, or its translation from the legacy stall keys when it is absent (``node``: the typed
    config).

    ``progress_stall: {max_turns: N, on_exhaust}`` escalated after N user turns without progress (the same
    count steer-back keeps) and had no softer tier: it becomes ``escalate_after: N`` with its
    ``on_exhaust`` and soft/hard tiers at N too, which never fire because escalation is checked first.
    ``readback_retry`` has no equivalent (it cleared pending values on a stall); only its ``on_exhaust`` is
    kept, as steer-back's, when nothing else configures one. Validation warns about both.
    """
    config = _fields(node)
    if config["steer_back"] is not None:
        steer = _fields(config["steer_back"])
        return SteerBack(
            steer["soft_after"], steer["hard_after"], steer["escalate_after"], _exhaust(steer["on_exhaust"])
        )
    if config["progress_stall"] is not None:
        stall = _fields(config["progress_stall"])
        turns = stall["max_turns"]
        return SteerBack(turns, turns, turns, _exhaust(stall["on_exhaust"]))
    if config["readback_retry"] is not None:
        retry = _fields(config["readback_retry"])
        if retry["on_exhaust"] is not None:
            return SteerBack(on_exhaust=_exhaust(retry["on_exhaust"]))
    return SteerBack()


def _state_tables(
    slots: tuple[CompiledSlot, ...],
    tasks: tuple[CompiledTask, ...],
    setter_slots: Mapping[str, tuple[str, ...]],
    multi: Mapping[str, Mapping[str, str]],
) -> Mapping[str, Any]:
    """The config-derived routing tables the original platform caches in ``sm``, as plain data."""
    task_by_name = {t.name: t for t in tasks}
    executors = {t.tool: t.name for t in tasks}
    return MappingProxyType(
        {
            "_setter_slots": {
                tool: names[0] for tool, names in setter_slots.items() if tool not in multi and names
            },
            "_multi_setter_slots": {tool: dict(fields) for tool, fields in multi.items()},
            "_slot_requires": {s.name: list(s.requires) for s in slots if s.requires},
            "_slot_validates": {
                s.name: {
                    "response_field": s.validate_against.response_field,
                    "filled_slot": s.validate_against.filled_slot,
                    "error_code": s.validate_against.error_code,
                }
                for s in slots
                if s.validate_against is not None
            },
            "_executor_tasks": {
                tool: {
                    "task_name": name,
                    "outputs": dict(task_by_name[name].outputs),
                    "success_check": task_by_name[name].success_check,
                    "terminal": task_by_name[name].terminal,
                }
                for tool, name in executors.items()
            },
        }
    )


def _build(node: DagConfig, content: ConfigContent | None) -> CompiledDag:
    """The compiled DAG of a typed config."""
    config = _fields(node)
    slots = tuple(_slot(i, s, config["changeable"]) for i, s in enumerate(config["slots"]))
    tasks = tuple(_task(t) for t in config["tasks"])
    setter_slots: dict[str, tuple[str, ...]] = {}
    multi: dict[str, dict[str, str]] = {}
    for slot in slots:
        if slot.setter is None:
            continue
        setter_slots[slot.setter] = (*setter_slots.get(slot.setter, ()), slot.name)
        if slot.setter_field is not None:
            multi.setdefault(slot.setter, {})[slot.setter_field] = slot.name
    prefix: str | list[str] | None = config["confirm_transition_prefix"]
    boot = None if config["bootstrap"] is None else _fields(config["bootstrap"])
    mappings: Mapping[str, Mapping[str, Any]] = config["event_mappings"] or {}
    return CompiledDag(
        slots=slots,
        tasks=tasks,
        steer_back=legacy_steer_back(node),
        confirm_transition_prefixes=()
        if prefix is None
        else (prefix,)
        if isinstance(prefix, str)
        else tuple(prefix),
        gate_slot=config["gate_slot"],
        config_id=config["config_id"],
        readback_responses=_responses(config["readback_response"], config["channel_readback_response"]),
        event_mappings=MappingProxyType(
            {name: MappingProxyType(dict(pairs)) for name, pairs in mappings.items()}
        ),
        bootstrap=None if boot is None else Bootstrap(boot["tool"], boot["slot"], boot["reset_on_complete"]),
        content=content,
        slot_by_name=MappingProxyType({s.name: s for s in slots}),
        task_by_name=MappingProxyType({t.name: t for t in tasks}),
        setter_slots=MappingProxyType(setter_slots),
        multi_setter_slots=MappingProxyType({k: MappingProxyType(v) for k, v in multi.items()}),
        executor_tasks=MappingProxyType({t.tool: t.name for t in tasks}),
        conditional_slots=tuple(s for s in slots if s.condition is not None),
        state_tables=_state_tables(slots, tasks, setter_slots, multi),
    )


def _model_or_none(data: Any) -> DagConfig | None:
    """The typed config, or None when the data does not fit it (validation then reports every problem)."""
    from pydantic import ValidationError

    from slotgraph.config.nodes import DagConfig

    try:
        return DagConfig.model_validate(data)
    except ValidationError:
        return None


def compile_config(raw: Mapping[str, Any] | DagConfig) -> CompiledDag:
    """Validate and compile a DAG config (raw mapping or :class:`DagConfig`); cached by content.

    Raises :class:`~slotgraph.config.errors.ConfigValidationError` listing every error. Warnings are not
    raised; get them from :func:`slotgraph.config.validate_dag`.
    """
    data = _as_raw(raw)
    content = ConfigContent(data)
    key = content.key
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    compiled = _validated_build(raw, data, content)
    _CACHE.put(key, compiled)
    return compiled


def _validated_build(raw: Mapping[str, Any] | DagConfig, data: Any, content: ConfigContent) -> CompiledDag:
    """A cache miss: check the content's shape, validate it (unless this process did already), build it."""
    check_tree(data)  # too deep or not a tree: one clear error, before anything walks it
    config = raw if not isinstance(raw, Mapping) else _model_or_none(data)
    # an agent's loader may have validated this very content just before (``note_validated``)
    if config is None or _VALIDATED.get(content.key) is None:
        from slotgraph.config.validation import validate_raw

        # errors only: compiling raises them and has no use for the warnings (``validate_dag`` reports those)
        validate_raw(data, warnings=False, _structure_valid=config is not None).raise_for_errors()
    assert config is not None  # a structural problem is an error of the report, raised above
    return _build(config, content)
