"""The spec-compatible engine entry (DESIGN.md "Public contracts" 1; docs/engine.md#public-api).

The original platform's tool interface, on plain data:

* :func:`slot_filling_engine` ``(input_data) -> {"action": {...}, "sm": {...}}`` — ``input_data`` carries
  ``raw_config`` (the DAG config exactly as the spec writes it), ``sm``, ``last_user_text`` (``""`` on
  post-tool and first-turn invocations) and optionally ``event_data``, ``debug``, ``channel`` and ``seed``
  (alias ``random_seed``), and ``config_id``, which the original platform's callback sends on every call as
  the cache key of the compiled config: it is accepted and ignored, because compiled configs are cached by
  content here (see "Config memo"), and ``rechecks_after_model`` (default false): true when the host invokes
  the engine once more after the model's step whenever the action says ``recheck_after_model``. Without
  it the hard and escalate steer-back tiers apply on the user's own invocation, as on the original
  platform; with it they are armed and settled by that recheck, so an answer is never swallowed. With
  ``debug`` the result also has ``_debug_log`` (a list of ``{"tag": ..., ...}`` entries,
  docs/engine.md#observability);
* :func:`after_tool` ``(sm, raw_config, tool_name, args, result) -> sm`` — tool-result routing
  (docs/engine.md#tool-result-routing);
* :func:`confirm_pending` / :func:`reject_pending` ``(sm) -> sm`` — the readback tools
  (docs/engine.md#readback-and-confirmation);
* :func:`fill_slots` ``(sm, config, values, skip_readback=True)`` ``-> {"filled", "skipped", ...}`` — the
  spec's programmatic fill (docs/engine.md#event-pre-fill-and-fill_slots), which updates ``sm`` **in place**
  (the one documented exception).

**The action dict.** Inside the library the engine's action is the typed
:class:`slotgraph.engine.EngineAction`; this entry is the one place it becomes the spec's dict
(:func:`action_dict`): ``hide_tools``, ``preempt``, ``force_preempt``, ``message``, ``function_call``
(``{"name", "args"}`` or ``None``), ``si_suffix``, ``inline_confirmed``, ``response`` (a list or ``None``),
``phase``, ``reason``, ``steer_back_directive``, ``event_prefilled``, ``gate_open``,
``recheck_after_model``. The parts the action stashes for the host's after-model step are written to
``sm["_pending_payloads"]`` (an older stash is replaced, an empty one cleared), as the spec's host expects.

Except :func:`fill_slots`, the input ``sm`` is never mutated; the returned one is new. Config problems raise
:class:`slotgraph.config.ConfigValidationError`; any other malformed input raises
:class:`slotgraph.engine.EngineInputError` / :class:`~slotgraph.engine.EngineStateError` with a ``code`` and a
fix.

**Variety.** The engine's only random choice is the ``confirm_transition_prefix`` (docs/engine.md#the-reply);
the engine itself takes a ``choose`` function and never imports :mod:`random`. Here, ``seed`` (any int or
string) makes it reproducible: the prefix is drawn by ``random.Random(seed).choice``, so the same input always
gives the same output (tests). Without a seed the adapter draws from a fresh ``random.Random()`` seeded by the
operating system, so production replies vary as the spec intends.

**Compiled configs.** ``raw_config`` is compiled through :func:`slotgraph.config.compile_config`, whose cache
is keyed by the config's content: a host that sends the same config (the same object, or a new but equal
dict deserialised on every tool call) compiles it once, and a config changed in place is compiled again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import Any, Final

from slotgraph.config import CompiledDag, compile_config
from slotgraph.engine import EngineAction, EngineInputError
from slotgraph.engine import after_tool as _after_tool
from slotgraph.engine import confirm_pending as _confirm_pending
from slotgraph.engine import fill_slots as _fill_slots
from slotgraph.engine import reject_pending as _reject_pending
from slotgraph.engine.pipeline import run_engine
from slotgraph.names import PENDING_PAYLOADS

__all__ = [
    "action_dict",
    "after_tool",
    "confirm_pending",
    "fill_slots",
    "reject_pending",
    "slot_filling_engine",
]

_KNOWN_KEYS: Final[frozenset[str]] = frozenset(
    {"raw_config", "sm", "last_user_text", "event_data", "debug", "channel", "seed", "random_seed"}
    | {"config_id", "rechecks_after_model"}
)
PAYLOADS_KEY: Final = PENDING_PAYLOADS


def _compiled(raw_config: Any, where: str) -> CompiledDag:
    if isinstance(raw_config, CompiledDag):
        return raw_config
    if not isinstance(raw_config, Mapping):
        raise EngineInputError(
            f"raw_config must be the DAG config dict, got {type(raw_config).__name__}",
            code="invalid_raw_config",
            where=where,
            fix="pass the dict the {config_id}_dag tool returns (slots, tasks, ...)",
        )
    return compile_config(raw_config)


def _unseeded_choice(options: Sequence[str]) -> str:
    """The choice without a seed: a generator seeded by the OS, made only when a choice is made (seeding
    costs microseconds, and most invocations never choose; :mod:`random` is imported then too: a process
    that makes one call, as a host with a process per tool call runs, usually never needs it)."""
    import random

    return random.Random().choice(list(options))


def _choose(input_data: dict[str, Any], where: str) -> Callable[[Sequence[str]], str]:
    if "seed" not in input_data and "random_seed" not in input_data:
        return _unseeded_choice
    if "seed" in input_data and "random_seed" in input_data:
        raise EngineInputError(
            "both 'seed' and 'random_seed' given",
            code="invalid_seed",
            where=where,
            fix="pass one of them ('random_seed' is an alias of 'seed')",
        )
    seed = input_data.get("seed", input_data.get("random_seed"))
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int | str)):
        raise EngineInputError(
            f"'seed' must be an int or a string, got {seed!r}",
            code="invalid_seed",
            where=where,
            fix="pass e.g. 'seed': 42, or leave it out for varied replies",
        )

    def choose(options: Sequence[str]) -> str:
        # Created on use: seeding from the OS costs microseconds, and most invocations never choose.
        import random

        rng = random.Random(seed) if seed is not None else random.Random()
        return rng.choice(list(options))

    return choose


_WHERE: Final = "slot_filling_engine(input_data)"
_WHERE_RAW_CONFIG: Final = f"{_WHERE}['raw_config']"


def slot_filling_engine(input_data: Mapping[str, Any]) -> dict[str, Any]:
    """One engine invocation with the spec's plain-dict interface (``input_data`` is a dict; anything else
    is refused with an EngineInputError)."""
    where = _WHERE
    if not isinstance(input_data, Mapping):
        raise EngineInputError(
            f"input_data must be a dict, got {type(input_data).__name__}",
            code="invalid_input_data",
            where=where,
            fix="pass {'raw_config': ..., 'sm': ..., 'last_user_text': ...}",
        )
    data: dict[str, Any] = input_data if type(input_data) is dict else dict(input_data)  # read directly
    if "raw_config" not in data:
        raise EngineInputError(
            "missing 'raw_config'",
            code="missing_raw_config",
            where=where,
            fix="add the DAG config dict under 'raw_config'",
        )
    if not _KNOWN_KEYS.issuperset(data):
        unknown = sorted(str(k) for k in data if k not in _KNOWN_KEYS)
        raise EngineInputError(
            f"unknown keys {unknown}",
            code="unknown_input_key",
            where=where,
            fix=f"use only {sorted(_KNOWN_KEYS)}",
        )
    config_id = data.get("config_id")
    if config_id is not None and not isinstance(config_id, str):
        raise EngineInputError(
            f"'config_id' must be a string, got {config_id!r}",
            code="invalid_config_id",
            where=where,
            fix="pass the config id as text (e.g. 'default'), or leave it out",
        )
    dag = _compiled(data["raw_config"], _WHERE_RAW_CONFIG)
    sm = data.get("sm")
    if sm is None:
        sm = {}
    last_user_text = data.get("last_user_text")
    debug = data.get("debug", False)
    if not isinstance(debug, bool):
        raise EngineInputError(
            f"'debug' must be true or false, got {debug!r}",
            code="invalid_debug",
            where=where,
            fix="pass a bool",
        )
    rechecks = data.get("rechecks_after_model", False)
    if not isinstance(rechecks, bool):
        raise EngineInputError(
            f"'rechecks_after_model' must be true or false, got {rechecks!r}",
            code="invalid_rechecks_after_model",
            where=where,
            fix="pass true only if the host invokes the engine again after the model's step when the action "
            "says recheck_after_model; leave it out otherwise",
        )
    result = run_engine(
        dag,
        sm,
        last_user_text="" if last_user_text is None else last_user_text,
        event_data=data.get("event_data"),
        channel=data.get("channel"),
        debug=debug,
        choose=_choose(data, where),
        host_rechecks=rechecks,
    )
    new_sm, stash = result.sm, result.action.stash
    if stash or sm.get(PAYLOADS_KEY):
        new_sm[PAYLOADS_KEY] = [dict(part) for part in stash]
    out: dict[str, Any] = {"action": action_dict(result.action), "sm": new_sm}
    if debug:
        out["_debug_log"] = list(result.debug_log)
    return out


def action_dict(action: EngineAction) -> dict[str, Any]:
    """The spec's action dict (docs/engine.md#the-action) of a typed engine action. A parallel fire adds
    ``parallel_calls`` (a list of ``{"name", "args"}``); a host that runs only ``function_call`` gets the
    other tasks fired one by one on the following invocations."""
    call = action.function_call
    out = {
        "hide_tools": list(action.hidden_tools),
        "preempt": action.preempt,
        "force_preempt": action.force_preempt,
        "message": action.message if action.message is not None else "",  # the platform's "", never null
        "function_call": call.as_dict() if call is not None else None,
        "si_suffix": action.si_suffix,
        "inline_confirmed": action.inline_confirmed,
        "response": [dict(part) for part in action.response] if action.response is not None else None,
        "phase": action.phase,
        "reason": str(action.reason),
        "steer_back_directive": action.steer_back_directive,
        "event_prefilled": action.event_prefilled,
        "gate_open": action.gate_open,
        "recheck_after_model": action.recheck_after_model,
    }
    if action.parallel_calls:
        out["parallel_calls"] = [parallel.as_dict() for parallel in action.parallel_calls]
    return out


def after_tool(
    sm: dict[str, Any], raw_config: Any, tool_name: str, args: Mapping[str, Any] | None, result: Any
) -> dict[str, Any]:
    """Route a tool result into a new state (docs/engine.md#tool-result-routing)."""
    return _after_tool(sm, _compiled(raw_config, "after_tool(raw_config)"), tool_name, args, result)


def confirm_pending(sm: dict[str, Any]) -> dict[str, Any]:
    """The ``confirm_pending`` tool: pending values move to ``filled``, ``_readback_transition`` is set."""
    return _confirm_pending(sm)


def reject_pending(sm: dict[str, Any]) -> dict[str, Any]:
    """The ``reject_pending`` tool: the rejection is recorded and applied at the next invocation/turn."""
    return _reject_pending(sm)


def fill_slots(
    sm: MutableMapping[str, Any], config: Any, values: Mapping[str, Any], skip_readback: object = True
) -> dict[str, Any]:
    """The spec's ``fill_slots``: fill ``values`` into ``sm`` **in place**; the DAG advances on the
    next engine invocation.

    This is the one function of Slotgraph that mutates its input: it is the spec's contract (callers do
    ``fill_slots(callback_context.state["sm"], config, {...})`` and read the state afterwards). The work is
    done by the pure :func:`slotgraph.engine.fill_slots`; its new state then replaces the contents of ``sm``.
    ``config`` is the raw config dict (or a compiled DAG).

    Returns ``{"filled": [names], "skipped": [names], "skipped_reasons": {name: reason}}`` with reasons
    ``"unknown"`` (not in the config), ``"already_filled"`` and ``"inactive"`` (its condition is false).
    ``skip_readback=True`` writes to ``filled``; ``False`` writes to ``pending`` (read back next invocation).
    """
    if not isinstance(sm, dict):
        raise EngineInputError(
            f"sm must be the session's state dict, got {type(sm).__name__}",
            code="invalid_state",
            where="fill_slots(sm)",
            fix="pass callback_context.state['sm'] (a dict); it is updated in place",
        )
    new_sm, report = _fill_slots(sm, _compiled(config, "fill_slots(config)"), values, skip_readback)
    sm.clear()
    sm.update(new_sm)
    return report
