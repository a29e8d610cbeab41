"""The engine port hands states through as they are: every engine entry copies what it is given.

``DagEngine`` no longer copies a state on its way in or out (two dict copies per call, ~1 µs each): the
contract it relies on is the engine's own — every entry (``begin_turn``, ``run_engine``, ``after_tool``,
``confirm_pending``, ``reject_pending``) copies the state before changing anything and returns a new dict.
These tests hold the port to that contract on a short conversation, with readback so that every entry
changes something.
"""

from __future__ import annotations

import copy
from typing import Any

from slotgraph.config import compile_config
from slotgraph.runtime.engine_port import DagEngine

from .toy_agent import toy_dag

DAG = compile_config(toy_dag(readback=True))


def _frozen_call(sm: dict[str, Any], call: Any) -> dict[str, Any]:
    before = copy.deepcopy(sm)
    out = call(sm)
    assert sm == before, "the port's input was changed"
    assert out is not sm and isinstance(out, dict)
    return out


def test_every_entry_leaves_its_input_unchanged_and_returns_a_new_state() -> None:
    engine = DagEngine(seed=0)

    def invoke(text: str) -> Any:
        return lambda s: (
            engine.invoke(DAG, s, last_user_text=text, event_data=None, channel=None, debug=False).sm
        )

    sm = _frozen_call({}, lambda s: engine.begin_turn(DAG, s))
    sm = _frozen_call(sm, invoke("hi"))
    sm = _frozen_call(
        sm,
        lambda s: engine.after_tool(
            DAG, s, "set_num_guests", {"num_guests": 4}, {"stored": True, "value": 4}
        ),
    )
    assert sm["pending"] == {"num_guests": 4}
    sm = _frozen_call(sm, invoke(""))
    sm = _frozen_call(sm, lambda s: engine.reject_pending(DAG, s))
    assert sm["_rejection_requested"] is True
    sm = _frozen_call(sm, lambda s: engine.begin_turn(DAG, s))
    assert sm["pending"] == {}
    sm = _frozen_call(
        sm,
        lambda s: engine.after_tool(
            DAG, s, "set_num_guests", {"num_guests": 5}, {"stored": True, "value": 5}
        ),
    )
    sm = _frozen_call(sm, invoke(""))  # reads the new value back
    sm = _frozen_call(sm, lambda s: engine.confirm_pending(DAG, s))
    assert sm["filled"]["num_guests"] == 5 and sm["pending"] == {}
    sm = _frozen_call(sm, invoke("yes"))
