"""Agents over A2A (Agent2Agent): each hosted agent's card and its JSON-RPC endpoint (the ``a2a`` extra).

Endpoints, per hosted agent ``NAME``:

* ``GET /a2a/NAME/.well-known/agent-card.json`` — its agent card: name, description, one skill per DAG task,
  streaming on, the JSON-RPC interface at ``/a2a/NAME`` (protocol 1.0, and 0.3 at the same URL).
  ``GET /.well-known/agent-card.json`` is the card of the first agent the server hosts.
* ``POST /a2a/NAME`` — A2A JSON-RPC: ``SendMessage``/``SendStreamingMessage``/``GetTask``/``CancelTask``/
  ``SubscribeToTask`` (1.0) and ``message/send``/``message/stream``/``tasks/get``/``tasks/cancel``/
  ``tasks/resubscribe`` (0.3). Parsing, errors and SSE framing are the ``a2a-sdk``'s own
  (:class:`~a2a.server.routes.jsonrpc_dispatcher.JsonRpcDispatcher`); :class:`SessionTaskHandler` answers.

An A2A task **is** a Slotgraph session (task id = session id), so tasks live in the server's session store,
every worker can serve every task, and a restart loses none. A message without ``taskId`` starts a session;
one with it continues that session. After each turn the task is in the state the conversation is in:

* ``input-required`` — the agent is waiting for the user (a slot asked, a readback to confirm); the status
  message carries the agent's words;
* ``completed`` — the agent's terminal task succeeded; the ``results`` artifact carries the collected slots
  and the task results as a structured data part;
* ``rejected`` — the conversation was escalated to a human (Slotgraph status ``escalated``); the same
  ``results`` artifact carries what was collected;
* ``canceled`` — the session was ended before completing (``CancelTask``, or the agent ended it).

Task metadata ``slotgraph`` carries the engine's ``status``, the slot ``asking`` and the ``agent``.
A finished task takes no more messages (A2A's rule); send the next message without ``taskId`` (the same
``contextId`` groups them). The API key guards ``/a2a/`` like ``/v1/``; the cards stay public and declare it.
"""

from __future__ import annotations

import asyncio
import datetime
import re
from collections.abc import AsyncGenerator, Mapping
from typing import Any

