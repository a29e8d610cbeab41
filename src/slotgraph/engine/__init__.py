"""The pure decision core of Slotgraph (the reference: ``docs/engine.md``).

One engine invocation is ``(compiled config, state, inputs) -> (new state, action)``; it never does I/O,
never reads the clock or a random source except through what it is given (``choose``), keeps no
module-level mutable state and never mutates its inputs.

Public names:

* :func:`run_engine` → :class:`EngineResult` — one invocation (the spec's ``_run_slot_filling``): the new
  state and the typed :class:`EngineAction` (its :class:`Reason`, :class:`FunctionCall`, :data:`Phase`);
* :func:`compute_dag_state` → :data:`DagAction` (:class:`Fire`, :class:`AwaitReadback`, :class:`Ask`,
  :class:`Announce`, :class:`AllDone`) — the pure decision (docs/engine.md#the-dag-decision);
* :func:`after_tool`, :func:`confirm_pending`, :func:`reject_pending` — tool-result routing
  (docs/engine.md#tool-result-routing);
* :func:`begin_turn` — the start of a user turn (``before_agent_callback``);
* :func:`fill_slots` — programmatic slot filling; :func:`gate_open` — the gate-slot verdict;
* :func:`find_next_question`, :func:`deferred_eligible` — the question finder and the deferral eligibility
  (docs/engine.md#deferred-readback);
* :data:`LOGGER_NAME` — the logger of the ``[slot-filling:<tag>]`` lines (docs/engine.md#observability);
* :func:`build_readback`, :func:`is_affirmative`, :func:`starts_affirmative`, :func:`compute_hidden_tools`;
* errors: :class:`EngineError`, :class:`EngineStateError`, :class:`EngineInputError`.
"""

from slotgraph.engine.actions import (
    AllDone,
    Announce,
    Ask,
    AwaitReadback,
    DagAction,
    EngineAction,
    Fire,
    FunctionCall,
    Phase,
    Reason,
)
from slotgraph.engine.affirmatives import is_affirmative, starts_affirmative
from slotgraph.engine.dag import compute_dag_state, find_next_question
from slotgraph.engine.errors import EngineError, EngineInputError, EngineStateError
from slotgraph.engine.fill import fill_slots
from slotgraph.engine.gate import gate_open
from slotgraph.engine.invocation import LOGGER_NAME, format_line
from slotgraph.engine.pipeline import EngineResult, default_choose, run_engine
from slotgraph.engine.readback import build_readback
from slotgraph.engine.routing import after_tool, confirm_pending, reject_pending
from slotgraph.engine.stages.promotion import deferred_eligible
from slotgraph.engine.turn import begin_turn
from slotgraph.engine.visibility import compute_hidden_tools

__all__ = [
    "LOGGER_NAME",
    "AllDone",
    "Announce",
    "Ask",
    "AwaitReadback",
    "DagAction",
    "EngineAction",
    "EngineError",
    "EngineInputError",
    "EngineResult",
    "EngineStateError",
    "Fire",
    "FunctionCall",
    "Phase",
    "Reason",
    "after_tool",
    "begin_turn",
    "build_readback",
    "compute_dag_state",
    "compute_hidden_tools",
    "confirm_pending",
    "default_choose",
    "deferred_eligible",
    "fill_slots",
    "find_next_question",
    "format_line",
    "gate_open",
    "is_affirmative",
    "reject_pending",
    "run_engine",
    "starts_affirmative",
]
