"""A server process killed with SIGKILL in the middle of a turn loses only that turn.

Real processes: ``slotgraph serve`` on a free loopback port with a SQLite store, an agent whose tool blocks
(after signalling through a file) on the third turn, ``kill -9``, a fresh ``slotgraph serve`` on the same
store: the session reads as of its last completed turn, and the conversation goes on.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.slow  # a plain `pytest` skips it; `make test` and CI run it

AGENT_YAML = """\
name: counter
instruction: You take small orders.
model: offline
tools: tools.py
dag:
  slots:
    - {name: guests, setter: set_guests, ask: "How many guests are coming?"}
    - {name: day, setter: set_day, ask: "Which date would you like?"}
  tasks:
    - {name: Book, tool: book, inputs: [guests, day], terminal: true, then_say: "Booked for {guests}."}
"""

TOOLS_PY = '''\
import os
import threading
from pathlib import Path


def set_guests(guests: int) -> dict:
    """Record how many guests are coming.

    Args:
        guests: The number of guests, as a whole number.
    """
    return {"stored": True, "value": guests}


def set_day(day: str) -> dict:
    """Record the date in YYYY-MM-DD format.

    Args:
        day: The date, as YYYY-MM-DD.
    """
    flag = os.environ.get("BLOCK_FLAG")
    if flag:  # the crash test: say we are inside the tool, then never return
        Path(flag).write_text("inside the tool")
        threading.Event().wait()
    return {"stored": True, "value": day}


def book(guests: int, day: str) -> dict:
    """Book it."""
    return {"success": True}
'''


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until(predicate, what: str, seconds: float = 60) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not predicate():  # bounded polling on observable state
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        threading.Event().wait(0.05)


class Server:
    def __init__(self, agent: Path, store: str, port: int, env: dict[str, str]) -> None:
        self.base = f"http://127.0.0.1:{port}"
        cmd = [sys.executable, "-m", "slotgraph", "serve", str(agent), "--store", store, "--port", str(port)]
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def ready() -> bool:
            assert self.proc.poll() is None, "the server exited"
            try:
                return httpx.get(f"{self.base}/readyz", timeout=1.0).status_code == 200
            except httpx.TransportError:
                return False

        _wait_until(ready, "the server to come up")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    agent = tmp_path / "counter"
    agent.mkdir()
    (agent / "agent.yaml").write_text(AGENT_YAML)
    (agent / "tools.py").write_text(TOOLS_PY)
    return agent


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for server in started:
        server.stop()


def test_a_server_killed_mid_turn_loses_only_that_turn(
    agent_dir: Path, tmp_path: Path, servers: list[Server]
) -> None:
    store = f"sqlite:///{tmp_path / 'sessions.db'}"
    flag = tmp_path / "inside-the-tool"
    env = {k: v for k, v in os.environ.items() if k != "SLOTGRAPH_API_KEY"}
    port = _free_port()
    servers.append(Server(agent_dir, store, port, {**env, "BLOCK_FLAG": str(flag)}))
    first = servers[-1]
    session_id = httpx.post(f"{first.base}/v1/sessions", json={"agent": "counter"}).json()["session_id"]
    messages = f"{first.base}/v1/sessions/{session_id}/messages"
    assert "How many guests" in httpx.post(messages, json={"text": "Hi"}, timeout=30).json()["text"]
    assert "Which date" in httpx.post(messages, json={"text": "4 guests"}, timeout=30).json()["text"]

    # The third turn blocks inside set_day; kill -9 the server while it is there.
    def third_turn() -> None:
        with contextlib.suppress(httpx.TransportError):  # the server dies under this request
            httpx.post(messages, json={"text": "2026-07-17"}, timeout=60)

    request = threading.Thread(target=third_turn)
    request.start()
    _wait_until(flag.exists, "the turn to reach the blocking tool")
    os.kill(first.proc.pid, signal.SIGKILL)
    first.proc.wait(timeout=30)
    request.join(timeout=60)

    # A fresh server on the same store: the session is as of turn 2, and it continues.
    servers.append(Server(agent_dir, store, _free_port(), env))
    second = servers[-1]
    stored = httpx.get(f"{second.base}/v1/sessions/{session_id}").json()
    assert stored["turns"] == 2
    assert stored["state"]["filled"] == {"guests": 4}
    assert stored["state"]["pending"] == {} and stored["status"] == "in_progress"
    reply = httpx.post(
        f"{second.base}/v1/sessions/{session_id}/messages", json={"text": "2026-07-17"}, timeout=60
    ).json()
    assert reply["status"] == "complete" and reply["text"] == "Booked for 4."
