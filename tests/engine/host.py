"""A tiny simulated host for engine tests: the spec's callbacks played in order, no model, no I/O.

``start_turn(text)`` is ``before_agent`` + the first ``before_model`` invocation of a user turn; ``call`` runs
one tool (setters echo their argument, executors pop scripted results) and routes its result with
``after_tool``; ``invoke`` is the post-tool ``before_model`` invocation; ``follow`` applies the engine's own
``function_call`` (task fire, auto-confirm) and re-invokes, as a host that preempts does.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tests.engine.spec_view import run_engine

from slotgraph.config import CompiledDag
from slotgraph.engine import after_tool, begin_turn, confirm_pending, reject_pending


def echo_setter(args: Mapping[str, Any]) -> dict[str, Any]:
    return {"stored": True, "value": next(iter(args.values()))}


class Host:
    def __init__(
        self,
        dag: CompiledDag,
        *,
        executor_results: Mapping[str, Sequence[Any]] | None = None,
        setters: Mapping[str, Callable[[Mapping[str, Any]], Any]] | None = None,
        choose: Callable[[Sequence[str]], str] | None = None,
    ) -> None:
        self.dag = dag
        self.sm: dict[str, Any] = {}
        self.results = {k: list(v) for k, v in (executor_results or {}).items()}
        self.setters = dict(setters or {})
        self.choose = choose
        self.log: list[tuple[str, Any]] = []

    def _invoke(self, text: str) -> dict[str, Any]:
        before = copy.deepcopy(self.sm)
        result = run_engine(self.dag, self.sm, last_user_text=text, choose=self.choose)
        assert self.sm == before, "run_engine mutated its input"
        self.sm = result.sm
        self.log.append(("engine", result.action))
        return result.action

    def start_turn(self, text: str) -> dict[str, Any]:
        self.sm = begin_turn(self.dag, self.sm)
        return self._invoke(text)

    def invoke(self) -> dict[str, Any]:
        return self._invoke("")

    def call(self, tool: str, args: Mapping[str, Any] | None = None, result: Any = None) -> Any:
        args = dict(args or {})
        if tool == "confirm_pending":
            self.sm = confirm_pending(self.sm)
            return {"confirmed": True}
        if tool == "reject_pending":
            self.sm = reject_pending(self.sm)
            return {"rejected": True}
        if result is None:
            if tool in self.dag.executor_tasks:
                result = self.results[tool].pop(0)
            elif tool in self.setters:
                result = self.setters[tool](args)
            else:
                result = echo_setter(args) if tool in self.dag.setter_slots else {"ok": True}
        self.log.append(("tool", (tool, args, result)))
        self.sm = after_tool(self.sm, self.dag, tool, args, result)
        return result

    def follow(self, action: dict[str, Any], limit: int = 10) -> dict[str, Any]:
        """Apply engine function calls (executors, confirm_pending) until the engine stops calling tools."""
        for _ in range(limit):
            call = action.get("function_call")
            if not call or call["name"] not in (*self.dag.executor_tasks, "confirm_pending"):
                return action
            self.call(call["name"], call["args"])
            action = self.invoke()
        raise AssertionError("engine kept calling tools")

    def visible(self, action: Mapping[str, Any]) -> set[str]:
        tools = {*self.dag.setter_slots, *self.dag.executor_tasks, "confirm_pending", "reject_pending"}
        return tools - set(action["hide_tools"])
