"""A backend slower than its executor's timeout books once, on every durable store.

The executor used to time out, ``on_failure`` retried at once in the same turn with a *new* idempotency key
(``…:book:2``), the abandoned call completed anyway, and the person was told the booking failed and was
escalated: two bookings. A timed-out attempt is now *pending*: nothing is retried, the person is told it
cannot be confirmed yet, and the call's result, when it comes, is recorded and routed.

A real ``slotgraph serve`` on SQLite, Redis and PostgreSQL hosts three agents that differ only in how their
``book`` executor settles an unknown outcome — ``plain`` (neither), ``key`` (declares ``idempotency_key``
and deduplicates by it), ``hook`` (an ``idempotency_status`` hook reading the backend's journal) — all with
``tool_timeout: 1``. The backend holds each booking until the test releases it, well past the timeout. For
each agent: the message that books answers "can't confirm it yet" (``execution_pending``); a message sent
while the backend still holds the booking says so again and starts nothing; once the backend commits, the
next message routes that booking (its reference, then the terminal reply). The backend's journal shows one
commit per session, under the first attempt's key.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import httpx
import pytest

from .servers import WAIT, Server, wait_until

AGENT_YAML = """\
name: {name}
instruction: You take small orders.
model: offline
tools: tools.py
limits: {{tool_timeout: 1}}
dag:
  slots:
    - {{name: guests, setter: set_guests, ask: "How many guests are coming?"}}
    - {{name: day, setter: set_day, ask: "Which date would you like?"}}
    - {{name: ref, source: "task:Book"}}
  tasks:
    - {{name: Book, tool: book, inputs: [guests, day], outputs: {{ref: ref}}, success_check: success,
       terminal: true, then_say: "Booked {{ref}} for {{guests}}.",
       on_failure: {{retry_say: "Trying again.", max_retries: 3}}}}
