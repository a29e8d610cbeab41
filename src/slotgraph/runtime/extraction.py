"""Background extraction: variables declared ``extraction: true`` are filled from the caller's messages by
an extractor tool running beside the conversation.

:class:`Extractions` belongs to a session object. Each turn with caller text starts one extraction
(:meth:`~Extractions.start`: an :mod:`asyncio` task calling the agent's extractor tool with ``message`` and,
when it takes them, ``fields``: variable name → description); the turn does not wait for it. A gated tool that
binds an extracted variable calls :meth:`~Extractions.settle` first: it waits up to ``wait_seconds`` for every
extraction still running (the latest, and any queued behind it — a correction the caller sent meanwhile) and
applies their values in the order they were started. When one is still running at the deadline, or the latest
one failed, the call is refused: an older value is never used in place of what the caller said, and the
running task is kept (its values are applied when it finishes).

Nothing the caller said is dropped: the messages of an extraction that failed, or that had not finished
when the turn was saved (:meth:`~Extractions.unextracted`, persisted with the session), are read again by the
next extraction, together with the new message — also by another session object or process that resumes the
conversation (:meth:`~Extractions.adopt`). Until that extraction succeeds, gates that bind extracted
variables refuse.

A finished extraction applies the values of the eligible variables it returned (``None`` is "not found" and
never overwrites); anything else it returned, and a value of the wrong type, is logged and dropped.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from slotgraph.logic.errors import VariableWriteError
from slotgraph.logic.variables import VariableStore
from slotgraph.runtime.json_values import tool_result_json
from slotgraph.runtime.tools import Tool, ToolContext

__all__ = ["Extractions", "Extractor", "tool_extractor"]

logger = logging.getLogger("slotgraph.runtime")

Extractor = Callable[[str], Awaitable[Any]]
"""Runs the agent's extractor tool on caller text and returns its (JSON) result; raises on failure."""


def tool_extractor(tool: Tool, fields: Mapping[str, str], context: ToolContext) -> Extractor:
    """An extractor calling ``tool`` with ``message`` and (when it takes them) ``fields``."""
    takes = tool.schema.parameters.get("properties") or {}

    async def extract(message: str) -> Any:
        args: dict[str, Any] = {"message": message}
        if "fields" in takes:
            args["fields"] = dict(fields)
        checked, problem = tool.check_args(args)
        if checked is None:
            raise TypeError(f"the extractor {tool.name} cannot take a message: {problem}")
        return tool_result_json(await tool.invoke(checked, context))

    return extract


class Extractions:
    """The background extractions of one session object (see the module docstring)."""

    def __init__(self, eligible: frozenset[str], wait_seconds: float) -> None:
        self.eligible = eligible
        self.wait_seconds = wait_seconds
        self._running: list[tuple[tuple[str, ...], asyncio.Future[Any]]] = []
        self._retry: list[str] = []
        self._fresh = True
        self.failure: str | None = None
        """Why the latest finished extraction failed (None after a success)."""

    def adopt(self, unextracted: Sequence[str]) -> None:
        """Take over the messages a saved turn left unread (only for a session object that has not
        extracted anything itself: its own tasks already cover them)."""
        if self._fresh and unextracted:
            self._retry = list(unextracted)
            self.failure = "an earlier message has not been read yet"
        self._fresh = False

    def start(self, message: str, extractor: Extractor) -> None:
        """Extract from ``message`` — and the messages still unread — in the background."""
        self._fresh = False
        messages = (*self._retry, message) if message else tuple(self._retry)
        if not messages:
            return
        self._retry = []
        self._running.append((messages, asyncio.ensure_future(extractor("\n".join(messages)))))

    def unextracted(self) -> tuple[str, ...]:
        """The messages no successful extraction has read yet (running, failed or lost)."""
        return (*self._retry, *(m for messages, _ in self._running for m in messages))

    def apply_finished(self, store: VariableStore) -> None:
        """Apply the extractions that finished, in the order they were started, up to the first running."""
        while self._running and self._running[0][1].done():
            messages, task = self._running.pop(0)
            problem = None
            if task.cancelled():
                problem = "the extraction was cancelled"
            elif task.exception() is not None:
                error = task.exception()
                problem = f"{type(error).__name__}: {error}"
            else:
                problem = self._apply(store, task.result())
            if problem is not None:
                logger.warning("background extraction failed: %s", problem)
                self.failure = problem
                self._retry.extend(messages)
            else:
                self.failure = None

    def _apply(self, store: VariableStore, values: Any) -> str | None:
        if not isinstance(values, Mapping):
            return f"the extractor returned a {type(values).__name__}, not an object"
        for name, value in values.items():
            if name not in self.eligible:
                logger.info("background extraction returned %r, which is not an extracted variable", name)
                continue
            if value is None:
                continue
            try:
                store.set(name, value, source="extraction")
            except VariableWriteError as err:
                logger.warning("background extraction: %s", err)
        return None

    async def settle(self, store: VariableStore) -> str | None:
        """Wait for the running extractions (bounded) and apply them; why the call must not go on, or
        None."""
        pending = [task for _, task in self._running if not task.done()]
        if pending:
            await asyncio.wait(pending, timeout=self.wait_seconds)
        self.apply_finished(store)
        if self._running:
            return f"the caller's latest details are still being read (over {self.wait_seconds:g} s)"
        if self.failure is not None or self._retry:
            why = self.failure or "an earlier message has not been read yet"
            return f"reading the caller's latest details failed ({why})"
        return None
