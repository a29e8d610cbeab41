"""Hosted agents as MCP tools, driven end to end by the official ``mcp`` client: over streamable HTTP
(``/mcp/NAME`` on a real server on loopback) and over stdio (a real ``slotgraph mcp`` process).

A Bella Notte booking is played through the tools, the session id carried between calls; then bad input
(missing arguments, unknown and finished sessions, the API key) answered as MCP tool errors or HTTP 401, and
the command's own usage errors.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from slotgraph.server import ServerSettings, open_session_store

from .live import live_server
from .support import BELLA, app_for

mcp = pytest.importorskip("mcp", reason="the MCP tests need the 'mcp' SDK (slotgraph[mcp])")

BOOKING = ("A table for 4 next Friday", "yes", "7:30 pm", "yes", "under Chen", "no special requests", "yes")
KEY = "mcp-test-key"


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with live_server(app_for(store=open_session_store("memory://"))) as url:
        yield url


async def _book(client: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Play the booking through the tools; every reply and the final get_collected_slots."""
    first = await client.call_tool("start_conversation", {"message": BOOKING[0]})
    assert not first.is_error, first.content
    replies = [first.structured_content]
    session_id = replies[0]["session_id"]
    for text in BOOKING[1:]:
        result = await client.call_tool("send_message", {"session_id": session_id, "message": text})
        assert not result.is_error, result.content
        replies.append(result.structured_content)
    collected = await client.call_tool("get_collected_slots", {"session_id": session_id})
    return replies, collected.structured_content


def _check_booking(replies: list[dict[str, Any]], collected: dict[str, Any]) -> None:
    assert replies[0]["reply"] == "Just to confirm — 4 guests, on July 17th. Is that correct?"
    assert replies[0]["outcome"] == "waiting"
    assert replies[4]["asking"] == "special_requests"
    assert replies[-1]["reply"] == "Your reservation is confirmed! Your confirmation number is BN-4ED3A8."
    assert replies[-1]["outcome"] == "completed"
    assert len({reply["session_id"] for reply in replies}) == 1
    assert collected["status"] == "complete" and collected["outcome"] == "completed"
    assert collected["slots"]["party_size"] == 4 and collected["slots"]["guest_name"] == "Chen"
    assert collected["task_results"]["BookReservation"]["confirmation_number"] == "BN-4ED3A8"


def test_the_tools_describe_the_agent(base: str) -> None:
    async def main() -> Any:
        async with mcp.Client(f"{base}/mcp/bella_notte") as client:
            return client.server_info, client.instructions, await client.list_tools()

    info, instructions, listed = asyncio.run(main())
    assert info is not None and info.name == "bella_notte"
    assert "send_message" in (instructions or "")
    tools = {tool.name: tool for tool in listed.tools}
    assert set(tools) == {"start_conversation", "send_message", "get_collected_slots", "end_conversation"}
    assert tools["send_message"].input_schema["required"] == ["session_id", "message"]
    assert "reservations" in (tools["start_conversation"].description or "")
    assert "reply" in tools["send_message"].output_schema["properties"]


def test_a_booking_over_streamable_http(base: str) -> None:
    async def main() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        async with mcp.Client(f"{base}/mcp/bella_notte") as client:
            return await _book(client)

    replies, collected = asyncio.run(main())
    _check_booking(replies, collected)
    stored = httpx.get(f"{base}/v1/sessions/{collected['session_id']}").json()
    assert stored["turns"] == len(BOOKING)  # an ordinary server session


def test_bad_calls_are_tool_errors_and_change_nothing(base: str) -> None:
    async def main() -> None:
        async with mcp.Client(f"{base}/mcp/bella_notte") as client:
            missing = await client.call_tool("send_message", {"session_id": "x"})
            assert missing.is_error and "message" in missing.content[0].text
            assert "Field required" in missing.content[0].text
            unknown = await client.call_tool("send_message", {"session_id": "nope", "message": "hi"})
            assert unknown.is_error
            assert "no session 'nope'" in unknown.content[0].text
            assert "call start_conversation" in unknown.content[0].text
            started = await client.call_tool("start_conversation", {"message": "A table for 2"})
            session_id = started.structured_content["session_id"]
            ended = await client.call_tool("end_conversation", {"session_id": session_id})
            assert ended.structured_content["outcome"] == "ended"
            late = await client.call_tool("send_message", {"session_id": session_id, "message": "tomorrow"})
            assert late.is_error and "takes no more messages" in late.content[0].text
            again = await client.call_tool("end_conversation", {"session_id": session_id})
            assert again.is_error and "has ended" in again.content[0].text
            read = await client.call_tool("get_collected_slots", {"session_id": session_id})
            assert read.structured_content["outcome"] == "ended"

    asyncio.run(main())


def test_the_api_key_guards_the_mcp_endpoint() -> None:
    app = app_for(store=open_session_store("memory://"), settings=ServerSettings(api_key=KEY))
    with live_server(app) as url:
        refused = httpx.post(f"{url}/mcp/bella_notte", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert refused.status_code == 401

        async def main() -> Any:
            from mcp.client.streamable_http import streamable_http_client

            async with (
                httpx.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}) as http,
                mcp.Client(streamable_http_client(f"{url}/mcp/bella_notte", http_client=http)) as client,
            ):
                return await client.call_tool("start_conversation", {"message": "A table for 2"})

        result = asyncio.run(main())
    assert not result.is_error and result.structured_content["outcome"] == "waiting"


def _slotgraph() -> str:
    found = shutil.which("slotgraph", path=str(Path(sys.executable).parent))
    assert found is not None, "the slotgraph command is installed with the package"
    return found


def test_a_booking_over_stdio_with_slotgraph_mcp(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'sessions.db'}"
    params = mcp.StdioServerParameters(
        command=_slotgraph(),
        args=["mcp", str(BELLA), "--today", "2026-07-10", "--seed", "0", "--store", store],
        cwd=tmp_path,
    )

    async def main() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        async with mcp.Client(params) as client:
            return await _book(client)

    replies, collected = asyncio.run(main())
    _check_booking(replies, collected)
    assert (tmp_path / "sessions.db").exists()  # --store kept them


def test_slotgraph_mcp_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from slotgraph.cli.mcp_command import serve_mcp

    assert serve_mcp(tmp_path / "missing") == 1
    assert "no such file or directory" in capsys.readouterr().err
    assert serve_mcp(BELLA, today="10/07/2026") == 2
    assert "--today '10/07/2026' is not a date" in capsys.readouterr().err
    assert serve_mcp(BELLA, store="nosuch://x") == 2
