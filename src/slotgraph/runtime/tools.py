"""Tools: plain Python functions the model (or the engine) can call.

A :class:`Tool` wraps a function with the :class:`~slotgraph.models.protocol.ToolSchema` derived from its
signature and docstring (:mod:`slotgraph.runtime.tool_schema`) and an argument validator. A synchronous
function runs in a worker thread (:mod:`slotgraph.runtime.tool_threads`), so a slow or blocking tool never
stalls the event loop — in the server, the other sessions of the worker and the store's lock renewal go on
meanwhile; an ``async def`` tool is awaited on the loop (so it must not block). Arguments coming
from a model are checked against the schema before the function runs (:meth:`Tool.check_args`): wrong types,
unknown or missing arguments become a refusal, never an exception. Parameters the runtime injects —
``context`` (a :class:`ToolContext`), ``today``, ``now`` — are filled from the session clock;
``idempotency_key`` gets the key of a task executor's attempt (:mod:`slotgraph.runtime.executions`).

:class:`ToolRegistry` holds an agent's tools plus the built-ins (:mod:`slotgraph.runtime.builtin_tools`);
:func:`load_tools_module` imports an agent's ``tools.py`` from its file path.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime
import functools
import hashlib
import importlib.util
import inspect
import sys
import types
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from slotgraph.models.protocol import ToolSchema
from slotgraph.names import TOOLS_MODULE_PREFIX
from slotgraph.runtime.errors import AgentLoadError, ToolDefinitionError
from slotgraph.runtime.tool_schema import parse_docstring, parse_signature
from slotgraph.runtime.tool_threads import ToolThreads

Abandoned = asyncio.Future[Any] | concurrent.futures.Future[Any]
"""What runs an abandoned call (its thread's future, or the task of an ``async def`` function): done once the
call returned."""

__all__ = [
    "Tool",
    "ToolContext",
    "ToolKind",
    "ToolRegistry",
    "load_tools_module",
    "tool_from_function",
]

ToolKind = Literal["function", "readback"]


"""``function``: a Python function is called. ``readback``: ``confirm_pending``/``reject_pending``, which the
runtime routes to the engine's functions instead of calling anything."""


@dataclass(frozen=True, slots=True)
class ToolContext:
    """What a tool may know of the session: its clock, a read-only copy of the state, the channel, and —
    for a task executor's call — the attempt's idempotency key (:mod:`slotgraph.runtime.executions`)."""

    now: datetime.datetime
    today: datetime.date
    state: Mapping[str, Any]
    channel: str | None
    session_id: str
    idempotency_key: str | None = None


@dataclass(frozen=True, slots=True)
class Tool:
    """A callable tool with its schema."""

    name: str
    fn: Callable[..., Any] | None
    schema: ToolSchema
    injected: Mapping[str, str] = field(default_factory=dict)
    validator: type[BaseModel] | None = None
    kind: ToolKind = "function"
    threads: ToolThreads = field(init=False, repr=False, compare=False)
    """The worker threads the function runs on when it is synchronous (:mod:`slotgraph.runtime.tool_threads`;
    ``limits.tool_threads`` sets their number before the first call)."""
    abandoned: dict[str, Abandoned] = field(init=False, repr=False, compare=False)
    """Executor attempts of this tool whose caller stopped waiting at their timeout, by idempotency key:
    they may still be running (:mod:`slotgraph.runtime.executions`)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "threads", ToolThreads(self.name))
        object.__setattr__(self, "abandoned", {})

    @property
    def takes_idempotency_key(self) -> bool:
        """The function declares ``idempotency_key``: it promises to perform one key's effect once."""
        return "idempotency_key" in self.injected.values()

    @property
    def status_hook(self) -> Callable[[str], Any] | None:
        """The function's ``idempotency_status`` attribute: asked with a key whose outcome is unknown, it
        returns the recorded result, or None when that key never took effect."""
        hook = getattr(self.fn, "idempotency_status", None)
        return hook if callable(hook) else None

    async def ask_status(self, key: str) -> Any:
        """The status hook's answer for ``key`` (run like the tool: sync hooks in a worker thread)."""
        hook = self.status_hook
        if hook is None:
            return None
        if inspect.iscoroutinefunction(hook):
            found = await hook(key)
        else:
            found = await self.threads.run(functools.partial(hook, key))
        if inspect.isawaitable(found):
            found = await found
        return found

    def check_args(self, args: Mapping[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
        """Validate model-supplied arguments: ``(validated, None)`` or ``(None, what is wrong)``."""
        if not isinstance(args, Mapping):
            return None, f"arguments must be an object, got {type(args).__name__}"
        if self.validator is None:
            if args:
                return None, f"{self.name} takes no arguments, got {sorted(args)}"
            return {}, None
        try:
            parsed = self.validator.model_validate(dict(args))
        except ValidationError as err:
            problems = []
            for item in err.errors():
                where = ".".join(str(p) for p in item["loc"]) or "(arguments)"
                problems.append(f"{where}: {item['msg']}")
            return None, "; ".join(problems)
        return {name: getattr(parsed, name) for name in parsed.model_fields_set}, None

    def _kwargs(self, args: Mapping[str, Any], context: ToolContext | None) -> dict[str, Any]:
        if self.fn is None:
            raise RuntimeError(f"tool {self.name!r} is routed by the runtime and has no function")
        kwargs = dict(args)
        if not self.injected:
            return kwargs
        if context is None:
            raise ValueError(
                f"tool {self.name!r} takes {sorted(self.injected)} from the session: pass its context"
            )
        for param, what in self.injected.items():
            kwargs[param] = (
                context.today
                if what == "today"
                else context.now
                if what == "now"
                else context.idempotency_key
                if what == "idempotency_key"
                else context
            )
        return kwargs

    @property
    def needs_context(self) -> bool:
        """Whether :meth:`invoke` reads its ``context``: a parameter injected from it, or a subclass's own
        :meth:`invoke`."""
        return bool(self.injected) or type(self).invoke is not Tool.invoke

    async def invoke(self, args: Mapping[str, Any], context: ToolContext | None = None) -> Any:
        """Call the function with validated ``args`` plus the injected context values (``context`` may be
        left out for a tool that injects none: :attr:`needs_context`)."""
        kwargs = self._kwargs(args, context)
        assert self.fn is not None
        if inspect.iscoroutinefunction(self.fn):
            result = await self.fn(**kwargs)
        else:
            result = await self.threads.run(functools.partial(self.fn, **kwargs))
        if inspect.isawaitable(result):
            result = await result
        return result


def tool_from_function(fn: Callable[..., Any], *, name: str | None = None) -> Tool:
    """Build a :class:`Tool` from a function (its name, docstring and type hints)."""
    tool_name = name or fn.__name__
    docs = parse_docstring(inspect.getdoc(fn))
    signature = parse_signature(fn, docs)
    fields: dict[str, Any] = {}
    for param, annotation in signature.annotations.items():
        default = signature.defaults.get(param, ...)
        fields[param] = (annotation, default)
    try:
        validator = create_model(f"{tool_name}_args", __config__=ConfigDict(extra="forbid"), **fields)
    except Exception as err:  # pydantic refuses an annotation it cannot validate
        raise ToolDefinitionError(f"tool {tool_name!r}: its parameters cannot be validated ({err})") from None
    schema = ToolSchema(tool_name, docs.description, signature.parameters)
    return Tool(tool_name, fn, schema, signature.injected, validator)


class _ReadbackArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    slots: list[str] | None = None


def readback_tool(name: str, description: str, slots_description: str) -> Tool:
    """A tool the runtime routes to the engine (``confirm_pending``/``reject_pending``). Its one optional
    parameter, ``slots``, names the values it applies to (partial readback); without it, all of them."""
    parameters = {
        "type": "object",
        "properties": {
            "slots": {"type": "array", "items": {"type": "string"}, "description": slots_description},
        },
        "additionalProperties": False,
    }
    return Tool(
        name, None, ToolSchema(name, description, parameters), validator=_ReadbackArgs, kind="readback"
    )


class ToolRegistry:
    """An agent's tools by name. Later registrations override earlier ones (an agent overrides a built-in)."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._names: tuple[str, ...] | None = None
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        self._tools[tool.name] = tool
        self._names = None

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    @property
    def names(self) -> tuple[str, ...]:
        """The tools' names in registration order (kept until the next :meth:`add`: every step reads it)."""
        if self._names is None:
            self._names = tuple(self._tools)
        return self._names

    def schemas(self, visible: Iterable[str]) -> tuple[ToolSchema, ...]:
        """The schemas of the named tools, in registration order."""
        wanted = set(visible)
        return tuple(tool.schema for tool in self._tools.values() if tool.name in wanted)


def module_functions(
    module: types.ModuleType, names: Iterable[str] | None = None
) -> list[Callable[..., Any]]:
    """The functions of ``module`` to expose as tools.

    ``names`` (the agent config's ``tools`` list) selects them explicitly; otherwise ``__all__`` if the module
    defines it; otherwise every public function defined in the module itself (not imported into it).
    """
    if names is not None:
        selected = list(names)
    elif hasattr(module, "__all__"):
        selected = list(module.__all__)
    else:
        selected = [
            n
            for n, obj in vars(module).items()
            if not n.startswith("_") and inspect.isfunction(obj) and obj.__module__ == module.__name__
        ]
    functions = []
    for n in selected:
        obj = getattr(module, n, None)
        if not callable(obj):
            raise AgentLoadError(
                f"{getattr(module, '__file__', module.__name__)}: tool {n!r} is not a function in the tools "
                "module — fix: define it there or remove it from the agent's `tools` list"
            )
        functions.append(obj)
    return functions


def load_tools_module(path: str | Path) -> types.ModuleType:
    """Import an agent's tools module from its file path (a fresh module per file content)."""
    file = Path(path)
    if not file.is_file():
        raise AgentLoadError(f"{file}: tools module not found — fix: check the `tools` path of the agent")
    digest = hashlib.sha256(file.read_bytes()).hexdigest()[:12]
    module_name = f"{TOOLS_MODULE_PREFIX}{file.stem}_{digest}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        raise AgentLoadError(f"{file}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as err:
        del sys.modules[module_name]
        raise AgentLoadError(
            f"{file}: importing the tools module failed: {type(err).__name__}: {err} — fix the module (run "
            f"`python {file}` to see the full traceback)"
        ) from err
    return module
