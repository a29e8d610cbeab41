"""Checking expectations against what a turn (or the whole conversation) did.

Each check returns :class:`~slotgraph.evals.results.UnmetExpectation` values naming the expectation's place
in the file (``turns[2].expect.tool_calls[0]``) with the expected and the actual value side by side.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from slotgraph.evals.format import ConversationExpect, TextExpect, ToolCallExpect, TurnExpect
from slotgraph.evals.matching import MISSING, find_mismatch, lookup_path, render
from slotgraph.evals.results import UnmetExpectation
from slotgraph.logic import GuardEvent, RuleEvent
from slotgraph.runtime import (
    AgentTransferEvent,
    EndSessionEvent,
    Event,
    PayloadEvent,
    RefusalEvent,
    StateSnapshotEvent,
    ToolCallEvent,
    ToolResultEvent,
    TransferEvent,
    TurnResult,
)
from slotgraph.runtime.instructions import SENTINEL

__all__ = ["ConversationFacts", "check_conversation", "check_turn"]


@dataclass(frozen=True, slots=True)
class ConversationFacts:
    """What the whole conversation did."""

    events: tuple[Event, ...]
    state: Mapping[str, Any]
    model_calls: int
    ended: bool
    task_tools: Mapping[str, str]
    """DAG task name → executor tool name."""


def _calls(events: Iterable[Event]) -> list[ToolCallEvent]:
    """The tool calls that ran: a refused call (a RefusalEvent with its id) never happened."""
    events = tuple(events)
    refused = {e.call_id for e in events if isinstance(e, RefusalEvent)}
    return [e for e in events if isinstance(e, ToolCallEvent) and e.call_id not in refused]


def _results(events: Iterable[Event]) -> dict[str, ToolResultEvent]:
    return {e.call_id: e for e in events if isinstance(e, ToolResultEvent)}


def _call_problem(
    want: ToolCallExpect, got: ToolCallEvent, results: Mapping[str, ToolResultEvent], lenient: bool = False
) -> str | None:
    if got.name != want.name:
        return f"name {got.name}"
    if want.origin is not None and got.origin != want.origin:
        return f"origin {got.origin}"
    if want.args is not None:
        problem = find_mismatch(want.args, dict(got.args), empty_matches_any=lenient)
        if problem is not None:
            return f"args: {problem}"
    if want.result is not None:
        result = results.get(got.call_id)
        problem = find_mismatch(want.result, result.result if result is not None else MISSING)
        if problem is not None:
            return f"result: {problem}"
    return None


def _show_call(call: ToolCallEvent) -> str:
    return f"{call.name}({render(dict(call.args))}) [{call.origin}]"


def _show_want(want: ToolCallExpect) -> str:
    parts = [want.name + (f"({render(want.args)} ⊆)" if want.args is not None else "(…)")]
    if want.origin:
        parts.append(f"[{want.origin}]")
    if want.result is not None:
        parts.append(f"→ {render(want.result)} ⊆")
    return " ".join(parts)


def _check_tool_calls(expect: TurnExpect, result: TurnResult, turn: int, base: str) -> list[UnmetExpectation]:
    failures: list[UnmetExpectation] = []
    calls = _calls(result.events)
    results = _results(result.events)
    actual = "; ".join(_show_call(c) for c in calls) or "no tool calls"
    lenient = expect.platform_matching
    used: set[int] = set()
    cursor = 0
    for index, want in enumerate(expect.tool_calls):
        start = cursor if expect.ordered else 0
        match = next(
            (
                i
                for i in range(start, len(calls))
                if i not in used and _call_problem(want, calls[i], results, lenient) is None
            ),
            None,
        )
        if match is None:
            same_name = [c for c in calls if c.name == want.name]
            detail = actual
            if same_name:
                why = _call_problem(want, same_name[0], results, lenient)
                detail = (
                    f"{actual} (out of order)"
                    if why is None
                    else f"{actual} (closest: {_show_call(same_name[0])}: {why})"
                )
            failures.append(UnmetExpectation(turn, f"{base}.tool_calls[{index}]", _show_want(want), detail))
            continue
        used.add(match)
        cursor = match + 1
    if expect.only and not failures and len(used) != len(calls):
        extra = [_show_call(c) for i, c in enumerate(calls) if i not in used]
        failures.append(UnmetExpectation(turn, f"{base}.only", "no other tool calls", "; ".join(extra)))
    refused = [e.name for e in result.events if isinstance(e, RefusalEvent)]
    for index, name in enumerate(expect.refused):
        if name not in refused:
            failures.append(
                UnmetExpectation(turn, f"{base}.refused[{index}]", f"{name} refused", f"refused: {refused}")
            )
    for index, name in enumerate(expect.not_called):
        if any(c.name == name for c in calls):
            failures.append(
                UnmetExpectation(turn, f"{base}.not_called[{index}]", f"{name} not called", actual)
            )
    return failures


def _check_state(
    wanted: Mapping[str, Any],
    states: Sequence[Mapping[str, Any]],
    turn: int | None,
    base: str,
    lenient: bool = False,
) -> list[UnmetExpectation]:
    failures: list[UnmetExpectation] = []
    for path, want in wanted.items():
        problems = []
        for state in states:
            got = lookup_path(state, path)
            problem = "missing" if got is MISSING else find_mismatch(want, got, empty_matches_any=lenient)
            if problem is None:
                break
            problems.append(render(got))
        else:
            shown = (
                problems[-1] if len(problems) == 1 else f"{problems[-1]} (at end; {len(states)} states seen)"
            )
            failures.append(UnmetExpectation(turn, f"{base}.{path}", render(want), shown))
    return failures


def _check_text(want: str | TextExpect, text: str, turn: int, base: str) -> list[UnmetExpectation]:
    spec = TextExpect(contains=[want]) if isinstance(want, str) else want
    failures: list[UnmetExpectation] = []
    shown = repr(text)
    lowered = text.casefold()
    for i, part in enumerate(spec.contains):
        if part.casefold() not in lowered:
            failures.append(UnmetExpectation(turn, f"{base}.contains[{i}]", f"contains {part!r}", shown))
    for i, part in enumerate(spec.not_contains):
        if part.casefold() in lowered:
            failures.append(
                UnmetExpectation(turn, f"{base}.not_contains[{i}]", f"does not contain {part!r}", shown)
            )
    if spec.regex is not None and re.search(spec.regex, text) is None:
        failures.append(UnmetExpectation(turn, f"{base}.regex", f"matches /{spec.regex}/", shown))
    if spec.equals is not None and text != spec.equals:
        failures.append(UnmetExpectation(turn, f"{base}.equals", repr(spec.equals), shown))
    return failures


def _check_visibility(expect: TurnExpect, result: TurnResult, turn: int, base: str) -> list[UnmetExpectation]:
    failures: list[UnmetExpectation] = []
    if not (expect.visible_tools or expect.hidden_tools):
        return failures
    visible = [step.visible_tools for step in result.model_steps]
    if not visible:
        failures.append(
            UnmetExpectation(
                turn, f"{base}.visible_tools", "at least one model call", "the model was not called"
            )
        )
        return failures
    first = visible[0]
    for i, name in enumerate(expect.visible_tools):
        if name not in first:
            failures.append(
                UnmetExpectation(
                    turn,
                    f"{base}.visible_tools[{i}]",
                    f"{name} visible in the turn's first model call",
                    f"visible: {sorted(first)}",
                )
            )
    for i, name in enumerate(expect.hidden_tools):
        for n, tools in enumerate(visible, 1):
            if name in tools:
                failures.append(
                    UnmetExpectation(
                        turn,
                        f"{base}.hidden_tools[{i}]",
                        f"{name} hidden in model call {n}",
                        f"visible: {sorted(tools)}",
                    )
                )
                break
    return failures


def _handed_over(events: Iterable[Event]) -> bool:
    return any(
        isinstance(e, TransferEvent) or (isinstance(e, EndSessionEvent) and e.escalated) for e in events
    )


def _transfer_requests(events: Iterable[Event]) -> list[str]:
    """The agents tool results of the turn asked to transfer to (``target_agent``, the platform's routing
    tools)."""
    asked: list[str] = []
    for event in events:
        if isinstance(event, ToolResultEvent) and isinstance(event.result, Mapping):
            target = event.result.get("target_agent")
            if isinstance(target, str) and not event.failed:
                asked.append(target)
    return asked


def _flag(want: bool | None, got: bool, turn: int | None, where: str, what: str) -> list[UnmetExpectation]:
    if want is None or want == got:
        return []
    return [UnmetExpectation(turn, where, f"{what}: {want}", f"{what}: {got}")]


def _check_rules(
    wanted: Sequence[str], events: Iterable[Event], turn: int, base: str
) -> list[UnmetExpectation]:
    fired = [e.rule for e in events if isinstance(e, RuleEvent) and e.ok]
    missing = [name for name in wanted if name not in fired]
    if not missing:
        return []
    return [UnmetExpectation(turn, base, f"rules {list(wanted)} fired", f"fired: {fired or 'none'}")]


def _check_guards(
    wanted: Sequence[str], events: Iterable[Event], turn: int, base: str
) -> list[UnmetExpectation]:
    acted = [e.guard for e in events if isinstance(e, GuardEvent) and e.action != "check_failed"]
    missing = [name for name in wanted if name not in acted]
    if not missing:
        return []
    return [UnmetExpectation(turn, base, f"guards {list(wanted)} acted", f"acted: {acted or 'none'}")]


def check_turn(expect: TurnExpect, result: TurnResult, turn: int, base: str) -> list[UnmetExpectation]:
    """Every unmet expectation of one turn; ``base`` is the expectation's place (``turns[2].expect``)."""
    failures = _check_tool_calls(expect, result, turn, base)
    lenient = expect.platform_matching
    failures += _check_state(expect.state, [result.state], turn, f"{base}.state", lenient)
    if expect.state_during:
        snapshots = [e.state for e in result.events if isinstance(e, StateSnapshotEvent)]
        failures += _check_state(
            expect.state_during, [*snapshots, result.state], turn, f"{base}.state_during", lenient
        )
    for i, path in enumerate(expect.absent):
        got = lookup_path(result.state, path)
        if got is not MISSING:
            failures.append(UnmetExpectation(turn, f"{base}.absent[{i}]", f"{path} absent", render(got)))
    if expect.status is not None:
        failures += _check_state({"status": expect.status}, [result.state], turn, base)
    if expect.text is not None:
        failures += _check_text(expect.text, result.text, turn, f"{base}.text")
    failures += _check_state(expect.variables, [result.variables], turn, f"{base}.variables")
    failures += _check_state(expect.topic_state, [result.topic_states], turn, f"{base}.topic_state")
    failures += _check_rules(expect.rules, result.events, turn, f"{base}.rules")
    failures += _check_guards(expect.guards, result.events, turn, f"{base}.guards")
    if expect.instruction is not None:
        called = result.model_steps
        last = called[-1].instruction.split(SENTINEL)[0] if called else ""
        failures += _check_text(expect.instruction, last, turn, f"{base}.instruction")
    failures += _flag(expect.preempted, result.model_calls == 0, turn, f"{base}.preempted", "preempted")
    if expect.model_calls is not None and expect.model_calls != result.model_calls:
        failures.append(
            UnmetExpectation(turn, f"{base}.model_calls", str(expect.model_calls), str(result.model_calls))
        )
    failures += _check_visibility(expect, result, turn, base)
    failures += _flag(expect.ended, result.ended, turn, f"{base}.ended", "ended")
    failures += _flag(expect.transfer, _handed_over(result.events), turn, f"{base}.transfer", "handed over")
    if expect.transfer_to is not None:
        targets = [
            str(e.details.get("agent")) for e in result.events if isinstance(e, TransferEvent) and e.details
        ] + [e.to_agent for e in result.events if isinstance(e, AgentTransferEvent)]
        if expect.transfer_to not in targets:
            failures.append(
                UnmetExpectation(
                    turn,
                    f"{base}.transfer_to",
                    f"handed over to {expect.transfer_to}",
                    f"handed over to: {targets}" if targets else "no hand-over to an agent",
                )
            )
    if expect.agent is not None and expect.agent != result.agent:
        failures.append(
            UnmetExpectation(
                turn, f"{base}.agent", f"with agent {expect.agent}", f"with agent {result.agent or '?'}"
            )
        )
    if expect.transfer_requested is not None:
        asked = _transfer_requests(result.events)
        if expect.transfer_requested not in asked:
            failures.append(
                UnmetExpectation(
                    turn,
                    f"{base}.transfer_requested",
                    f"a tool asked for a transfer to {expect.transfer_requested}",
                    f"transfers asked for: {asked}" if asked else "no tool asked for a transfer",
                )
            )
    if expect.refusals is not None and expect.refusals != result.refusals:
        failures.append(
            UnmetExpectation(turn, f"{base}.refusals", str(expect.refusals), str(result.refusals))
        )
    parts = [dict(e.part) for e in result.events if isinstance(e, PayloadEvent)]
    for i, want in enumerate(expect.payloads):
        if not any(find_mismatch(want, part) is None for part in parts):
            failures.append(
                UnmetExpectation(turn, f"{base}.payloads[{i}]", render(want) + " ⊆", render(parts))
            )
    return failures


