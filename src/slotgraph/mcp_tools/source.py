"""MCP servers as tool sources: one connection per server on a private event-loop thread.

Why a thread: the MCP client holds anyio task groups bound to the event loop (and the task) that opened
them, while a Slotgraph agent is shared by sessions whose turns run on any loop (``session.send`` runs each
turn in a loop of its own). So each :class:`McpToolSource` owns a daemon thread running one loop; an owner
task on it opens the connection and keeps it open until :meth:`McpToolSource.close`; tool calls are
submitted to that loop from wherever the turn runs and awaited there.

Failure handling: a call is bounded by the server's ``timeout`` on both sides; when it times out, or the
connection breaks (the server process died), the connection is dropped and the next call opens a new one
(starting the server again). The call itself raises :class:`~slotgraph.mcp_tools.results.McpToolError`,
which the runtime's tool runner turns into a failed tool result — for an executor a failed task result,
routed to the engine so the task's retries and ``on_exhaust`` apply.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import logging
import threading
import weakref
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from slotgraph.config.tool_sources import McpServerConfig
from slotgraph.mcp_tools.results import McpToolError, result_value
from slotgraph.models.protocol import ToolSchema
from slotgraph.runtime.errors import AgentLoadError
from slotgraph.runtime.tools import Tool, ToolContext

__all__ = ["McpTool", "McpToolSource", "load_mcp_tools"]

logger = logging.getLogger("slotgraph.mcp")

CONNECT_TIMEOUT = 30.0
"""Seconds to start a server and list its tools before :meth:`McpToolSource.load_tools` gives up."""
_GRACE = 2.0
CLOSE_TIMEOUT = 10.0
"""Seconds :meth:`McpToolSource.close` waits for the servers to stop (the SDK terminates a stuck one)."""


def _import_mcp() -> Any:
    try:
        import mcp
    except ImportError:
        raise AgentLoadError(
            "the agent's tools come from an MCP server, which needs the 'mcp' SDK (not installed); "
            "install it with: pip install 'slotgraph[mcp]'"
        ) from None
    return mcp


class _ArgsChecker:
    """Checks a model's arguments against the JSON Schema the server listed for the tool."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        import jsonschema  # a dependency of the mcp SDK

        self._validator = jsonschema.Draft202012Validator(dict(schema))

    def problems(self, args: Mapping[str, Any]) -> list[str]:
        found = []
        for error in sorted(self._validator.iter_errors(dict(args)), key=lambda e: list(e.path)):
            where = ".".join(str(p) for p in error.path) or "(arguments)"
            found.append(f"{where}: {error.message}")
        return found


