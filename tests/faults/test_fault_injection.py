"""Fault injection: SIGKILL the server, drop the client, at many points of a booking, on every durable store.

Real processes on loopback: ``slotgraph serve`` with an agent whose two executors — ``book`` (the booking) and
``notify`` (fired right after the booking succeeds, in the same turn) — append to a journal file what they
do. A control file tells a tool to stop at a named point (it writes a flag file the test waits for, then
waits itself), so the test can SIGKILL the server, or hang up the client, exactly there:

========================  =============================================================================
point                     where the turn is
========================  =============================================================================
``book:before-commit``    inside the booking, before the backend committed it (the effect did not happen)
``book:after-commit``     inside the booking, after the backend committed it, before it returned
``notify``                after the booking returned and was recorded, before the turn was saved
========================  =============================================================================

Faults: ``kill`` (SIGKILL at the point, then a fresh server on the same store) at each point, and
``drop-stream`` / ``drop-plain`` (the client hangs up at ``book:after-commit``; the server lives). After
each fault the client sends the same message again and the test asserts: the backend committed each
idempotency key at most once and the session holds one booking; the confirmation is not lost (the
booking reference the backend committed is the one in the session); the session reads back and goes on.

``book`` offers an ``idempotency_status`` hook that reads the backend's journal, as a real backend's
"what happened to this request id?" endpoint would: an attempt killed before the commit is run again
(nothing happened), one killed after it is answered from the journal (never run twice). ``notify`` declares
``idempotency_key`` instead (it deduplicates by key), so an attempt killed inside it is sent again with the
same key.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from .servers import WAIT, Server, wait_until

LOCK_TTL = 1.5
"""The leases' TTL in these tests: how long a killed holder blocks its session on SQLite and Redis."""

AGENT_YAML = """\
name: booker
instruction: You take small orders.
model: offline
tools: tools.py
dag:
  slots:
    - {name: guests, setter: set_guests, ask: "How many guests are coming?"}
    - {name: day, setter: set_day, ask: "Which date would you like?"}
    - {name: ref, source: "task:Book"}
    - {name: notified, source: "task:Notify"}
  tasks:
    - {name: Book, tool: book, inputs: [guests, day], outputs: {ref: ref}, success_check: success}
    - {name: Notify, tool: notify, inputs: [ref], outputs: {notified: notified}, success_check: success,
       terminal: true, then_say: "Booked {ref} for {guests}."}
"""

TOOLS_PY = '''\
import json
import os
import threading
import uuid
from pathlib import Path

FAULTS = Path(os.environ["FAULT_DIR"])
JOURNAL = FAULTS / "journal.jsonl"


def _journal(**entry):
    with JOURNAL.open("a") as out:
        out.write(json.dumps(entry) + "\\n")
        out.flush()
        os.fsync(out.fileno())


def _point(name):
    """Stop here if the control file names this point: say so, then wait until released (or killed)."""
    control = FAULTS / "point"
    if control.exists() and control.read_text() == name:
        control.unlink()
        (FAULTS / "reached").write_text(name)
        release = FAULTS / "release"
        while not release.exists():
            threading.Event().wait(0.02)
        release.unlink()


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
    return {"stored": True, "value": guests}


def set_day(day: str) -> dict:
    """Record the date in YYYY-MM-DD format.

    Args:
        day: The date, as YYYY-MM-DD.
    """
    return {"stored": True, "value": day}


def book(guests: int, day: str, context) -> dict:
    """Book a table."""
    key = context.idempotency_key
    _journal(what="start", key=key)
    _point("book:before-commit")
    ref = "R-" + uuid.uuid4().hex[:8]
    _journal(what="commit", key=key, ref=ref)
    _point("book:after-commit")
    return {"success": True, "ref": ref}


def _book_status(key):
    found = _committed(key)
    return None if found is None else {"success": True, "ref": found["ref"]}


book.idempotency_status = _book_status


def notify(ref: str, idempotency_key: str) -> dict:
    """Tell the restaurant (deduplicating by key: declaring the key promises that)."""
    _point("notify")
    if JOURNAL.exists() and any(
        json.loads(line).get("what") == "notify" and json.loads(line)["key"] == idempotency_key
        for line in JOURNAL.read_text().splitlines()
    ):
        return {"success": True, "notified": True}
    _journal(what="notify", key=idempotency_key, ref=ref)
    return {"success": True, "notified": True}
'''


@dataclass
class Rig:
    """The agent, its backend's journal and control files, and the servers started on one store."""

    root: Path
    store: str
    servers: list[Server] = field(default_factory=list)

    @property
    def faults(self) -> Path:
        return self.root / "faults"

    def server(self) -> Server:
        env = {k: v for k, v in os.environ.items() if k != "SLOTGRAPH_API_KEY"}
        env["FAULT_DIR"] = str(self.faults)
        server = Server(self.root / "booker", self.store, env).start()
        self.servers.append(server)
        return server

    def journal(self) -> list[dict[str, str]]:
        file = self.faults / "journal.jsonl"
        return [json.loads(line) for line in file.read_text().splitlines()] if file.exists() else []

    def stop_at(self, point: str) -> None:
        (self.faults / "reached").unlink(missing_ok=True)
        (self.faults / "point").write_text(point)

    def reached(self) -> bool:
        return (self.faults / "reached").exists()

    def release(self) -> None:
        (self.faults / "release").write_text("go")


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Callable[[str], Rig]]:
    made: list[Rig] = []

    def make(store: str) -> Rig:
        agent = tmp_path / "booker"
        agent.mkdir()
        (agent / "agent.yaml").write_text(AGENT_YAML)
        (agent / "tools.py").write_text(TOOLS_PY)
        (tmp_path / "faults").mkdir()
        made.append(Rig(tmp_path, store))
        return made[-1]

    yield make
    for each in made:
        each.release()  # any tool still waiting returns
        for server in each.servers:
            server.stop()


