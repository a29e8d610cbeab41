"""A hosted agent as MCP tools a host assistant calls (the ``mcp`` extra) — the reverse of
:mod:`slotgraph.mcp_tools`, where an agent's own tools are served by MCP servers.

Each agent is one MCP server (named after the agent, its description as the server's) with four tools:

* ``start_conversation(message)`` — start a session with the user's first words; the agent's reply;
* ``send_message(session_id, message)`` — the user's next words; the agent's reply;
* ``get_collected_slots(session_id)`` — what the agent has collected so far (and task results);
* ``end_conversation(session_id)`` — close the session (it stays readable).

The session id a reply carries is passed back on every later call: the host keeps no other state, and the
engine decides every step as it does over HTTP (the host relays the user's words, never the slots).
Replies are structured (``structuredContent`` with an output schema) and repeat the agent's words as text.
A call with bad arguments or for an unknown or finished session is an MCP tool error (``isError: true``)
saying what to do.

:func:`mcp_http_routes` serves the tools over streamable HTTP at ``/mcp/NAME`` in ``slotgraph serve``
(stateless, so any worker answers any call); ``slotgraph mcp AGENT`` serves them over stdio.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel, Field
from starlette.routing import BaseRoute

from slotgraph.server.errors import SessionEndedError, SessionNotFoundError
from slotgraph.server.hosting import HostedAgent
from slotgraph.server.problems import problem_for
from slotgraph.server.protocols.conversations import Conversations, Exchange, Snapshot

__all__ = ["AgentReply", "CollectedSlots", "agent_mcp_server", "mcp_http_routes"]

_INSTRUCTIONS = """{name} is a Slotgraph agent: {description}

It runs its own conversation to collect what it needs and then acts (books, files, looks up). To use it:
call start_conversation with the user's request in their own words, show the user the agent's `reply`
verbatim, and pass the user's answer to send_message with the same `session_id` until `outcome` is no
longer `waiting`. Relay the user's words as they are; do not answer the agent's questions yourself."""


class AgentReply(BaseModel):
    """What the agent said on a turn, and where the conversation stands."""

    session_id: str = Field(description="Pass it to send_message / get_collected_slots / end_conversation.")
    reply: str = Field(description="The agent's words for the user; show them verbatim.")
    outcome: Literal["waiting", "completed", "escalated", "ended"] = Field(
        description="waiting: the agent waits for the user's next message; completed: its task is done; "
        "escalated: handed to a human; ended: closed before completing."
    )
    asking: str | None = Field(description="The slot the agent is asking for, if any.")
    slots: dict[str, Any] = Field(description="The slots collected so far.")
    task_results: dict[str, Any] = Field(description="The results of the tasks the agent ran.")


class CollectedSlots(BaseModel):
    """What a conversation has collected so far."""

    session_id: str
    outcome: Literal["waiting", "completed", "escalated", "ended"]
    status: str = Field(description="The engine's status: in_progress, complete or escalated.")
    asking: str | None = Field(description="The slot the agent is asking for, if any.")
    slots: dict[str, Any] = Field(description="The collected (filled) slots.")
    pending: dict[str, Any] = Field(description="Values given but waiting for the user's confirmation.")
    task_results: dict[str, Any]


def _reply(exchange: Exchange) -> AgentReply:
    snap = exchange.snapshot
    return AgentReply(
        session_id=snap.session_id,
        reply=exchange.text,
        outcome=snap.outcome,
        asking=snap.asking,
        slots=dict(snap.slots),
        task_results=dict(snap.task_results),
    )


def _collected(snap: Snapshot) -> CollectedSlots:
    return CollectedSlots(
        session_id=snap.session_id,
        outcome=snap.outcome,
        status=snap.status,
        asking=snap.asking,
        slots=dict(snap.slots),
        pending=dict(snap.pending),
        task_results=dict(snap.task_results),
    )


def _tool_error(err: Exception) -> ToolError:
    """A tool error carrying the session problem's detail and fix (internals never: see problem_for)."""
    body = problem_for(err)
    if isinstance(err, SessionNotFoundError | SessionEndedError):
        body["fix"] = "call start_conversation to start a new conversation"
    fix = f" Fix: {body['fix']}." if body.get("fix") else ""
    return ToolError(f"{body['detail']} ({body['code']}).{fix}")


def agent_mcp_server(conversations: Conversations, hosted: HostedAgent) -> MCPServer:
    """The MCP server exposing ``hosted`` (see the module docstring)."""
    name = hosted.name
    description = hosted.description or f"the Slotgraph agent {name}"
    server: MCPServer = MCPServer(
        name=name,
        title=name,
        description=description,
        instructions=_INSTRUCTIONS.format(name=name, description=description),
        log_level="WARNING",
    )

    async def start_conversation(message: str) -> AgentReply:
        try:
            session_id = await conversations.start(name)
            return _reply(await conversations.say(session_id, message))
        except Exception as err:
            raise _tool_error(err) from None

    async def send_message(session_id: str, message: str) -> AgentReply:
        try:
            await _open(session_id)
            return _reply(await conversations.say(session_id, message))
        except ToolError:
            raise
        except Exception as err:
            raise _tool_error(err) from None

    async def _open(session_id: str) -> None:
        snapshot = await conversations.read(session_id, agent=name)
        if snapshot.finished:
            raise ToolError(
                f"the conversation {session_id} is {snapshot.outcome}: it takes no more messages. "
                "Fix: call start_conversation to start a new one."
            )

    async def get_collected_slots(session_id: str) -> CollectedSlots:
        try:
            return _collected(await conversations.read(session_id, agent=name))
        except Exception as err:
            raise _tool_error(err) from None

    async def end_conversation(session_id: str) -> CollectedSlots:
        try:
            return _collected(await conversations.end(session_id, agent=name))
        except Exception as err:
            raise _tool_error(err) from None

    server.add_tool(
        start_conversation,
        title=f"Start a conversation with {name}",
        description=f"Start a new conversation with {name} ({description}). `message` is the user's request "
        "in their own words. Returns the agent's reply and a session_id for the next calls.",
    )
    server.add_tool(
        send_message,
        title=f"Send the user's message to {name}",
        description=f"Send the user's next message to the {name} conversation `session_id` (from "
        "start_conversation) and get the agent's reply. Relay the user's words verbatim.",
    )
    server.add_tool(
        get_collected_slots,
        title="Read what the conversation collected",
        description=f"The slots the {name} conversation `session_id` has collected, the values waiting for "
        "confirmation, the slot being asked and the task results. Changes nothing.",
    )
    server.add_tool(
        end_conversation,
        title="End the conversation",
        description=f"Close the {name} conversation `session_id` (the user gave up or went elsewhere). It "
        "stays readable with get_collected_slots; later messages are refused.",
    )
    return server


def mcp_http_routes(
    conversations: Conversations,
) -> list[tuple[Sequence[BaseRoute], Callable[[], AbstractAsyncContextManager[None]]]]:
    """For each hosted agent: the streamable-HTTP route at ``/mcp/NAME`` and a factory of the context its
    session manager must run in (the app's lifespan enters it)."""
    out: list[tuple[Sequence[BaseRoute], Callable[[], AbstractAsyncContextManager[None]]]] = []
    for hosted in conversations.agents:
        server = agent_mcp_server(conversations, hosted)
        app = server.streamable_http_app(
            streamable_http_path=f"/mcp/{hosted.name}",
            stateless_http=True,  # the session id is in the tool arguments: any worker can answer
            # the API key guards /mcp/ (ApiKeyMiddleware), as it guards /v1/
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        out.append((app.routes, server.session_manager.run))
    return out
