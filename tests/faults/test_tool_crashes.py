"""A tool that raises ``SystemExit`` or ``KeyboardInterrupt`` fails its call; the server and its other
sessions go on.

Such an exception used to leave the worker thread (``run_in_executor``) into the event loop, which stopped
uvicorn; under ``--workers 2`` the supervisor then stopped both workers, and every other session got
connection refused. Here a real ``slotgraph serve`` (one worker, then two) hosts an agent whose sync setter
raises ``SystemExit(3)`` or ``KeyboardInterrupt`` and whose async setter raises ``SystemExit`` on given
values. Each tool notes the process it raised in before raising, so with two workers the test goes on
until both workers have raised (connections are spread by the kernel), then checks that every worker is
still serving: the failed call is a failed tool result, and a fresh session completes.
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from .servers import WAIT, Server

AGENT_YAML = """\
name: crasher
instruction: You take small orders.
model: offline
tools: tools.py
dag:
  slots:
    - {name: guests, setter: set_guests, ask: "How many guests are coming?"}
    - {name: day, setter: set_day, ask: "Which date would you like?"}
"""

TOOLS_PY = '''\
import os
from pathlib import Path

RAISED = Path(os.environ["FAULT_DIR"])


def _note(kind):
    (RAISED / f"{kind}-{os.getpid()}").write_text("raised")


def set_guests(guests: int) -> dict:
    """Record how many guests are coming.

    Args:
        guests: The number of guests, as a whole number.
    """
    if guests == 13:
        _note("sync-system-exit")
        raise SystemExit(3)
    if guests == 14:
        _note("sync-keyboard-interrupt")
        raise KeyboardInterrupt
    return {"stored": True, "value": guests}


async def set_day(day: str) -> dict:
    """Record the date in YYYY-MM-DD format.

    Args:
        day: The date, as YYYY-MM-DD.
    """
    if day.startswith("1999"):
        _note("async-system-exit")
        raise SystemExit("the tool says goodbye")
    return {"stored": True, "value": day}
'''

CRASHES = {
    # kind: (the messages that lead there, the tool, what the failed result says it raised)
    "sync-system-exit": (["Hi", "13 guests"], "set_guests", "SystemExit: 3"),
    "sync-keyboard-interrupt": (["Hi", "14 guests"], "set_guests", "KeyboardInterrupt"),
    "async-system-exit": (["Hi", "4 guests", "1999-03-04"], "set_day", "SystemExit: the tool says goodbye"),
}
MAX_TRIES = 40
"""Crashes tried per kind until every worker has had one (the kernel spreads connections over workers)."""


def start_session(server: Server) -> str:
    response = httpx.post(f"{server.base}/v1/sessions", json={"agent": "crasher"}, timeout=WAIT)
    assert response.status_code == 201, response.text
    return str(response.json()["session_id"])


def say(server: Server, session_id: str, text: str) -> dict[str, object]:
    # a new connection per message, so that with two workers either may answer
    response = httpx.post(
        f"{server.base}/v1/sessions/{session_id}/messages", json={"text": text}, timeout=WAIT
    )
    assert response.status_code == 200, response.text
    reply: dict[str, object] = response.json()
    return reply


def raised_in(faults: Path, kind: str) -> set[str]:
    return {file.name.rsplit("-", 1)[1] for file in faults.glob(f"{kind}-*")}


@pytest.mark.parametrize("workers", [1, 2])
def test_a_tool_raising_system_exit_or_keyboard_interrupt_fails_its_call_and_the_server_goes_on(
    workers: int, tmp_path: Path
) -> None:
    agent = tmp_path / "crasher"
    agent.mkdir()
    (agent / "agent.yaml").write_text(AGENT_YAML)
    (agent / "tools.py").write_text(TOOLS_PY)
    faults = tmp_path / "faults"
    faults.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "SLOTGRAPH_API_KEY"}
    env["FAULT_DIR"] = str(faults)
    log = tmp_path / "server.log"
    store = f"sqlite:///{tmp_path / 'sessions.db'}"
    server = Server(agent, store, env, options=["--workers", str(workers)], log=log).start()
    try:
        assert server.proc is not None
        for kind, (messages, tool, error) in CRASHES.items():
            for _ in range(MAX_TRIES):
                session_id = start_session(server)
                *before, last = messages
                for text in before:
                    say(server, session_id, text)
                reply = say(server, session_id, last)
                assert server.proc.poll() is None, f"{kind}: the server exited"
                results = [e for e in reply["events"] if e["kind"] == "tool_result"]  # type: ignore[union-attr]
                assert [(e["name"], e["failed"]) for e in results] == [(tool, True)], reply
                if len(raised_in(faults, kind)) == workers:
                    break
            assert len(raised_in(faults, kind)) == workers, f"{kind}: not every worker raised"
            assert f"tool {tool} raised" in log.read_text() and error in log.read_text()
            # every worker still serves: fresh sessions complete, whichever worker answers
            for _ in range(2 * workers):
                fresh = start_session(server)
                assert say(server, fresh, "Hi")["text"] == "How many guests are coming?"
                assert say(server, fresh, "4 guests")["text"] == "Which date would you like?"
                done = say(server, fresh, "2026-07-17")["events"]
                stored = [e["result"] for e in done if e["kind"] == "tool_result"]  # type: ignore[union-attr]
                assert stored == [{"stored": True, "value": "2026-07-17"}]
        assert httpx.get(f"{server.base}/readyz", timeout=WAIT).status_code == 200
        assert server.proc.poll() is None
    finally:
        server.stop()