"""

TOOLS_PY = '''\
import json
import os
import threading
import uuid
from pathlib import Path

FAULTS = Path(os.environ["FAULT_DIR"])
JOURNAL = FAULTS / "journal.jsonl"
KIND = "{kind}"


def _journal(**entry):
    with JOURNAL.open("a") as out:
        out.write(json.dumps(entry) + "\\n")
        out.flush()
        os.fsync(out.fileno())


def _committed(key):
    if JOURNAL.exists():
        for line in JOURNAL.read_text().splitlines():
            entry = json.loads(line)
            if entry["what"] == "commit" and entry["key"] == key:
                return entry
    return None


def set_guests(guests: int) -> dict:
    """Record how many guests are coming.

    Args:
        guests: The number of guests, as a whole number.
    """
    return {{"stored": True, "value": guests}}


def set_day(day: str) -> dict:
    """Record the date in YYYY-MM-DD format.

    Args:
        day: The date, as YYYY-MM-DD.
    """
    return {{"stored": True, "value": day}}


def _book(key):
    if KIND == "key" and (found := _committed(key)) is not None:  # the backend deduplicates by key
        return {{"success": True, "ref": found["ref"]}}
    _journal(what="start", key=key)
    release = FAULTS / f"release-{{key.split(':')[0]}}"
    while not release.exists() and not (FAULTS / "release-all").exists():  # answers when the test says so
        threading.Event().wait(0.02)
    ref = "R-" + uuid.uuid4().hex[:8]
    _journal(what="commit", key=key, ref=ref)
    return {{"success": True, "ref": ref}}


{book}

__all__ = ["book", "set_day", "set_guests"]
'''

BOOK = {
    "plain": '''def book(guests: int, day: str, context) -> dict:
    """Book a table."""
    return _book(context.idempotency_key)''',
    "key": '''def book(guests: int, day: str, idempotency_key: str) -> dict:
    """Book a table (the backend deduplicates by key)."""
    return _book(idempotency_key)''',
    "hook": '''def book(guests: int, day: str, context) -> dict:
    """Book a table."""
    return _book(context.idempotency_key)


def _status(key):
    found = _committed(key)
    return None if found is None else {"success": True, "ref": found["ref"]}


book.idempotency_status = _status''',
}
KINDS = tuple(BOOK)


def store_url(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if kind == "sqlite":
        return f"sqlite:///{tmp_path / 'sessions.db'}"
    if kind == "redis":
        return f"{request.getfixturevalue('redis_server')}?prefix=s{uuid.uuid4().hex[:8]}:"
    return str(request.getfixturevalue("postgres_url"))


def say(server: Server, session_id: str, text: str) -> dict[str, object]:
    response = httpx.post(
        f"{server.base}/v1/sessions/{session_id}/messages", json={"text": text}, timeout=WAIT
    )
    assert response.status_code == 200, response.text
    reply: dict[str, object] = response.json()
    return reply


def errors(reply: dict[str, object]) -> list[str]:
    return [str(e["code"]) for e in reply["events"] if e["kind"] == "error"]  # type: ignore[union-attr,index]


@pytest.mark.parametrize("store", ["sqlite", "redis", "postgresql"])
def test_a_backend_slower_than_its_timeout_books_once(
    store: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    faults = tmp_path / "faults"
    faults.mkdir()
    agents = []
    for kind in KINDS:
        folder = tmp_path / f"booker_{kind}"
        folder.mkdir()
        (folder / "agent.yaml").write_text(AGENT_YAML.format(name=f"booker_{kind}"))
        (folder / "tools.py").write_text(TOOLS_PY.format(kind=kind, book=BOOK[kind]))
        agents.append(folder)
    env = {k: v for k, v in os.environ.items() if k != "SLOTGRAPH_API_KEY"}
    env["FAULT_DIR"] = str(faults)
    log = tmp_path / "server.log"
    url = store_url(store, request, tmp_path)
    server = Server(agents[0], url, env, options=[str(a) for a in agents[1:]], log=log).start()
    journal = faults / "journal.jsonl"

    def entries(session_id: str, what: str) -> list[dict[str, str]]:
        lines = journal.read_text().splitlines() if journal.exists() else []
        return [e for e in map(json.loads, lines) if e["what"] == what and e["key"].startswith(session_id)]

    try:
        for kind in KINDS:
            created = httpx.post(f"{server.base}/v1/sessions", json={"agent": f"booker_{kind}"}, timeout=WAIT)
            session_id = str(created.json()["session_id"])
            say(server, session_id, "Hi")
            assert say(server, session_id, "4 guests")["text"] == "Which date would you like?"

            first = say(server, session_id, "2026-07-17")  # the backend holds the booking past the timeout
            assert errors(first) == ["execution_pending"], (kind, first)
            assert "can't confirm it yet" in str(first["text"]) and "Trying again" not in str(first["text"])
            assert first["status"] != "escalated"
            assert [e["key"] for e in entries(session_id, "start")] == [f"{session_id}:book:1"]

            meanwhile = say(server, session_id, "2026-07-17")  # still held: nothing asked, nothing sent
            assert errors(meanwhile) == ["execution_pending"], (kind, meanwhile)
            assert len(entries(session_id, "start")) == 1 and not entries(session_id, "commit")

            (faults / f"release-{session_id}").write_text("go")
            recorded = f"under {session_id}:book:1"
            wait_until(lambda: recorded in log.read_text(), "the late result to be recorded")  # noqa: B023
            (commit,) = entries(session_id, "commit")
            done = say(server, session_id, "2026-07-17")
            assert done["text"] == f"Booked {commit['ref']} for 4.", (kind, done)
            detail = httpx.get(f"{server.base}/v1/sessions/{session_id}", timeout=WAIT).json()
            assert detail["status"] == "complete" and detail["state"]["filled"]["ref"] == commit["ref"]
            assert say(server, session_id, "thanks")["status"] == "complete"
            assert [e["key"] for e in entries(session_id, "start")] == [f"{session_id}:book:1"]
            assert len(entries(session_id, "commit")) == 1, f"{kind}: the backend booked twice"
    finally:
        (faults / "release-all").write_text("go")  # any booking still held returns
        server.stop()