def check_conversation(
    expect: ConversationExpect, facts: ConversationFacts, base: str = "expect"
) -> list[UnmetExpectation]:
    """Every unmet whole-conversation expectation."""
    failures: list[UnmetExpectation] = []
    if expect.status is not None:
        failures += _check_state({"status": expect.status}, [facts.state], None, base)
    failures += _check_state(expect.state, [facts.state], None, f"{base}.state")
    fired = [c for c in _calls(facts.events) if c.origin == "engine"]
    shown = "; ".join(_show_call(c) for c in fired) or "no engine tool calls"
    for i, task in enumerate(expect.tasks):
        tool = task.tool or facts.task_tools.get(task.task or "", task.task or "")
        label = task.task or task.tool or ""
        hits = [c for c in fired if c.name == tool]
        if not any(task.args is None or find_mismatch(task.args, dict(c.args)) is None for c in hits):
            want = label + (f"({render(task.args)} ⊆)" if task.args is not None else "")
            failures.append(UnmetExpectation(None, f"{base}.tasks[{i}]", f"fired {want}", shown))
    every = _calls(facts.events)
    results = _results(facts.events)
    for i, call in enumerate(expect.tool_calls):
        if not any(_call_problem(call, got, results, lenient=True) is None for got in every):
            shown_all = "; ".join(_show_call(c) for c in every) or "no tool calls"
            failures.append(UnmetExpectation(None, f"{base}.tool_calls[{i}]", _show_want(call), shown_all))
    for i, name in enumerate(expect.not_fired):
        tool = facts.task_tools.get(name, name)
        if any(c.name == tool for c in fired):
            failures.append(UnmetExpectation(None, f"{base}.not_fired[{i}]", f"{name} never fired", shown))
    if expect.max_model_calls is not None and facts.model_calls > expect.max_model_calls:
        failures.append(
            UnmetExpectation(
                None, f"{base}.max_model_calls", f"≤ {expect.max_model_calls}", str(facts.model_calls)
            )
        )
    failures += _flag(expect.ended, facts.ended, None, f"{base}.ended", "ended")
    return failures
