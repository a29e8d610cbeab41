"""A stand-in engine that plays scripted actions, for testing the loop's mechanics in isolation."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from slotgraph.config import CompiledDag
from slotgraph.engine import EngineAction, FunctionCall, Reason
from slotgraph.runtime import EngineResult


def action_of(spec: Mapping[str, Any]) -> EngineAction:
    """A typed action from the spec's keys (``hide_tools``, ``preempt``, ``message``, ...)."""
    call = spec.get("function_call")
    response = spec.get("response")
    return EngineAction(
        reason=Reason(spec.get("reason", "next_question")),
        phase=spec.get("phase", "collection"),
        hidden_tools=tuple(spec.get("hide_tools") or ()),
        message=spec.get("message"),
        function_call=FunctionCall(call["name"], dict(call.get("args") or {})) if call else None,
        preempt=bool(spec.get("preempt")),
        force_preempt=bool(spec.get("force_preempt")),
        response=tuple(response) if response is not None else None,
        stash=tuple(spec.get("stash") or ()),
        si_suffix=str(spec.get("si_suffix") or ""),
        inline_confirmed=bool(spec.get("inline_confirmed")),
        steer_back_directive=spec.get("steer_back_directive"),
        recheck_after_model=bool(spec.get("recheck_after_model")),
    )


class FakeEngine:
    """Returns ``actions[i]`` on the i-th invocation (then ``{}``); records every call it gets."""

    def __init__(
        self, actions: Sequence[Mapping[str, Any]] = (), *, sm_updates: Sequence[Mapping[str, Any]] = ()
    ):
        self.actions = list(actions)
        self.sm_updates = list(sm_updates)
        self.invocations: list[dict[str, Any]] = []
        self.routed: list[tuple[str, dict[str, Any], Any]] = []
        self.begun = 0

    def begin_turn(self, dag: CompiledDag, sm: Mapping[str, Any]) -> dict[str, Any]:
        self.begun += 1
        out = dict(sm)
        out.setdefault("status", "in_progress")
        out.setdefault("filled", {})
        out.setdefault("pending", {})
        return out

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
    ) -> EngineResult:
        index = len(self.invocations)
        self.invocations.append({"last_user_text": last_user_text, "sm": dict(sm)})
        out = dict(sm)
        if index < len(self.sm_updates):
            out.update(self.sm_updates[index])
        action = self.actions[index] if index < len(self.actions) else {}
        return EngineResult(out, action_of(action))

    def after_tool(
        self, dag: CompiledDag, sm: Mapping[str, Any], tool_name: str, args: Mapping[str, Any], result: Any
    ) -> dict[str, Any]:
        self.routed.append((tool_name, dict(args), result))
        out = dict(sm)
        out["routed"] = [*out.get("routed", []), tool_name]
        return out

    def confirm_pending(
        self, dag: CompiledDag, sm: Mapping[str, Any], *, slots: Collection[str] | None = None
    ) -> dict[str, Any]:
        out = dict(sm)
        out["filled"] = {**out.get("filled", {}), **out.get("pending", {})}
        out["pending"] = {}
        return out

    def reject_pending(
        self, dag: CompiledDag, sm: Mapping[str, Any], *, slots: Collection[str] | None = None
    ) -> dict[str, Any]:
        return dict(sm)
