"""The runtime's one seam onto the decision engine.

The loop talks to the engine only through :class:`Engine` (five calls, plain data in and out), so the
decision core stays a pure package and tests can drive the loop with a stand-in. :class:`DagEngine` is the
real thing: it delegates to :mod:`slotgraph.engine`, handing states through as they are (every engine entry
copies the state it is given before changing anything, and returns a new dict).

An engine *action* is the typed, frozen :class:`slotgraph.engine.EngineAction` (its ``reason`` one of the
closed :class:`slotgraph.engine.Reason`); the spec's action dict exists only at the spec-compatible entry
(:mod:`slotgraph.adapters.cxas`).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Protocol

from slotgraph.config.compiled import CompiledDag
from slotgraph.engine.pipeline import EngineResult, run_engine
from slotgraph.engine.routing import after_tool, confirm_pending, reject_pending
from slotgraph.engine.turn import begin_turn

__all__ = ["DagEngine", "Engine", "EngineResult"]


class Engine(Protocol):
    """What the loop needs from the engine. Every call returns a new state; inputs are not mutated."""

    def begin_turn(self, dag: CompiledDag, sm: Mapping[str, Any]) -> dict[str, Any]: ...

    def invoke(
        self,
        dag: CompiledDag,
        sm: Mapping[str, Any],
        *,
        last_user_text: str,
        event_data: Mapping[str, Any] | None,
        channel: str | None,
        debug: bool,
        variables: Mapping[str, Any] | None = None,
        gate_user_text: str = "",
    ) -> EngineResult:
        """One engine invocation; ``variables`` (the agent's session variables, passed only when the agent
        has agent logic) are what slot and task conditions read besides the filled slots;
        ``gate_user_text`` (passed only on the first invocation after a gate slot opened) is what the user
        said while it was closed."""
        ...

    def after_tool(
        self, dag: CompiledDag, sm: Mapping[str, Any], tool_name: str, args: Mapping[str, Any], result: Any
    ) -> dict[str, Any]: ...

    def confirm_pending(
        self, dag: CompiledDag, sm: Mapping[str, Any], *, slots: Collection[str] | None = None
    ) -> dict[str, Any]:
        """Commit the pending values read back (``slots``: only those, docs/engine.md "Partial readback")."""
        ...

    def reject_pending(
        self, dag: CompiledDag, sm: Mapping[str, Any], *, slots: Collection[str] | None = None
    ) -> dict[str, Any]:
        """Record the rejection of the pending values (``slots``: only those)."""
        ...


class DagEngine:
    """:class:`Engine` backed by :mod:`slotgraph.engine`. ``seed`` makes the engine's choices reproducible."""

    def __init__(self, *, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def _choose(self, options: Sequence[str]) -> str:
        return self._random.choice(list(options))

    def begin_turn(self, dag: CompiledDag, sm: Mapping[str, Any]) -> dict[str, Any]:
        return begin_turn(dag, sm)

    def invoke(
        self,
        dag: CompiledDag,
        sm: Mapping[str, Any],
        *,
        last_user_text: str,
        event_data: Mapping[str, Any] | None,
        channel: str | None,
        debug: bool,
        variables: Mapping[str, Any] | None = None,
        gate_user_text: str = "",
    ) -> EngineResult:
        return run_engine(
            dag,
            sm,
            last_user_text=last_user_text,
            event_data=event_data,
            channel=channel,
            debug=debug,
            choose=self._choose,
            variables=variables,
            gate_user_text=gate_user_text,
        )

    def after_tool(
        self, dag: CompiledDag, sm: Mapping[str, Any], tool_name: str, args: Mapping[str, Any], result: Any
    ) -> dict[str, Any]:
        return after_tool(sm, dag, tool_name, args, result)

    def confirm_pending(
        self, dag: CompiledDag, sm: Mapping[str, Any], *, slots: Collection[str] | None = None
    ) -> dict[str, Any]:
        return confirm_pending(sm, dag, slots=slots)

    def reject_pending(
        self, dag: CompiledDag, sm: Mapping[str, Any], *, slots: Collection[str] | None = None
    ) -> dict[str, Any]:
        return reject_pending(sm, slots=slots)
