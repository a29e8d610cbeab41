"""Gate slot (docs/engine.md#gate-slot): whether the host may run the engine yet.

A config may name a ``gate_slot``. Until it is collected the host's before-model step returns early (it skips
the engine, shows the gate's setters, and keeps the user's words (the runtime as ``_gate_user_text``) to hand
back as ``run_engine(..., gate_user_text=...)`` — the engine gives them to the model as a
``<user_context>`` block on the first engine invocation after the gate opens — that block is the host's job).
The engine's part is the verdict: :func:`gate_open` is true when there is no gate, when the gate slot is
inactive, or when a value for it has been collected (``filled``, or ``pending``/``deferred`` — a gate slot
with readback must reach the engine to be read back, otherwise the session could never pass the gate).
Every action also reports it as ``gate_open``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from slotgraph.config.compiled import CompiledDag
from slotgraph.engine.dag import slot_active

__all__ = ["gate_open"]


def gate_open(dag: CompiledDag, sm: Mapping[str, Any], variables: Mapping[str, Any] | None = None) -> bool:
    """The verdict (see the module docstring); the gate slot's condition reads ``sm["filled"]``, then the
    session ``variables``."""
    gate = dag.gate_slot
    if gate is None:
        return True
    filled = sm.get("filled") or {}
    if any(gate in (sm.get(key) or {}) for key in ("filled", "pending", "deferred")):
        return True
    if gate not in dag.slot_by_name:
        return False
    return not slot_active(dag, gate, filled, variables)
