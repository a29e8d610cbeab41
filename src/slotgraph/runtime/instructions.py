"""The phase-specific instruction suffix (docs/runtime.md#the-instruction-suffix).

Before every model call the runtime appends a framework suffix to the agent's instruction, after the
sentinel ``<!-- slot-framework -->``. The suffix holds exactly one protocol block — collection (with the
tool-selection guide built from each visible slot's ``hint`` → ``setter``) OR readback, never both — then the
engine's message as ``<system_directive>``, the engine's ``si_suffix`` (``<readback_scope>``,
``<deferred_collection>``, ``<user_context>`` after a gate slot), and a ``<steer_back>`` directive.

:func:`inject_suffix` REPLACES whatever followed the sentinel, so hints of an earlier call in the same turn
(e.g. "don't read back" from ``<deferred_collection>``) never sit next to later, contradicting ones.
"""

from __future__ import annotations

import datetime
from collections.abc import Collection, Mapping
from typing import Any, Literal

from slotgraph.config.compiled import CompiledDag
from slotgraph.engine.actions import EngineAction
from slotgraph.names import (
    CONFIRM_PENDING,
    READBACK_PROTOCOL,
    REJECT_PENDING,
    SENTINEL,
    SLOT_FILLING_PROTOCOL,
    STEER_BACK,
    SYSTEM_DIRECTIVE,
    open_tag,
    tagged,
)

__all__ = [
    "CURRENT_DATE",
    "SENTINEL",
    "Phase",
    "build_phase_suffix",
    "collection_hints",
    "fill_current_date",
    "inject_suffix",
    "phase_of",
    "replace_base",
]

CURRENT_DATE = "{current_date}"
"""The one variable an agent's instruction may hold: today's date (ISO) on the session clock."""


Phase = Literal["collection", "readback"]

_COLLECTION_PROTOCOL = f"""<{SLOT_FILLING_PROTOCOL}>
You collect the information below by calling setter tools; the framework decides what to ask next.
- When the user gives a piece of information, call the matching setter right away (several setters in one
  response is fine). Convert what the user said into the format the tool describes.
- Call only the tools you are given, and only for what the user actually said.
- When a <{SYSTEM_DIRECTIVE}> is present, relay it to the user naturally — include exact values or
  confirmation numbers. Do not invent questions, confirmations or results of your own.{{hints}}
</{SLOT_FILLING_PROTOCOL}>"""

_READBACK_PROTOCOL = f"""<{READBACK_PROTOCOL}>
Some values are waiting for the user's confirmation.
- If you have not read them back yet, read them back as the <{SYSTEM_DIRECTIVE}> says and ask whether they
  are correct.
- If the user confirms, call {CONFIRM_PENDING}. If the user says they are wrong without a new value, call
  {REJECT_PENDING}. If the user corrects a value, call its setter with the corrected value.
- Relay the <{SYSTEM_DIRECTIVE}> naturally — include the exact values.
</{READBACK_PROTOCOL}>"""


def phase_of(action: EngineAction | None, sm: Mapping[str, Any]) -> Phase:
    """Readback while values wait in ``pending`` — unless the engine just confirmed them inline
    (docs/engine.md#auto-confirm-and-inline-confirm)."""
    if action is not None and action.inline_confirmed:
        return "collection"
    return "readback" if sm.get("pending") else "collection"


def collection_hints(dag: CompiledDag, hidden: Collection[str]) -> list[str]:
    """``"hint → setter"`` lines for every user slot whose setter the model can see now."""
    return [line for line, setter in _guide_of(dag).lines if setter not in hidden]


class _Guide:
    """What the collection protocol block is built from, derived once per compiled DAG (kept in
    ``dag.derived``): each user slot's ``hint → setter`` line with its setter, duplicates dropped, in slot
    order; and the blocks built so far, by the lines they show (a handful per agent: which setters are
    visible changes with the phase, not per call)."""

    __slots__ = ("blocks", "lines")

    def __init__(self, lines: list[tuple[str, str]]) -> None:
        self.lines = lines
        self.blocks: dict[str, str] = {}


_GUIDE_KEY = "slotgraph.runtime.instructions"
_MAX_BLOCKS = 64
"""Collection blocks kept per DAG; past this (a DAG with many independently visible setters) a block is
built per call, as before the cache."""


def _guide_of(dag: CompiledDag) -> _Guide:
    guide = dag.derived.get(_GUIDE_KEY)
    if isinstance(guide, _Guide):
        return guide
    lines: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for slot in dag.slots:
        if not slot.is_user or slot.setter is None or slot.hint is None:
            continue
        key = (slot.hint, slot.setter)
        if key not in seen:
            seen.add(key)
            lines.append((f"  - {slot.hint} → {slot.setter}", slot.setter))
    guide = dag.derived[_GUIDE_KEY] = _Guide(lines)
    return guide


def _collection_block(dag: CompiledDag, hidden: Collection[str]) -> str:
    """The ``<slot_filling_protocol>`` block with the tool guide for the setters not ``hidden``."""
    guide = _guide_of(dag)
    shown = "\n".join(collection_hints(dag, hidden))
    block = guide.blocks.get(shown)
    if block is None:
        block = _COLLECTION_PROTOCOL.format(hints="\nTool selection:\n" + shown if shown else "")
        if len(guide.blocks) < _MAX_BLOCKS:
            guide.blocks[shown] = block
    return block


def _tag(name: str, body: str) -> str:
    return tagged(name, body.strip())


def build_phase_suffix(
    dag: CompiledDag,
    action: EngineAction | None,
    sm: Mapping[str, Any],
    *,
    hidden: Collection[str],
) -> str:
    """The framework suffix for one model call (without the sentinel)."""
    parts: list[str] = []
    if phase_of(action, sm) == "readback":
        parts.append(_READBACK_PROTOCOL)
    else:
        parts.append(_collection_block(dag, hidden))
    si_suffix = action.si_suffix.strip() if action is not None else ""
    message = (action.message or "").strip() if action is not None else ""
    if message and open_tag(SYSTEM_DIRECTIVE) not in si_suffix:
        parts.append(_tag(SYSTEM_DIRECTIVE, message))
    if si_suffix:
        parts.append(si_suffix)
    steer = (action.steer_back_directive or "").strip() if action is not None else ""
    if steer:
        parts.append(_tag(STEER_BACK, steer))
    return "\n\n".join(parts)


def fill_current_date(instruction: str, today: datetime.date) -> str:
    """``{current_date}`` (the platform's built-in) → today's ISO date; the rest is left as written."""
    return (
        instruction.replace(CURRENT_DATE, today.isoformat()) if CURRENT_DATE in instruction else instruction
    )


def inject_suffix(instruction: str, suffix: str | None) -> str:
    """Replace everything after the sentinel with ``suffix`` (or drop the framework part when None)."""
    base = instruction.split(SENTINEL, 1)[0].rstrip()
    if suffix is None:
        return base
    return f"{base}\n\n{SENTINEL}\n{suffix}" if base else f"{SENTINEL}\n{suffix}"


def replace_base(instruction: str, base: str) -> str:
    """``instruction`` with everything before the sentinel replaced by ``base`` (the suffix is kept)."""
    _, sentinel, suffix = instruction.partition(SENTINEL)
    return inject_suffix(base, suffix.lstrip("\n") if sentinel else None)
