"""How the logic layer runs tools: the :class:`ToolInvoker` the runtime provides, budgets and the run cache.

The logic layer never calls a tool function itself. ``{{run}}`` statements and ``run_tool`` rule actions go
through a :class:`ToolInvoker` — in the runtime, the same registered-tool path model calls take (unknown
tools and DAG task executors are refused there, results are made JSON, failures become results). This module
only bounds and caches those calls:

* :class:`ProgramBudget` — at most ``max_runs`` runs per prompt build, ``run_timeout`` seconds per run and
  ``total_timeout`` seconds for the whole build (5, 10 s and 15 s by default);
* :class:`RunCache` — successful results keyed on ``(tool, bound arguments)`` for ``ttl`` seconds, so
  rebuilding the prompt for the next model call does not run the same lookup again, while a variable that
  changes an argument is a cache miss, never a stale result.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["ProgramBudget", "RunCache", "ToolInvoker", "ToolRun"]


@dataclass(frozen=True, slots=True)
class ToolRun:
    """The outcome of one tool run: ``ok`` with its ``result``, or not ok with an ``error`` explanation."""

    ok: bool
    result: Any = None
    error: str | None = None


class ToolInvoker(Protocol):
    """Runs a registered tool for the logic layer (``origin`` is ``"prompt"`` or ``"rule"``); never raises."""

    async def __call__(self, tool: str, args: Mapping[str, Any], *, origin: str) -> ToolRun: ...


@dataclass(frozen=True, slots=True)
class ProgramBudget:
    """Bounds of one prompt build's ``{{run}}`` statements."""

    max_runs: int = 5
    run_timeout: float = 10.0
    total_timeout: float = 15.0


def _key(tool: str, args: Mapping[str, Any]) -> str:
    return tool + "\x00" + json.dumps(args, sort_keys=True, default=repr, ensure_ascii=False)


class RunCache:
    """Successful run results by ``(tool, bound arguments)``, for ``ttl`` seconds, at most ``max_entries``."""

    def __init__(
        self, ttl: float = 30.0, *, clock: Callable[[], float] = time.monotonic, max_entries: int = 256
    ) -> None:
        self.ttl = ttl
        self.clock = clock
        self.max_entries = max_entries
        self._entries: dict[str, tuple[float, Any]] = {}

    def get(self, tool: str, args: Mapping[str, Any]) -> tuple[bool, Any]:
        """``(True, result)`` for a fresh entry, else ``(False, None)``."""
        key = _key(tool, args)
        entry = self._entries.get(key)
        if entry is None:
            return False, None
        stored_at, result = entry
        if self.clock() - stored_at > self.ttl:
            del self._entries[key]
            return False, None
        return True, result

    def put(self, tool: str, args: Mapping[str, Any], result: Any) -> None:
        now = self.clock()
        self._entries = {k: v for k, v in self._entries.items() if now - v[0] <= self.ttl}
        if len(self._entries) >= self.max_entries:
            self._entries.pop(next(iter(self._entries)))
        self._entries[_key(tool, args)] = (now, result)

    def __len__(self) -> int:
        return len(self._entries)
