"""Where an agent's tools come from: its Python tools module and MCP servers (``agent.yaml`` ``tools:``).

``tools`` is either the path of the tools module (``tools: tools.py``, the default) or a mapping::

    tools:
      module: tools.py                  # optional; default: tools.py when the file exists
      mcp:                              # one server or a list of them
        command: python                 # a server started over stdio ...
        args: [bella_server.py]
        env: {BELLA_DB: bookings.db}    # optional, added to a minimal environment
        timeout: 20                     # seconds per tool call (default 30)
        tools: [find_available_times]   # optional: only these tools of the server
      # mcp: http://localhost:8000/mcp  # ... or a Streamable-HTTP server by URL (or {url: ..., headers: ...})
      http:                             # tools whose executor is an HTTP endpoint
        - name: match_purchase
          url: http://localhost:8765/purchases/match
          input_schema: {type: object, properties: {...}, required: [...]}

Pure data: nothing here starts a server. The runtime (:mod:`slotgraph.mcp_tools`) connects when the agent is
loaded and reads the tools' schemas from the server.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from slotgraph.config.json_schemas import CompiledSchema, compile_schema

__all__ = ["DEFAULT_MCP_TIMEOUT", "HttpToolConfig", "McpServerConfig", "ToolsConfig"]

DEFAULT_MCP_TIMEOUT = 30.0


class McpServerConfig(BaseModel):
    """One MCP server: a command started over stdio, or a Streamable-HTTP URL."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    command: str | None = None
    """The program that runs the server over stdio (e.g. "python", "npx", "uvx")."""
    args: tuple[str, ...] = ()
    """Its arguments; relative paths are resolved against the agent directory by the program itself
    (the server is started with the agent directory as its working directory unless `cwd` says otherwise)."""
    env: dict[str, str] | None = None
    """Extra environment variables for the server process."""
    cwd: str | None = None
    """Working directory of the server process, relative to the agent directory (default: the agent dir)."""
    url: str | None = None
    """The server's Streamable-HTTP endpoint, e.g. "http://localhost:8000/mcp"."""
    headers: dict[str, str] | None = None
    """HTTP headers sent to a URL server (e.g. an Authorization header)."""
    timeout: float = Field(default=DEFAULT_MCP_TIMEOUT, gt=0)
    """Seconds a tool call may take; a slower call fails (a failed task result, the turn goes on)."""
    tools: tuple[str, ...] | None = None
    """Only these tools of the server (default: all it lists)."""
    name: str | None = None
    """A name for logs and errors (default: the command or the URL)."""

    @model_validator(mode="before")
    @classmethod
    def _url_shorthand(cls, data: Any) -> Any:
        return {"url": data} if isinstance(data, str) else data

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError(f"{value!r} is not an http:// or https:// URL (e.g. http://localhost:8000/mcp)")
        return value

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError(
                "an MCP server needs exactly one of 'command' (a server started over stdio) or 'url' "
                "(a Streamable-HTTP server)"
            )
        if self.url is not None and (self.args or self.env or self.cwd):
            raise ValueError("'args', 'env' and 'cwd' apply to a 'command' server, not to a 'url' one")
        if self.command is not None and self.headers:
            raise ValueError("'headers' apply to a 'url' server, not to a 'command' one")
        return self

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        if self.url is not None:
            return self.url
        return " ".join((self.command or "", *self.args))


class HttpToolConfig(BaseModel):
    """A tool whose executor is an HTTP endpoint (``tools: {http: [...]}``): the call's arguments become the
    JSON body, assembled by ``input_schema`` exactly like a workflow's HTTP stage
    (:mod:`slotgraph.config.payloads`): only declared keys are sent, a missing required key fails closed
    before the call (the tool returns an error), a wrongly typed value too."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    """The tool name the DAG (a task's ``tool``) or the model uses."""
    url: str
    """The endpoint: an http:// or https:// URL."""
    method: Literal["POST", "PUT", "PATCH"] = "POST"
    description: str = ""
    """What the tool does (shown to the model)."""
    input_schema: dict[str, Any] | None = None
    """JSON Schema of the body (an object); also the tool's parameters as the model sees them."""
    headers: dict[str, str] | None = None
    timeout: float = Field(default=30.0, gt=0, le=600)

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"{value!r} is not an http:// or https:// URL")
        return value

    @field_validator("input_schema")
    @classmethod
    def _compiles(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None:
            _, problems = compile_schema(value)
            if problems:
                where = problems[0].location or "input_schema"
                raise ValueError(f"input_schema {where}: {problems[0].message} — {problems[0].fix}")
        return value

    def compiled_schema(self) -> CompiledSchema | None:
        return compile_schema(self.input_schema, name=self.name)[0] if self.input_schema is not None else None


class ToolsConfig(BaseModel):
    """The mapping form of ``tools``: a Python module, MCP servers and/or HTTP tools."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    module: str | None = None
    """Python module with tool functions, relative to the agent directory (default: tools.py if present)."""
    mcp: tuple[McpServerConfig, ...] = ()
    """MCP servers whose tools the agent uses: one server (a mapping or a URL) or a list of them."""
    http: tuple[HttpToolConfig, ...] = ()
    """Tools whose executor is an HTTP endpoint (bodies assembled by their ``input_schema``)."""

    @field_validator("mcp", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        if isinstance(value, str | dict):
            return (value,)
        return value
