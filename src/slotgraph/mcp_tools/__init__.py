"""Tools served by MCP servers, as tools of a Slotgraph agent (``tools: {mcp: ...}`` in ``agent.yaml``).

::

    from slotgraph.mcp_tools import McpToolSource
    from slotgraph.config.tool_sources import McpServerConfig

    source = McpToolSource(McpServerConfig(command="python", args=("server.py",)))
    tools = source.load_tools()          # the server's tools, schemas as the server lists them

:class:`McpToolSource` keeps one connection per server on a private event-loop thread, so sessions on any
event loop share it; a server that dies is started again on the next call. A call that fails — the server
died, hung past its ``timeout``, or answered ``isError`` — raises :class:`McpToolError`, which the runtime
turns into a failed tool result (a failed task result for an executor, so its retries and ``on_exhaust``
apply): never a lost turn. Needs the official ``mcp`` SDK (``pip install 'slotgraph[mcp]'``).
"""

from slotgraph.mcp_tools.results import McpToolError, result_value
from slotgraph.mcp_tools.source import McpTool, McpToolSource, load_mcp_tools

__all__ = ["McpTool", "McpToolError", "McpToolSource", "load_mcp_tools", "result_value"]
