"""Rendering an instruction template against live state: ``#when`` sections, tags and prompt programs.

:func:`render_template` walks the parsed template top to bottom, so a later section sees the writes of
every statement above it:

* ``#when`` takes the first arm whose condition is true (``:else`` when none is); statements inside an arm
  run only when that arm is taken. A condition that fails to evaluate counts as false — the section renders
  its fallback — and adds a warning; it never breaks the prompt.
* ``{{name}}``: a known name (a declared variable, a set one, a slot-filling fact or session metadata) renders
  its value — ``None`` as empty text, ``False`` and ``0`` as themselves; an unknown name stays literal. A
  rendered value is fenced (:mod:`slotgraph.fencing`): it cannot open or close a framework tag.
* ``{{= expr}}`` renders the value (``None`` as empty); ``{{set v = expr}}`` writes ``v``; ``{{run ...}}``
  runs the tool through the :class:`~slotgraph.logic.tooling.ToolInvoker` within the
  :class:`~slotgraph.logic.tooling.ProgramBudget`, reusing a fresh :class:`~slotgraph.logic.tooling.RunCache`
  entry, and captures result paths into variables (a path missing from the result leaves its variable as
  it was). Statement text is consumed: it never reaches the model.

Everything fails open, prose first: a failing statement is a warning (logged on ``slotgraph.logic`` and
returned in :attr:`Rendered.warnings`) and the build goes on. Without an invoker (``invoker=None``), ``run``
statements are skipped — the side-effect-free mode used for previews and validation.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from slotgraph.expr import ExpressionError, extract_output_path
from slotgraph.fencing import fence_text
from slotgraph.logic.errors import VariableWriteError
from slotgraph.logic.templates import (
    Interpolation,
    Node,
    RunStatement,
    SetStatement,
    Template,
    Text,
    ValueStatement,
    When,
)
from slotgraph.logic.tooling import ProgramBudget, RunCache, ToolInvoker
from slotgraph.logic.variables import VariableStore

__all__ = ["Rendered", "format_value", "render_template"]

logger = logging.getLogger("slotgraph.logic")


def format_value(value: Any) -> str:
    """A value as prompt text: ``None`` empty, strings verbatim, lists and mappings as JSON, else ``str``.

    The text is fenced (:func:`slotgraph.fencing.fence_text`): a value may hold a tool's result or what a
    person said, and must not open or close one of the framework's instruction tags.
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return fence_text(value)
    if isinstance(value, list | tuple | dict):
        try:
            return fence_text(json.dumps(value, ensure_ascii=False, default=str))
        except (TypeError, ValueError):
            return fence_text(str(value))
    return fence_text(str(value))


@dataclass(slots=True)
class Rendered:
    """The rendered text, the warnings of the pass, and how many tools ran (cache hits not counted)."""

    text: str
    warnings: list[str] = field(default_factory=list)
    runs: int = 0
    cache_hits: int = 0


@dataclass(slots=True)
class _Pass:
    store: VariableStore
    invoker: ToolInvoker | None
    budget: ProgramBudget
    cache: RunCache | None
    clock: Callable[[], float]
    label: str
    started: float
    out: Rendered
    parts: list[str] = field(default_factory=list)

    def warn(self, line: int, message: str) -> None:
        text = f"{self.label}:{line}: {message}" if line else f"{self.label}: {message}"
        logger.warning("%s", text)
        self.out.warnings.append(text)


async def render_template(
    template: Template,
    store: VariableStore,
    *,
    invoker: ToolInvoker | None = None,
    budget: ProgramBudget | None = None,
    cache: RunCache | None = None,
    clock: Callable[[], float] = time.monotonic,
    label: str = "instruction",
) -> Rendered:
    """Render ``template`` against ``store`` (see the module docstring); never raises."""
    state = _Pass(store, invoker, budget or ProgramBudget(), cache, clock, label, clock(), Rendered(""))
    await _render(template.nodes, state)
    state.out.text = "".join(state.parts)
    return state.out


async def _render(nodes: tuple[Node, ...], state: _Pass) -> None:
    for node in nodes:
        if isinstance(node, Text):
            state.parts.append(node.text)
        elif isinstance(node, Interpolation):
            store = state.store
            state.parts.append(format_value(store.get(node.name)) if store.has(node.name) else node.raw)
        elif isinstance(node, ValueStatement):
            try:
                state.parts.append(format_value(node.expression.evaluate(state.store.context())))
            except ExpressionError as err:
                state.warn(node.line, f"{{{{= {node.expression.source}}}}} failed: {err.one_line()}")
        elif isinstance(node, SetStatement):
            _set(node, state)
        elif isinstance(node, RunStatement):
            await _run(node, state)
        else:
            await _when(node, state)


async def _when(node: When, state: _Pass) -> None:
    for branch in node.branches:
        if branch.is_else:
            await _render(branch.body, state)
            return
        if branch.condition is None:
            continue  # a condition that did not compile is never taken (validation reports it)
        try:
            taken = bool(branch.condition.evaluate(state.store.context()))
        except ExpressionError as err:
            state.warn(
                branch.line,
                f"#when {branch.condition.source!r} failed, rendering the fallback: {err.one_line()}",
            )
            taken = False
        except Exception as err:  # a value whose truth value raises
            state.warn(branch.line, f"#when {branch.condition.source!r} has no truth value ({err!r:.80})")
            taken = False
        if taken:
            await _render(branch.body, state)
            return


def _set(node: SetStatement, state: _Pass) -> None:
    try:
        value = node.expression.evaluate(state.store.context())
    except ExpressionError as err:
        state.warn(node.line, f"{{{{set {node.target}}}}} failed: {err.one_line()}")
        return
    try:
        state.store.set(node.target, value, source=f"{state.label}:set")
    except VariableWriteError as err:
        state.warn(node.line, f"{{{{set {node.target}}}}} refused: {err}")


async def _run(node: RunStatement, state: _Pass) -> None:
    what = f"{{{{run {node.tool}}}}}"
    if state.invoker is None:
        return
    args: dict[str, Any] = {}
    for name, expression in node.args:
        try:
            args[name] = expression.evaluate(state.store.context())
        except ExpressionError as err:
            state.warn(node.line, f"{what} not run: argument {name}: {err.one_line()}")
            return
    hit, result = state.cache.get(node.tool, args) if state.cache is not None else (False, None)
    if hit:
        state.out.cache_hits += 1
    else:
        if state.out.runs >= state.budget.max_runs:
            state.warn(
                node.line, f"{what} not run: the budget of {state.budget.max_runs} runs per build is spent"
            )
            return
        remaining = state.budget.total_timeout - (state.clock() - state.started)
        if remaining <= 0:
            state.warn(node.line, f"{what} not run: the build's {state.budget.total_timeout:g} s are spent")
            return
        timeout = min(state.budget.run_timeout, remaining)
        state.out.runs += 1
        try:
            outcome = await asyncio.wait_for(state.invoker(node.tool, args, origin="prompt"), timeout)
        except TimeoutError:
            state.warn(node.line, f"{what} timed out after {timeout:g} s; the prompt is built without it")
            return
        if not outcome.ok:
            state.warn(node.line, f"{what} failed: {outcome.error or 'no reason given'}")
            return
        result = outcome.result
        if state.cache is not None:
            state.cache.put(node.tool, args, result)
    for variable, path in node.captures:
        value = extract_output_path(result, path)
        if value is None:
            continue  # a missing path leaves the variable as it was
        try:
            state.store.set(variable, value, source=f"{state.label}:run {node.tool}")
        except VariableWriteError as err:
            state.warn(node.line, f"{what} capture {variable} refused: {err}")