from a2a.server.context import ServerCallContext
from a2a.server.events import Event as A2AEvent
from a2a.server.request_handlers import RequestHandler
from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.server.routes.jsonrpc_dispatcher import JsonRpcDispatcher
from a2a.types import a2a_pb2 as a2a
from a2a.utils.errors import (
    A2AError,
    InternalError,
    InvalidParamsError,
    PushNotificationNotSupportedError,
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from a2a.utils.task import apply_history_length
from google.protobuf import json_format
from google.protobuf.timestamp_pb2 import Timestamp
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from slotgraph.server.errors import SessionEndedError, SessionNotFoundError
from slotgraph.server.hosting import HostedAgent
from slotgraph.server.problems import problem_for
from slotgraph.server.protocols.conversations import Conversations, Snapshot

__all__ = ["CONTEXT_KEY", "SessionTaskHandler", "a2a_routes", "agent_card"]

CONTEXT_KEY = "a2a_context_id"
"""The session metadata key keeping the A2A ``contextId`` a client chose (else the context is the task id)."""

_STATES: dict[str, a2a.TaskState] = {
    "waiting": a2a.TASK_STATE_INPUT_REQUIRED,
    "completed": a2a.TASK_STATE_COMPLETED,
    "escalated": a2a.TASK_STATE_REJECTED,
    "ended": a2a.TASK_STATE_CANCELED,
}
_STREAMED_KINDS = frozenset(
    {"tool_call", "tool_result", "refusal", "agent_transfer", "transfer", "end_session"}
)
"""Turn events sent as ``working`` status updates on a stream (the agent's text comes with the final one)."""
_CARD_PATH = "/.well-known/agent-card.json"


def _words(name: str) -> str:
    """``FindAvailableTimes`` / ``find_available_times`` → ``Find available times``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ").strip()
    return spaced[:1].upper() + spaced[1:].lower()


def _skills(hosted: HostedAgent) -> list[a2a.AgentSkill]:
    """One skill per DAG task of the agent (of every agent of a multi-agent app)."""
    skills: list[a2a.AgentSkill] = []
    members = list(hosted.agent.team) if hosted.agent.team is not None else [hosted.agent]
    for member in members:
        for task in member.dag.tasks:
            tool = member.tools.get(task.tool)
            summary = tool.schema.description.split("\n\n")[0].strip() if tool is not None else ""
            needs = [
                member.dag.slot_by_name[name].label or name
                for name in task.inputs
                if name in member.dag.slot_by_name
            ]
            description = summary or _words(task.name)
            if needs:
                description += f" (asks for: {', '.join(needs)})"
            skills.append(
                a2a.AgentSkill(
                    id=task.name if len(members) == 1 else f"{member.name}.{task.name}",
                    name=_words(task.name),
                    description=description,
                    tags=["slotgraph", member.name],
                    input_modes=["text/plain"],
                    output_modes=["text/plain", "application/json"],
                )
            )
    return skills


def agent_card(hosted: HostedAgent, url: str, *, api_key_required: bool) -> a2a.AgentCard:
    """The A2A card of ``hosted``, whose JSON-RPC endpoint is ``url``."""
    card = a2a.AgentCard(
        name=hosted.name,
        description=hosted.description or f"The Slotgraph agent {hosted.name}.",
        version="1",
        supported_interfaces=[
            a2a.AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0"),
            a2a.AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="0.3"),
        ],
        provider=a2a.AgentProvider(organization="Slotgraph", url=url.rsplit("/a2a/", 1)[0] + "/"),
        capabilities=a2a.AgentCapabilities(streaming=True, push_notifications=False),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain", "application/json"],
        skills=_skills(hosted),
    )
    if api_key_required:
        card.security_schemes["bearer"].http_auth_security_scheme.scheme = "bearer"
        card.security_schemes["apiKey"].api_key_security_scheme.CopyFrom(
            a2a.APIKeySecurityScheme(location="header", name="X-API-Key")
        )
        for scheme in ("bearer", "apiKey"):
            requirement = card.security_requirements.add()
            requirement.schemes[scheme].SetInParent()
    return card


def _text_of(message: a2a.Message) -> str:
    texts = [part.text for part in message.parts if part.WhichOneof("content") == "text"]
    text = "\n".join(t for t in texts if t.strip())
    if not text:
        raise InvalidParamsError(
            message="the message has no text part: a Slotgraph agent reads the user's words as text",
            data={"fix": "send the user's words as a text part ({'text': '...'})"},
        )
    return text


def _a2a_error(err: Exception) -> A2AError:
    """The A2A error for a server error: the session's problem (code, detail, fix) as its message and data."""
    if isinstance(err, A2AError):
        return err
    body = problem_for(err)
    if isinstance(err, SessionNotFoundError | SessionEndedError):
        body["fix"] = "send the message without taskId to start a new task (keep the contextId)"
    data = {"code": str(body["code"])} | ({"fix": str(body["fix"])} if body.get("fix") else {})
    message = str(body["detail"]) + (f"; fix: {body['fix']}" if body.get("fix") else "")
    if isinstance(err, SessionNotFoundError):
        return TaskNotFoundError(message=message, data=data)
    if isinstance(err, SessionEndedError):
        return UnsupportedOperationError(message=message, data=data)
    return InternalError(message=message, data=data)


def _now() -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(datetime.datetime.now(datetime.UTC))
    return stamp


class SessionTaskHandler(RequestHandler):
    """A2A requests for one hosted agent, answered from its Slotgraph sessions (see the module docstring)."""

    def __init__(self, conversations: Conversations, agent: str) -> None:
        self.conversations = conversations
        self.agent = agent

    # ---- tasks as sessions

    def _context_id(self, snapshot: Snapshot) -> str:
        return str(snapshot.metadata.get(CONTEXT_KEY) or snapshot.session_id)

    def _agent_message(self, snapshot: Snapshot, text: str, message_id: str) -> a2a.Message:
        return a2a.Message(
            message_id=message_id,
            role=a2a.ROLE_AGENT,
            task_id=snapshot.session_id,
            context_id=self._context_id(snapshot),
            parts=[a2a.Part(text=text)],
        )

    def _status(self, snapshot: Snapshot, state: a2a.TaskState | None = None) -> a2a.TaskStatus:
        status = a2a.TaskStatus(state=state if state is not None else _STATES[snapshot.outcome])
        said = [i for i, u in enumerate(snapshot.utterances) if u.role == "agent"]
        if said and state is None:
            index = said[-1]
            text = snapshot.utterances[index].text
            status.message.CopyFrom(self._agent_message(snapshot, text, f"{snapshot.session_id}-{index}"))
        status.timestamp.CopyFrom(_now())
        return status

    def _artifacts(self, snapshot: Snapshot) -> list[a2a.Artifact]:
        if snapshot.outcome not in ("completed", "escalated"):
            return []
        data = a2a.Part(media_type="application/json")
        json_format.ParseDict(snapshot.results, data.data.struct_value)
        return [
            a2a.Artifact(
                artifact_id=f"{snapshot.session_id}-results",
                name="results",
                description="The slots the agent collected and the results of the tasks it ran.",
                parts=[data],
            )
        ]

    def _metadata(self, snapshot: Snapshot) -> dict[str, Any]:
        return {
            "slotgraph": {
                "agent": snapshot.agent,
                "status": snapshot.status,
                "asking": snapshot.asking,
                "session_id": snapshot.session_id,
            }
        }

    def _task(self, snapshot: Snapshot, state: a2a.TaskState | None = None) -> a2a.Task:
        history = [
            a2a.Message(
                message_id=f"{snapshot.session_id}-{i}",
                role=a2a.ROLE_USER if u.role == "user" else a2a.ROLE_AGENT,
                task_id=snapshot.session_id,
                context_id=self._context_id(snapshot),
                parts=[a2a.Part(text=u.text)],
            )
            for i, u in enumerate(snapshot.utterances)
        ]
        return a2a.Task(
            id=snapshot.session_id,
            context_id=self._context_id(snapshot),
            status=self._status(snapshot, state),
            artifacts=self._artifacts(snapshot) if state is None else [],
            history=history,
            metadata=self._metadata(snapshot),
        )

    async def _snapshot(self, task_id: str) -> Snapshot:
        try:
            return await self.conversations.read(task_id, agent=self.agent)
        except Exception as err:
            raise _a2a_error(err) from None

    async def _open(self, message: a2a.Message) -> str:
        """The session the message goes to: the task it names (open, of this agent), or a new one."""
        if message.task_id:
            snapshot = await self._snapshot(message.task_id)
            if message.context_id and message.context_id != self._context_id(snapshot):
                raise InvalidParamsError(
                    message=f"contextId {message.context_id!r} is not the context of task "
                    f"{message.task_id!r}",
                    data={"fix": "send the task's own contextId, or leave it out"},
                )
            if snapshot.finished:
                state = a2a.TaskState.Name(_STATES[snapshot.outcome])
                raise UnsupportedOperationError(
                    message=f"task {message.task_id} is in terminal state {state}: it takes no more messages",
                    data={"fix": "send the message without taskId to start a new task (keep the contextId)"},
                )
            return message.task_id
        metadata = {CONTEXT_KEY: message.context_id} if message.context_id else None
        try:
            return await self.conversations.start(self.agent, metadata=metadata)
        except Exception as err:
            raise _a2a_error(err) from None

    # ---- the A2A methods

    async def on_message_send(self, params: a2a.SendMessageRequest, context: ServerCallContext) -> a2a.Task:
        text = _text_of(params.message)
        session_id = await self._open(params.message)
        try:
            exchange = await self.conversations.say(session_id, text)
        except Exception as err:
            raise _a2a_error(err) from None
        return apply_history_length(self._task(exchange.snapshot), params.configuration)

    async def on_message_send_stream(
        self, params: a2a.SendMessageRequest, context: ServerCallContext
    ) -> AsyncGenerator[A2AEvent]:
        text = _text_of(params.message)
        session_id = await self._open(params.message)
        before = await self._snapshot(session_id)
        task_id, context_id = session_id, self._context_id(before)
        yield apply_history_length(self._task(before, a2a.TASK_STATE_WORKING), params.configuration)

        updates: asyncio.Queue[A2AEvent | None] = asyncio.Queue()

        async def forward(event: Mapping[str, Any]) -> None:
            if event.get("kind") in _STREAMED_KINDS:
                status = a2a.TaskStatus(state=a2a.TASK_STATE_WORKING)
                status.timestamp.CopyFrom(_now())
                update = a2a.TaskStatusUpdateEvent(task_id=task_id, context_id=context_id, status=status)
                json_format.ParseDict({"slotgraph_event": dict(event)}, update.metadata)
                await updates.put(update)

        async def play() -> Snapshot:
            try:
                return (await self.conversations.say(session_id, text, on_event=forward)).snapshot
            finally:
                await updates.put(None)

        turn = asyncio.create_task(play())
        turn.add_done_callback(lambda t: t.cancelled() or t.exception())  # a client that left: retrieved
        while (update := await updates.get()) is not None:
            yield update
        try:
            after = await turn
        except Exception as err:
            raise _a2a_error(err) from None
        for artifact in self._artifacts(after):
            yield a2a.TaskArtifactUpdateEvent(
                task_id=task_id, context_id=context_id, artifact=artifact, last_chunk=True
            )
        yield a2a.TaskStatusUpdateEvent(
            task_id=task_id, context_id=context_id, status=self._status(after), metadata=self._metadata(after)
        )

    async def on_get_task(self, params: a2a.GetTaskRequest, context: ServerCallContext) -> a2a.Task:
        return apply_history_length(self._task(await self._snapshot(params.id)), params)

    async def on_cancel_task(self, params: a2a.CancelTaskRequest, context: ServerCallContext) -> a2a.Task:
        snapshot = await self._snapshot(params.id)
        if snapshot.finished:
            state = a2a.TaskState.Name(_STATES[snapshot.outcome])
            raise TaskNotCancelableError(message=f"task {params.id} is already in terminal state {state}")
        try:
            return self._task(await self.conversations.end(params.id, agent=self.agent))
        except SessionEndedError:
            raise TaskNotCancelableError(message=f"task {params.id} has already ended") from None
        except Exception as err:
            raise _a2a_error(err) from None

    async def on_subscribe_to_task(
        self, params: a2a.SubscribeToTaskRequest, context: ServerCallContext
    ) -> AsyncGenerator[A2AEvent]:
        """A task has no work running between messages: subscribing yields its current state."""
        yield self._task(await self._snapshot(params.id))

    async def on_list_tasks(
        self, params: a2a.ListTasksRequest, context: ServerCallContext
    ) -> a2a.ListTasksResponse:
        raise UnsupportedOperationError(
            message="listing tasks is not supported: tasks are sessions, private to the client that "
            "started them",
            data={"fix": "keep the task ids SendMessage returned and read each with GetTask"},
        )

    async def on_get_extended_agent_card(
        self, params: a2a.GetExtendedAgentCardRequest, context: ServerCallContext
    ) -> a2a.AgentCard:
        raise UnsupportedOperationError(message="this agent has no extended card; read its public card")

    async def on_create_task_push_notification_config(
        self, params: a2a.TaskPushNotificationConfig, context: ServerCallContext
    ) -> a2a.TaskPushNotificationConfig:
        raise PushNotificationNotSupportedError()

    async def on_get_task_push_notification_config(
        self, params: a2a.GetTaskPushNotificationConfigRequest, context: ServerCallContext
    ) -> a2a.TaskPushNotificationConfig:
        raise PushNotificationNotSupportedError()

    async def on_list_task_push_notification_configs(
        self, params: a2a.ListTaskPushNotificationConfigsRequest, context: ServerCallContext
    ) -> a2a.ListTaskPushNotificationConfigsResponse:
        raise PushNotificationNotSupportedError()

    async def on_delete_task_push_notification_config(
        self, params: a2a.DeleteTaskPushNotificationConfigRequest, context: ServerCallContext
    ) -> None:
        raise PushNotificationNotSupportedError()


def a2a_routes(conversations: Conversations, *, api_key_required: bool) -> list[BaseRoute]:
    """The card and JSON-RPC routes of every hosted agent, and the root card (the first agent's)."""
    routes: list[BaseRoute] = []
    hosted = list(conversations.agents)

    def card_endpoint(agent: HostedAgent) -> Any:
        async def card(request: Request) -> Response:
            url = str(request.base_url).rstrip("/") + f"/a2a/{agent.name}"
            body = agent_card_to_dict(agent_card(agent, url, api_key_required=api_key_required))
            return JSONResponse(body, headers={"Cache-Control": "no-cache"})

        return card

    for agent in hosted:
        dispatcher = JsonRpcDispatcher(SessionTaskHandler(conversations, agent.name), enable_v0_3_compat=True)
        routes.append(Route(f"/a2a/{agent.name}", dispatcher.handle_requests, methods=["POST"]))
        routes.append(Route(f"/a2a/{agent.name}{_CARD_PATH}", card_endpoint(agent), methods=["GET"]))
    if hosted:
        routes.append(Route(_CARD_PATH, card_endpoint(hosted[0]), methods=["GET"]))
    return routes
