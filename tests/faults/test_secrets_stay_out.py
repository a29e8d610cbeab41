"""Secrets stay out of what ``slotgraph serve`` prints and logs, and out of what it answers.

A real server on a PostgreSQL URL carrying a password (the test cluster trusts loopback, so any password
connects) and an agent whose model is an OpenAI-compatible endpoint on loopback that refuses the key with a
body quoting it, as OpenAI's does. The banner used to print the store URL verbatim and the provider's body
was logged verbatim; now the banner shows ``postgres:***@``, and neither the password nor the key appears
in the server's output or in the HTTP answer (``502 model_failed``).
"""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from .servers import WAIT, Server, wait_until

PASSWORD = "hunter2-store-password"
KEY = "sk-proj-Abcdefghijklmnop0123456789"

AGENT_YAML = """\
name: keyed
instruction: You take small orders.
model: openai:gpt-test
dag:
  slots:
    - {name: guests, setter: set_guests, ask: "How many guests are coming?"}
tools: tools.py
"""

TOOLS_PY = '''\
def set_guests(guests: int) -> dict:
    """Record how many guests are coming."""
    return {"stored": True, "value": guests}
'''


class _Refusing(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint that refuses every key, quoting it."""

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self.rfile.read(length)
        sent = self.headers.get("authorization", "").removeprefix("Bearer ")
        body = json.dumps({"error": {"message": f"Incorrect API key provided: {sent}.", "type": "auth"}})
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())


def test_the_store_password_and_the_model_key_never_reach_the_output(
    postgres_url: str, tmp_path: Path
) -> None:
    agent = tmp_path / "keyed"
    agent.mkdir()
    (agent / "agent.yaml").write_text(AGENT_YAML)
    (agent / "tools.py").write_text(TOOLS_PY)
    provider = ThreadingHTTPServer(("127.0.0.1", 0), _Refusing)
    threading.Thread(target=provider.serve_forever, daemon=True).start()
    store = postgres_url.replace("postgres@", f"postgres:{PASSWORD}@", 1)
    assert PASSWORD in store
    env = {k: v for k, v in os.environ.items() if k != "SLOTGRAPH_API_KEY"}
    env.update(OPENAI_API_KEY=KEY, OPENAI_BASE_URL=f"http://127.0.0.1:{provider.server_port}/v1")
    env["SLOTGRAPH_MODEL_MAX_RETRIES"] = "0"
    log = tmp_path / "server.log"
    server = Server(agent, store, env, log=log).start()
    try:
        session = httpx.post(f"{server.base}/v1/sessions", json={"agent": "keyed"}, timeout=WAIT).json()
        answer = httpx.post(
            f"{server.base}/v1/sessions/{session['session_id']}/messages", json={"text": "Hi"}, timeout=WAIT
        )
        assert answer.status_code == 502 and answer.json()["code"] == "model_failed", answer.text
        assert KEY not in answer.text and "Abcdefghijklmnop" not in answer.text
        wait_until(lambda: "HTTP401" in _compact(log.read_text()), "the model failure to be logged")
    finally:
        server.stop()
        provider.shutdown()
        provider.server_close()
    output = _compact(log.read_text())  # the log wraps long lines: a secret could be split across two
    assert "postgres:***@" in output  # the banner names the store, without its password
    assert PASSWORD not in output
    assert "HTTP401" in output and "IncorrectAPIkeyprovided:***" in output
    assert KEY not in output and "Abcdefghijklmnop" not in output


def _compact(text: str) -> str:
    return "".join(text.split())
