"""Hosted agents over A2A, driven end to end by the official ``a2a-sdk`` client against a real server.

A Bella Notte booking is played through the SDK's JSON-RPC client (A2A 1.0, with and without streaming,
and the 0.3 transport speaking ``message/send``), then bad input: unknown tasks, finished tasks, malformed
JSON-RPC, the API key. The server is uvicorn on a loopback port (tests/server/live.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from google.protobuf.json_format import MessageToDict

from slotgraph.server import ServerSettings, open_session_store

from .live import live_server
from .support import app_for

pytest.importorskip("a2a.client", reason="the A2A tests need a2a-sdk (slotgraph[a2a])")
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory, create_client
from a2a.types import a2a_pb2 as a2a
from a2a.utils.errors import (
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
)

BOOKING = ("A table for 4 next Friday", "yes", "7:30 pm", "yes", "under Chen", "no special requests", "yes")
KEY = "a2a-test-key"


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with live_server(app_for(store=open_session_store("memory://"))) as url:
        yield url


def _message(text: str, task_id: str = "", context_id: str = "") -> a2a.SendMessageRequest:
    message = a2a.Message(role=a2a.ROLE_USER, message_id=f"m-{text}", parts=[a2a.Part(text=text)])
    if task_id:
        message.task_id = task_id
    if context_id:
        message.context_id = context_id
    return a2a.SendMessageRequest(message=message)


@asynccontextmanager
async def _client(url: str, *, streaming: bool, headers: dict[str, str] | None = None) -> AsyncIterator[Any]:
    """The SDK's client for the agent at ``url`` (its card resolved from there); ``headers`` on every call."""
    async with httpx.AsyncClient(headers=headers) as http:
        client = await create_client(url, client_config=ClientConfig(streaming=streaming, httpx_client=http))
        async with client:
            yield client


async def _send(client: Any, request: a2a.SendMessageRequest) -> list[dict[str, Any]]:
    return [MessageToDict(event) async for event in client.send_message(request)]


def _said(status: dict[str, Any]) -> str:
    return "".join(part.get("text", "") for part in status.get("message", {}).get("parts", []))


def test_the_cards_describe_each_agent(base: str) -> None:
    async def main() -> tuple[a2a.AgentCard, a2a.AgentCard]:
        async with httpx.AsyncClient() as http:
            root = await A2ACardResolver(http, base).get_agent_card()
            own = await A2ACardResolver(http, f"{base}/a2a/bella_notte").get_agent_card()
        return root, own

    root, own = asyncio.run(main())
    assert root == own
    assert own.name == "bella_notte"
    assert "reservations" in own.description
    assert own.capabilities.streaming
    assert {skill.id for skill in own.skills} == {"FindAvailableTimes", "BookReservation"}
    find = next(skill for skill in own.skills if skill.id == "FindAvailableTimes")
    assert "party size" in find.description and "date" in find.description
    urls = {(i.protocol_version, i.url) for i in own.supported_interfaces}
    assert urls == {("1.0", f"{base}/a2a/bella_notte"), ("0.3", f"{base}/a2a/bella_notte")}
    assert not own.security_requirements  # no API key on this server


