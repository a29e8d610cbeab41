"""Running a platform app's python tools unchanged (the ``tools.py`` that ``slotgraph import`` writes).

On the original platform a python tool is a module-level function in its own ``python_code.py``, called with
keyword arguments, numbers arriving as floats (the platform carries JSON numbers as doubles), and with a
global named ``context`` whose ``state`` is the session's variables (``state["sm"]`` is the slot-filling
state). :class:`PlatformFunction` reproduces that calling convention:

* the code file is imported once, under a private module name, from its path;
* a ``context`` global is installed in that module; its ``state`` is bound per call (a
  :class:`contextvars.ContextVar`, so concurrent sessions never see each other's state) to
  ``{**app variable defaults, "sm": <the session state>}``;
* whole numbers in the arguments are passed as floats, booleans stay booleans.

The state a tool sees is a copy: writes to ``context.state`` do not reach the session (Slotgraph routes state
changes through tool results). ``slotgraph import`` reports every app tool whose code touches
``context.state``.
"""

from __future__ import annotations

import contextvars
import importlib.util
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from slotgraph.errors import SlotgraphError
from slotgraph.runtime.state_copy import copy_state_dict

__all__ = ["PlatformFunction", "PlatformToolError", "as_platform_numbers"]

_STATE: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("platform_state", default=None)
_LOCK = threading.Lock()


class PlatformToolError(SlotgraphError, RuntimeError):
    """A platform tool's code cannot be loaded (missing file, syntax error, no such function)."""

    code = "platform_tool_error"


class _Context:
    """The ``context`` global of a platform tool module: ``context.state`` is the current call's state."""

    @property
    def state(self) -> dict[str, Any]:
        state = _STATE.get()
        if state is None:
            state = {}
            _STATE.set(state)
        return state


def as_platform_numbers(value: Any) -> Any:
    """Whole numbers become floats (recursively), as the platform passes them; booleans are kept."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, Mapping):
        return {k: as_platform_numbers(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [as_platform_numbers(v) for v in value]
    return value


def _state_of(context: Any) -> Mapping[str, Any]:
    """The session state from a Slotgraph ``ToolContext`` (its ``state``), a mapping, or nothing."""
    if context is None:
        return {}
    state = getattr(context, "state", context)
    return state if isinstance(state, Mapping) else {}


class PlatformFunction:
    """One platform tool function, loaded from ``code`` (a path) and called the platform's way."""

    def __init__(self, code: str | Path, function: str, variables: Mapping[str, Any] | None = None) -> None:
        self.code = Path(code)
        self.function = function
        self.variables = dict(variables or {})
        self._fn: Callable[..., Any] | None = None

    def _load(self) -> Callable[..., Any]:
        with _LOCK:
            if self._fn is not None:
                return self._fn
            name = f"_slotgraph_platform_{self.code.stem}_{abs(hash(self.code.resolve()))}"
            spec = importlib.util.spec_from_file_location(name, self.code)
            if spec is None or spec.loader is None or not self.code.is_file():
                raise PlatformToolError(f"{self.code}: platform tool code not found")
            module = importlib.util.module_from_spec(spec)
            module.__dict__["context"] = _Context()
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except Exception as err:
                sys.modules.pop(name, None)
                raise PlatformToolError(
                    f"{self.code}: cannot load the tool code ({type(err).__name__}: {err})"
                ) from err
            fn: Callable[..., Any] | None = getattr(module, self.function, None)
            if not callable(fn):
                raise PlatformToolError(f"{self.code}: defines no function {self.function!r}")
            self._fn = fn
            return fn

    def state_for(self, sm: Mapping[str, Any]) -> dict[str, Any]:
        """The platform's ``context.state`` for a session state: app variables, then ``sm``."""
        return {**copy_state_dict(self.variables), "sm": copy_state_dict(sm)}

    def call_with_state(self, state: Mapping[str, Any], **kwargs: Any) -> Any:
        """Call with an explicit ``context.state`` (tool tests give one); returns the function's result."""
        fn = self._load()
        token = _STATE.set(dict(state))
        try:
            return fn(**{k: as_platform_numbers(v) for k, v in kwargs.items()})
        finally:
            _STATE.reset(token)

    def __call__(self, context: Any = None, **kwargs: Any) -> Any:
        """Call from a Slotgraph tool: ``context`` is its ``ToolContext`` (or the session state, or None)."""
        return self.call_with_state(self.state_for(_state_of(context)), **kwargs)
