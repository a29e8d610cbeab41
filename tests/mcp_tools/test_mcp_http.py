"""Executors served by a real MCP server over Streamable HTTP on a loopback port."""

from __future__ import annotations

import datetime
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.runtime.test_bella_notte import _collect_until_booking, _opening, _time_and_name

from slotgraph.runtime import Agent, ScriptedModel

from .conftest import SERVER, write_agent

uvicorn = pytest.importorskip("uvicorn")
NOW = datetime.datetime(2026, 7, 10, 12, 0)


def _server_module() -> object:
    import importlib.util

    spec = importlib.util.spec_from_file_location("bella_mcp_server_http", SERVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def mcp_url() -> Iterator[str]:
    """The Bella MCP server on a free loopback port, served by uvicorn in a thread."""
    app = _server_module().server.streamable_http_app()  # type: ignore[attr-defined]
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)  # connections queue until uvicorn accepts them: no need to wait for it to start
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def test_a_booking_through_an_http_mcp_server(mcp_url: str, tmp_path: Path) -> None:
    agent = Agent.load(write_agent(tmp_path, mcp_url))
    try:
        assert agent.tools.get("find_available_times") is not None
        model = ScriptedModel([*_opening(), *_time_and_name()])
        session = agent.session(model=model, clock=lambda: NOW, seed=0)
        _collect_until_booking(session)
        booked = session.send("Yes")
        assert [e.name for e in booked.tool_calls] == ["confirm_pending", "book_reservation"]
        assert session.status == "complete"
        assert session.state["filled"]["confirmation_number"].startswith("BN-")
        model.assert_complete()
    finally:
        agent.close()