@pytest.mark.parametrize("streaming", [False, True], ids=["send", "stream"])
def test_a_booking_completes_with_the_results_as_data(base: str, streaming: bool) -> None:
    async def main() -> tuple[list[list[dict[str, Any]]], a2a.Task]:
        turns: list[list[dict[str, Any]]] = []
        task_id = ""
        async with _client(f"{base}/a2a/bella_notte", streaming=streaming) as client:
            for text in BOOKING:
                events = await _send(client, _message(text, task_id))
                task_id = task_id or events[0]["task"]["id"]
                turns.append(events)
            task = await client.get_task(a2a.GetTaskRequest(id=task_id))
        return turns, task

    turns, task = asyncio.run(main())

    def last_status(events: list[dict[str, Any]]) -> dict[str, Any]:
        final = events[-1]
        return final["statusUpdate"]["status"] if "statusUpdate" in final else final["task"]["status"]

    first = last_status(turns[0])
    assert first["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert _said(first) == "Just to confirm — 4 guests, on July 17th. Is that correct?"
    asking = last_status(turns[4])
    assert asking["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert _said(asking) == "Do you have any special requests or dietary needs we should know about?"
    done = last_status(turns[-1])
    assert done["state"] == "TASK_STATE_COMPLETED"
    assert "BN-4ED3A8" in _said(done)
    if streaming:  # the task first (working), tool calls as working updates, the artifact, the final status
        kinds = [next(iter(event)) for event in turns[-1]]
        assert kinds[0] == "task" and turns[-1][0]["task"]["status"]["state"] == "TASK_STATE_WORKING"
        assert kinds[-2:] == ["artifactUpdate", "statusUpdate"]
        assert any(
            e.get("statusUpdate", {}).get("metadata", {}).get("slotgraph_event", {}).get("name")
            == "book_reservation"
            for e in turns[-1]
        )
    fetched = MessageToDict(task)
    assert fetched["status"]["state"] == "TASK_STATE_COMPLETED"
    (artifact,) = fetched["artifacts"]
    data = artifact["parts"][0]["data"]
    assert artifact["parts"][0]["mediaType"] == "application/json"
    assert data["task_results"]["BookReservation"] == {"success": True, "confirmation_number": "BN-4ED3A8"}
    assert data["slots"]["guest_name"] == "Chen" and data["slots"]["selected_time"] == "19:30"
    assert fetched["metadata"]["slotgraph"]["status"] == "complete"
    assert len(task.history) == 2 * len(BOOKING)
    assert task.history[0].parts[0].text == BOOKING[0] and task.history[0].role == a2a.ROLE_USER


def test_the_0_3_transport_speaks_message_send(base: str) -> None:
    """A 0.3 client (``message/send``, ``tasks/get``) on the same endpoint, chosen from the card."""

    async def main() -> tuple[dict[str, Any], a2a.Task]:
        async with httpx.AsyncClient() as http:
            card = await A2ACardResolver(http, f"{base}/a2a/bella_notte").get_agent_card()
        legacy = [i for i in card.supported_interfaces if i.protocol_version == "0.3"]
        del card.supported_interfaces[:]
        card.supported_interfaces.extend(legacy)
        client = ClientFactory(ClientConfig(streaming=False)).create(card)
        async with client:
            assert type(client._transport).__name__ == "CompatJsonRpcTransport"
            (event,) = await _send(client, _message("A table for 4 next Friday"))
            task = await client.get_task(a2a.GetTaskRequest(id=event["task"]["id"]))
        return event, task

    event, task = asyncio.run(main())
    assert event["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert task.status.state == a2a.TASK_STATE_INPUT_REQUIRED


def test_an_escalation_ends_the_task_rejected_with_what_was_collected(base: str) -> None:
    async def main() -> list[dict[str, Any]]:
        async with _client(f"{base}/a2a/bella_notte", streaming=False) as client:
            first = (await _send(client, _message("A table for 40 people")))[0]["task"]
            await _send(client, _message("40", first["id"]))
            return await _send(client, _message("40", first["id"]))

    (last,) = asyncio.run(main())
    task = last["task"]
    assert task["status"]["state"] == "TASK_STATE_REJECTED"
    assert "call us at 555-0100" in _said(task["status"])
    assert task["metadata"]["slotgraph"]["status"] == "escalated"
    assert task["artifacts"][0]["name"] == "results"


def test_cancel_ends_the_session_and_the_task_takes_no_more_messages(base: str) -> None:
    async def main() -> None:
        async with _client(f"{base}/a2a/bella_notte", streaming=False) as client:
            task = (await _send(client, _message("A table for 2", context_id="ctx-1")))[0]["task"]
            assert task["contextId"] == "ctx-1"
            canceled = await client.cancel_task(a2a.CancelTaskRequest(id=task["id"]))
            assert canceled.status.state == a2a.TASK_STATE_CANCELED
            assert canceled.context_id == "ctx-1"
            with pytest.raises(UnsupportedOperationError, match="terminal state TASK_STATE_CANCELED"):
                await _send(client, _message("tomorrow", task["id"]))
            with pytest.raises(TaskNotCancelableError):
                await client.cancel_task(a2a.CancelTaskRequest(id=task["id"]))
            # the same session, seen through the HTTP API: ended, the one turn kept
            stored = httpx.get(f"{base}/v1/sessions/{task['id']}").json()
            assert stored["ended"] is True and stored["turns"] == 1

    asyncio.run(main())


def test_unknown_tasks_and_mismatched_contexts_are_a2a_errors(base: str) -> None:
    async def main() -> None:
        async with _client(f"{base}/a2a/bella_notte", streaming=True) as client:
            with pytest.raises(TaskNotFoundError, match="no session 'no-such-task'"):
                await client.get_task(a2a.GetTaskRequest(id="no-such-task"))
            with pytest.raises(TaskNotFoundError):
                await _send(client, _message("hello", "no-such-task"))
            with pytest.raises(TaskNotFoundError):
                await client.cancel_task(a2a.CancelTaskRequest(id="no-such-task"))
            task = (await _send(client, _message("A table for 2")))[0]["task"]
            with pytest.raises(Exception, match="is not the context of task"):
                await _send(client, _message("tomorrow", task["id"], context_id="another"))

    asyncio.run(main())


def test_malformed_json_rpc_gets_json_rpc_errors(base: str) -> None:
    url = f"{base}/a2a/bella_notte"
    headers = {"A2A-Version": "1.0"}
    not_json = httpx.post(url, content=b"{not json", headers={"content-type": "application/json", **headers})
    assert not_json.json()["error"]["code"] == -32700
    unknown = httpx.post(url, json={"jsonrpc": "2.0", "id": 7, "method": "NoSuchMethod"}, headers=headers)
    assert unknown.json() == {"jsonrpc": "2.0", "id": 7, "error": unknown.json()["error"]}
    assert unknown.json()["error"]["code"] == -32601
    no_text = httpx.post(
        url,
        json={
            "jsonrpc": "2.0",
            "id": 8,
            "method": "SendMessage",
            "params": {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"data": {"a": 1}}]}},
        },
        headers=headers,
    ).json()
    assert no_text["error"]["code"] == -32602
    assert "no text part" in no_text["error"]["message"]


@pytest.fixture(scope="module")
def keyed() -> Iterator[str]:
    app = app_for(store=open_session_store("memory://"), settings=ServerSettings(api_key=KEY))
    with live_server(app) as url:
        yield url


def test_the_api_key_guards_json_rpc_and_the_card_declares_it(keyed: str) -> None:
    async def main() -> None:
        async with httpx.AsyncClient() as http:
            card = await A2ACardResolver(http, f"{keyed}/a2a/bella_notte").get_agent_card()
        assert set(card.security_schemes) == {"bearer", "apiKey"}
        assert card.security_schemes["apiKey"].api_key_security_scheme.name == "X-API-Key"
        async with _client(f"{keyed}/a2a/bella_notte", streaming=False) as anonymous:
            with pytest.raises(Exception, match="401"):
                await _send(anonymous, _message("A table for 2"))
        async with _client(f"{keyed}/a2a/bella_notte", streaming=False, headers={"X-API-Key": KEY}) as c:
            events = await _send(c, _message("A table for 2"))
        assert events[0]["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"

    asyncio.run(main())