def store_url(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if kind == "sqlite":
        return f"sqlite:///{tmp_path / 'sessions.db'}?lock_ttl={LOCK_TTL}"
    if kind == "redis":
        base = request.getfixturevalue("redis_server")
        return f"{base}?prefix=f{uuid.uuid4().hex[:8]}:&lock_ttl={LOCK_TTL}"
    return str(request.getfixturevalue("postgres_url"))


def start_session(server: Server) -> str:
    """A session that has collected the guests: the next message ("2026-07-17") books."""
    session_id = str(httpx.post(f"{server.base}/v1/sessions", json={"agent": "booker"}).json()["session_id"])
    say(server, session_id, "Hi")
    assert "Which date" in say(server, session_id, "4 guests")["text"]
    return session_id


def say(server: Server, session_id: str, text: str) -> dict[str, object]:
    response = httpx.post(
        f"{server.base}/v1/sessions/{session_id}/messages", json={"text": text}, timeout=WAIT
    )
    assert response.status_code == 200, response.text
    reply: dict[str, object] = response.json()
    return reply


def in_background(work: Callable[[], None]) -> threading.Thread:
    def quietly() -> None:
        with contextlib.suppress(httpx.TransportError):  # the server dies under the request, or we hang up
            work()

    thread = threading.Thread(target=quietly, daemon=True)
    thread.start()
    return thread


def check_outcome(rig: Rig, server: Server, session_id: str) -> None:
    """The invariants after a fault and a retry of the same message."""
    reply = say(server, session_id, "2026-07-17")
    journal = [entry for entry in rig.journal() if session_id in entry["key"]]
    commits = [entry for entry in journal if entry["what"] == "commit"]
    assert len(commits) == 1, f"the backend booked {len(commits)} times: {journal}"
    keys = [entry["key"] for entry in commits]
    assert len(set(keys)) == len(keys)  # no idempotency key committed twice
    ref = commits[0]["ref"]
    detail = httpx.get(f"{server.base}/v1/sessions/{session_id}").json()
    assert detail["state"]["filled"]["ref"] == ref  # the confirmation the backend gave is the one kept
    assert detail["status"] == "complete" and reply["text"] == f"Booked {ref} for 4."
    notified = [entry for entry in journal if entry["what"] == "notify"]
    assert len(notified) == 1 and notified[0]["ref"] == ref
    # the session stays readable and goes on (a message after completion is answered, nothing re-booked)
    assert say(server, session_id, "thanks")["status"] == "complete"
    assert len([e for e in rig.journal() if e["what"] == "commit" and session_id in e["key"]]) == 1


@pytest.mark.parametrize("kind", ["sqlite", "redis", "postgresql"])
def test_kills_and_hang_ups_at_every_point_of_a_booking(
    kind: str, rig: Callable[[str], Rig], request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    setup = rig(store_url(kind, request, tmp_path))
    server = setup.server()

    # the client hangs up while the booking runs: the stream, then a plain request
    for fault in ("drop-stream", "drop-plain"):
        session_id = start_session(server)
        setup.stop_at("book:after-commit")
        url = f"{server.base}/v1/sessions/{session_id}/messages"
        with httpx.Client(timeout=WAIT) as client:
            if fault == "drop-stream":
                with client.stream("POST", f"{url}:stream", json={"text": "2026-07-17"}) as response:
                    assert response.status_code == 200
                    wait_until(setup.reached, "the booking to start")
            else:
                thread = in_background(lambda: client.post(url, json={"text": "2026-07-17"}))  # noqa: B023
                wait_until(setup.reached, "the booking to start")
        # both clients are closed now; the turn goes on once the backend answers
        setup.release()
        if fault == "drop-plain":
            thread.join(timeout=WAIT)
        wait_until(
            lambda: httpx.get(f"{server.base}/v1/sessions/{session_id}").json()["turns"] == 3,  # noqa: B023
            "the abandoned turn to be saved",
        )
        detail = httpx.get(f"{server.base}/v1/sessions/{session_id}").json()
        assert detail["status"] == "complete", f"{fault}: the turn whose client left was not saved"
        commits = [e for e in setup.journal() if e["what"] == "commit" and session_id in e["key"]]
        assert len(commits) == 1 and detail["state"]["filled"]["ref"] == commits[0]["ref"]

    # SIGKILL at each point, then a fresh server on the same store and the same message again
    for point in ("book:before-commit", "book:after-commit", "notify"):
        session_id = start_session(server)
        setup.stop_at(point)
        thread = in_background(lambda: say(server, session_id, "2026-07-17"))  # noqa: B023
        wait_until(setup.reached, f"the turn to reach {point}")
        server.kill()
        thread.join(timeout=WAIT)
        server = setup.server()
        detail = httpx.get(f"{server.base}/v1/sessions/{session_id}").json()
        assert detail["turns"] == 2 and "ref" not in detail["state"]["filled"], (
            point
        )  # the killed turn: unsaved
        check_outcome(setup, server, session_id)