@dataclass(frozen=True, slots=True)
class McpTool(Tool):
    """A tool of an MCP server: its arguments are checked against the server's schema, then sent to it."""

    source: McpToolSource | None = None
    checker: _ArgsChecker | None = None

    def check_args(self, args: Mapping[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
        if not isinstance(args, Mapping):
            return None, f"arguments must be an object, got {type(args).__name__}"
        problems = self.checker.problems(args) if self.checker is not None else []
        if problems:
            return None, "; ".join(problems)
        return dict(args), None

    async def invoke(self, args: Mapping[str, Any], context: ToolContext | None = None) -> Any:
        assert self.source is not None
        return await self.source.call(self.name, dict(args))


class McpToolSource:
    """The tools of one MCP server, callable from any event loop."""

    def __init__(self, config: McpServerConfig, *, base_dir: str | Path | None = None) -> None:
        _import_mcp()  # fail now, with the install hint, rather than on the private loop
        self.config = config
        self.base_dir = Path(base_dir) if base_dir is not None else None
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._client: Any = None
        self._stop: asyncio.Event | None = None
        self._owner: asyncio.Task[None] | None = None
        self._owners: dict[asyncio.Task[None], asyncio.Event] = {}
        self._closed = False
        _OPEN.add(self)

    def __repr__(self) -> str:
        return f"McpToolSource({self.config.label!r})"

    # -- the private loop -------------------------------------------------------------------------------

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._closed:
                raise McpToolError(f"MCP server {self.config.label!r}: the tool source is closed")
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="slotgraph-mcp", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def _submit(self, work: Callable[[], Coroutine[Any, Any, Any]]) -> concurrent.futures.Future[Any]:
        loop = self._ensure_loop()
        return asyncio.run_coroutine_threadsafe(work(), loop)

    def _target(self) -> Any:
        mcp = _import_mcp()
        config = self.config
        if config.url is not None:
            if not config.headers:
                return config.url
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            return streamable_http_client(
                config.url, http_client=create_mcp_http_client(headers=config.headers)
            )
        cwd = self.base_dir
        if config.cwd is not None:
            cwd = (self.base_dir or Path.cwd()) / config.cwd
        assert config.command is not None
        return mcp.StdioServerParameters(
            command=config.command, args=list(config.args), env=config.env, cwd=cwd
        )

    async def _own(self, ready: asyncio.Future[Any], stop: asyncio.Event) -> None:
        """Open the connection, hand it over, and hold it (in this one task) until asked to stop."""
        try:
            mcp = _import_mcp()
            async with mcp.Client(self._target(), read_timeout_seconds=self.config.timeout) as client:
                if not ready.done():
                    ready.set_result(client)
                await stop.wait()
        except BaseException as err:  # the server died, refused, or was never there
            if not ready.done():
                ready.set_exception(err)
            elif not isinstance(err, asyncio.CancelledError | GeneratorExit):
                logger.warning("MCP server %s: the connection broke (%s)", self.config.label, err)
            if isinstance(err, KeyboardInterrupt | SystemExit):
                raise
        finally:
            if self._owner is asyncio.current_task():
                self._client = None

    async def _connected(self) -> Any:
        if self._client is not None and self._owner is not None and not self._owner.done():
            return self._client
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[Any] = loop.create_future()
        stop = asyncio.Event()
        owner = loop.create_task(self._own(ready, stop))
        self._owners[owner] = stop
        owner.add_done_callback(lambda task: self._owners.pop(task, None))
        self._owner, self._stop = owner, stop
        try:
            self._client = await asyncio.wait_for(asyncio.shield(ready), CONNECT_TIMEOUT)
        except BaseException:
            self._drop()
            raise
        return self._client

    def _drop(self) -> None:
        """Forget the current connection and let its owner close it in the background."""
        stop = self._stop
        self._client, self._owner, self._stop = None, None, None
        if stop is not None:
            stop.set()

    async def _shutdown(self) -> None:
        self._drop()
        owners = list(self._owners)
        for stop in self._owners.values():
            stop.set()
        if owners:
            _, pending = await asyncio.wait(owners, timeout=CLOSE_TIMEOUT)
            for task in pending:
                task.cancel()

    # -- on the private loop ----------------------------------------------------------------------------

    async def _list(self) -> list[dict[str, Any]]:
        client = await self._connected()
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            page = await asyncio.wait_for(client.list_tools(cursor=cursor), self.config.timeout)
            tools.extend(t.model_dump(by_alias=True, exclude_none=True) for t in page.tools)
            cursor = getattr(page, "next_cursor", None)
            if not cursor:
                return tools

    async def _call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        client = await self._connected()
        try:
            result = await asyncio.wait_for(
                client.call_tool(name, args, read_timeout_seconds=self.config.timeout), self.config.timeout
            )
        except BaseException:
            self._drop()  # a hung or broken server gets a fresh start on the next call
            raise
        dumped: dict[str, Any] = result.model_dump(by_alias=True, exclude_none=True)
        return dumped

    # -- public -----------------------------------------------------------------------------------------

    def list_tools(self) -> list[dict[str, Any]]:
        """The server's tools as MCP wire JSON (``name``, ``description``, ``inputSchema``, ...)."""
        future = self._submit(self._list)
        try:
            return list(future.result(CONNECT_TIMEOUT + self.config.timeout))
        except concurrent.futures.TimeoutError:
            future.cancel()
            waited = CONNECT_TIMEOUT + self.config.timeout
            raise AgentLoadError(
                f"MCP server {self.config.label!r}: no tool list within {waited:g}s"
                " — check that the command starts an MCP server on stdio (or the URL serves MCP)"
            ) from None
        except Exception as err:
            raise AgentLoadError(
                f"MCP server {self.config.label!r}: cannot list its tools ({_describe(err)}) — check the "
                "'tools.mcp' entry of agent.yaml and run the server by hand to see its errors"
            ) from err

    def load_tools(self) -> list[McpTool]:
        """The server's tools (only those the config's ``tools`` names, when it names some)."""
        listed = {str(item["name"]): item for item in self.list_tools() if isinstance(item.get("name"), str)}
        wanted = self.config.tools
        if wanted is not None:
            missing = [name for name in wanted if name not in listed]
            if missing:
                raise AgentLoadError(
                    f"MCP server {self.config.label!r} has no tool {', '.join(map(repr, missing))}; it lists "
                    f"{', '.join(sorted(listed)) or 'none'} — fix 'tools.mcp.tools' in agent.yaml"
                )
            listed = {name: listed[name] for name in wanted}
        return [self._tool(item) for item in listed.values()]

    def _tool(self, item: Mapping[str, Any]) -> McpTool:
        name = str(item["name"])
        schema = item.get("inputSchema")
        if not isinstance(schema, Mapping):
            schema = {"type": "object", "properties": {}}
        description = str(item.get("description") or "").strip()
        try:
            checker = _ArgsChecker(schema)
        except Exception as err:
            raise AgentLoadError(
                f"MCP server {self.config.label!r}: tool {name!r} has an input schema that is not valid "
                f"JSON Schema ({_describe(err)})"
            ) from None
        return McpTool(name, None, ToolSchema(name, description, dict(schema)), source=self, checker=checker)

    async def call(self, name: str, args: dict[str, Any]) -> Any:
        """Call a tool from any event loop; its value, or :class:`McpToolError` when the call failed."""
        future = self._submit(lambda: self._call(name, args))
        try:
            # The call's own timeouts run on the private loop; this bound only covers (re)starting the server.
            budget = CONNECT_TIMEOUT + self.config.timeout + _GRACE
            result = await asyncio.wait_for(asyncio.wrap_future(future), budget)
        except TimeoutError:
            future.cancel()
            raise McpToolError(
                f"the MCP tool {name!r} ({self.config.label}) did not answer within {self.config.timeout:g}s"
            ) from None
        except McpToolError:
            raise
        except Exception as err:
            raise McpToolError(
                f"the MCP tool {name!r} ({self.config.label}) failed: {_describe(err)}"
            ) from err
        return result_value(name, result)

    def close(self) -> None:
        """Stop the server (stdio) or end the session (HTTP), and the private loop."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            loop, thread = self._loop, self._thread
        _OPEN.discard(self)
        if loop is None or thread is None:
            return
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(CLOSE_TIMEOUT + _GRACE)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(_GRACE * 2)
        if not thread.is_alive():
            loop.close()


def _describe(err: BaseException) -> str:
    if isinstance(err, BaseExceptionGroup) and err.exceptions:
        return _describe(err.exceptions[0])
    if isinstance(err, ValidationError):
        return f"the server sent something that is not MCP ({err.error_count()} problems)"
    text = str(err).strip()
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


_OPEN: weakref.WeakSet[McpToolSource] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for source in list(_OPEN):
        source.close()


def load_mcp_tools(
    servers: Iterable[McpServerConfig],
    *,
    base_dir: str | Path | None = None,
    taken: Sequence[str] = (),
    on_source: Callable[[McpToolSource], None] | None = None,
) -> list[McpTool]:
    """The tools of every server, checked for names that clash with ``taken`` or with each other."""
    tools: list[McpTool] = []
    seen = {name: "the tools module" for name in taken}
    for config in servers:
        source = McpToolSource(config, base_dir=base_dir)
        if on_source is not None:
            on_source(source)
        try:
            loaded = source.load_tools()
        except BaseException:
            source.close()
            raise
        for tool in loaded:
            if tool.name in seen:
                source.close()
                raise AgentLoadError(
                    f"tool {tool.name!r} of MCP server {config.label!r} clashes with {seen[tool.name]}: "
                    "rename one, or list the tools to take with 'tools.mcp.tools'"
                )
            seen[tool.name] = f"MCP server {config.label!r}"
        tools.extend(loaded)
    return tools
