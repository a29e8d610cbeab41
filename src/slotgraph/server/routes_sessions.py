"""``/v1/sessions``: create a session, send a message (JSON or a server-sent event stream), read a session.

The stream (``POST /v1/sessions/{id}/messages:stream``) answers ``text/event-stream``: one SSE event per turn
event (``event: <kind>``, ``data: <json>``) sent as it happens — a tool call before the model's next reply —
then ``event: turn`` with the turn's summary and ``event: done``. Errors found before the turn starts (an
unknown or ended session) are ordinary problem+json responses; an error during the turn ends the stream with
``event: error`` carrying the same problem document (never internals). A client that drops the stream does
not cancel the turn: it plays to the end and is saved (its events are then simply not sent).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import StreamingResponse

from slotgraph.runtime import Event, TurnStep
from slotgraph.runtime.durable_record import session_status
from slotgraph.server.dependencies import get_service
from slotgraph.server.problems import problem_for
from slotgraph.server.schemas import (
    CreatedSession,
    CreateSession,
    Problem,
    SendMessage,
    SessionDetail,
    StepUsage,
    TurnReply,
    TurnStepView,
)
from slotgraph.server.sessions import SessionRecord, SessionService, TurnOutcome
from slotgraph.server.views import (
    agents_view,
    dag_in_play,
    public_event,
    public_state,
    session_view,
    transcript,
)

__all__ = ["sessions_router"]


Service = Annotated[SessionService, Depends(get_service)]

_PROBLEMS: dict[int | str, dict[str, Any]] = {
    status: {"model": Problem, "content": {"application/problem+json": {}}}
    for status in (401, 404, 409, 413, 422, 500)
}


def _step(step: TurnStep, positions: dict[int, int]) -> TurnStepView:
    return TurnStepView(
        index=step.index,
        kind=step.kind,
        phase=step.phase,
        reason=step.reason,
        directive=step.directive,
        visible_tools=list(step.visible_tools),
        hidden_tools=list(step.hidden_tools),
        usage=StepUsage(
            prompt_tokens=step.usage.prompt_tokens, completion_tokens=step.usage.completion_tokens
        ),
        notes=dict(step.notes),
        events=[positions[id(e)] for e in step.events if id(e) in positions],
        duration_ms=step.duration_ms,
        engine_ms=step.engine_ms,
        model_ms=step.model_ms,
    )


def _reply(session_id: str, outcome: TurnOutcome) -> TurnReply:
    result = outcome.result
    agent = outcome.agent or outcome.hosted.agent
    dag, state, topic = dag_in_play(agent, result.state, result.topic_states, result.variables)
    last = result.last_step
    view = session_view(
        dag,
        state,
        hidden_tools=sorted(result.hidden_tools),
        visible_tools=last.visible_tools if last is not None else None,
        directive=result.directive,
        variables=result.variables,
    )
    if topic is not None:
        view["topic_dag"] = topic
    if outcome.agent_states is not None:
        view |= {"agent": agent.name, "agents": agents_view(outcome.agent_states)}
    positions = {id(event): index for index, event in enumerate(result.events)}
    return TurnReply(
        session_id=session_id,
        text=result.text,
        events=[public_event(e) for e in result.events],
        steps=[_step(step, positions) for step in result.steps],
        status=result.status,
        preempted=result.preempted,
        model_calls=result.model_calls,
        ended=result.ended,
        view=view,  # type: ignore[arg-type]  # pydantic validates the dict into SessionView
    )


def _stored_view(stored: SessionRecord, variables: dict[str, Any]) -> dict[str, Any]:
    dag, state, topic = dag_in_play(stored.agent, stored.state, stored.topic_states, variables)
    view = session_view(dag, state, variables=variables)
    if topic is not None:
        view["topic_dag"] = topic
    states = stored.agent_states
    if states is not None:
        view |= {"agent": stored.agent.name, "agents": agents_view(states)}
    return view


def sessions_router() -> APIRouter:
    """A new router with this module's endpoints."""
    router = APIRouter(prefix="/v1/sessions", tags=["sessions"])

    @router.post("", status_code=201, response_model=CreatedSession, responses=_PROBLEMS)
    async def create_session(body: CreateSession, service: Service) -> CreatedSession:
        """Start a session with a hosted agent; the first message starts the conversation."""
        session_id = await service.create(
            body.agent,
            event_data=body.event_data,
            channel=body.channel,
            variables=body.variables,
            metadata=body.metadata,
        )
        return CreatedSession(session_id=session_id, agent=body.agent)

    @router.post("/{session_id}/messages", response_model=TurnReply, responses=_PROBLEMS)
    async def send_message(session_id: str, body: SendMessage, service: Service) -> TurnReply:
        """Play one user turn and return its text, events, status and the engine's view."""
        outcome = await service.turn(session_id, body.text)
        return _reply(session_id, outcome)

    def _sse(event: str, data: Any) -> bytes:
        return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()

    @router.post(
        "/{session_id}/messages:stream",
        responses={
            **_PROBLEMS,
            200: {
                "content": {"text/event-stream": {}},
                "description": "one SSE event per turn event, then `turn` and `done`",
            },
        },
    )
    async def stream_message(  # one producer task feeds the queue; the response drains it as events arrive
        session_id: str, body: SendMessage, service: Service
    ) -> StreamingResponse:
        """Play one user turn and stream its events as server-sent events, as they happen."""
        await service.ensure_open(session_id)  # unknown or ended sessions: a plain problem+json response
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()

        async def forward(event: Event) -> None:
            data = public_event(event)
            await queue.put(_sse(str(data["kind"]), data))

        async def play() -> None:
            try:
                outcome = await service.turn(session_id, body.text, on_event=forward)
                await queue.put(_sse("turn", _reply(session_id, outcome).model_dump(exclude={"events"})))
            except Exception as err:  # every failure becomes a problem document, never internals
                await queue.put(_sse("error", problem_for(err)))
            finally:
                await queue.put(None)

        async def events() -> AsyncIterator[bytes]:
            task = asyncio.create_task(play())
            try:
                while (chunk := await queue.get()) is not None:
                    yield chunk
                yield _sse("done", {})
            finally:
                # a client that went away cancels this generator, never the turn: the service plays it
                # to the end, saves it and releases the session's lock (SessionService.turn)
                await asyncio.shield(task)

        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return StreamingResponse(events(), media_type="text/event-stream", headers=headers)

    @router.get("/{session_id}", response_model=SessionDetail, responses=_PROBLEMS)
    async def read_session(session_id: str, service: Service) -> SessionDetail:
        """The session's state, status and transcript."""
        stored = await service.read(session_id)
        state = public_state(stored.state)
        return SessionDetail(
            session_id=session_id,
            agent=stored.hosted.name,
            status=session_status(stored.record),
            ended=stored.ended,
            turns=int(stored.record.get("turns", 0) or 0),
            state=state,
            transcript=transcript(stored.history),
            view=_stored_view(stored, service.variables(stored)),  # type: ignore[arg-type]
        )

    return router
