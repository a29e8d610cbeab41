"""Sessions in a durable store: the server's metadata survives it, and two worker processes share it."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from slotgraph.server import SessionService, open_session_store
from slotgraph.server.settings import API_KEY_ENV, WorkerConfig

from .support import BELLA, ROOT, bella, clock


def test_the_session_metadata_survives_a_sqlite_store(tmp_path: Path) -> None:
    async def scenario() -> tuple[str, str, int]:
        store = open_session_store(f"sqlite:///{tmp_path / 's.db'}")
        try:
            service = SessionService(bella(), store, clock=clock, seed=0)
            session_id = await service.create("bella_notte", event_data={"party_size": 2}, channel="web")
            await service.turn(session_id, "Hi")
            await service.turn(session_id, "July 17th please")
            stored = await service.read(session_id)
            return stored.hosted.name, str(stored.record["server"]["channel"]), int(stored.record["turns"])
        finally:
            await store.close()

    assert asyncio.run(scenario()) == ("bella_notte", "web", 2)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_two_workers_share_sessions_through_sqlite(tmp_path: Path) -> None:
    port = _free_port()
    config = WorkerConfig(
        agent_paths=(str(BELLA),), store_url=f"sqlite:///{tmp_path / 'shared.db'}", model="offline"
    )
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        "slotgraph.server.factory:app_from_env",
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        "2",
        "--log-level",
        "warning",
    ]
    env = {k: v for k, v in os.environ.items() if k != API_KEY_ENV} | config.to_env()  # no API key
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:  # bounded polling on observable state: readiness
            try:
                if httpx.get(f"{base}/readyz", timeout=1.0).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "workers did not come up"
            threading.Event().wait(0.05)
        with httpx.Client(base_url=base, timeout=30) as client:
            ids = [
                client.post("/v1/sessions", json={"agent": "bella_notte"}).json()["session_id"]
                for _ in range(6)
            ]
            for session_id in ids:  # fresh connections: the kernel spreads them over both workers
                for text in ("Hi", "4 people"):
                    with httpx.Client(base_url=base, timeout=30) as fresh:
                        response = fresh.post(f"/v1/sessions/{session_id}/messages", json={"text": text})
                    assert response.status_code == 200, response.text
            for session_id in ids:
                body = client.get(f"/v1/sessions/{session_id}").json()
                assert body["turns"] == 2
                assert [e["role"] for e in body["transcript"]][:2] == ["user", "agent"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
