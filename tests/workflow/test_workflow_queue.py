"""Runs on Celery workers with the real Redis broker the store fixtures start: end to end, and a worker
SIGKILLed mid-run whose run is finished by another worker."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from slotgraph.stores.runs import open_run_store
from slotgraph.workflow.queue import QueueUnavailable, parse_queue_url
from stores.conftest import need, redis_server  # noqa: F401  (the session fixture: a real redis-server)

from .conftest import EXAMPLE, _load_api_module

pytestmark = pytest.mark.slow  # a plain `pytest` skips it; `make test` and CI run it

WORKFLOW = EXAMPLE / "workflow.yaml"
GOAL = {"doc_id": "D-1", "account_id": "A-77", "message": "Blue Bottle Coffee, $42.50, November 20, 2026"}
DEADLINE = 120.0


@pytest.fixture
def celery_available() -> None:
    import importlib.util

    if importlib.util.find_spec("celery") is None:
        need("celery", "pip install 'slotgraph[queue]'")


@pytest.fixture
def urls(redis_server: str, celery_available: None) -> tuple[str, str]:  # noqa: F811
    """A queue URL (its own Redis database, fast redelivery) and a run store URL on the same server."""
    base = redis_server.rsplit("/", 1)[0]
    db = 1 + (os.getpid() + int(time.time() * 1000)) % 14
    prefix = f"t{time.monotonic_ns()}:"
    return f"{base}/{db}?visibility_timeout=3&restore_interval=1", f"{redis_server}?prefix={prefix}"


class Worker:
    """``slotgraph worker`` in a subprocess, its log in a file."""

    def __init__(self, queue: str, log: Path) -> None:
        self.log = log
        self._out = log.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "slotgraph", "worker", "--queue", queue, "--loglevel", "INFO"],
            stdout=self._out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

    def wait_ready(self) -> None:
        deadline = time.monotonic() + DEADLINE
        while b"ready." not in self.log.read_bytes():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"worker did not start:\n{self.log.read_text(errors='replace')}")
            time.sleep(0.05)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._out.close()


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[list[Worker]]:
    started: list[Worker] = []
    yield started
    for worker in started:
        worker.stop(signal.SIGKILL)


def _load(store_url: str, run_id: str) -> dict[str, Any] | None:
    async def go() -> dict[str, Any] | None:
        store = open_run_store(store_url)
        try:
            found = await store.load_run(run_id)
            return found[0] if found else None
        finally:
            await store.close()

    return asyncio.run(go())


def _wait_done(store_url: str, run_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        record = _load(store_url, run_id)
        if record is not None and record["status"] in ("succeeded", "failed"):
            return record
        time.sleep(0.1)
    raise AssertionError(f"run {run_id} did not finish: {_load(store_url, run_id)}")


def _api(module: Any, api: Any) -> tuple[Any, str]:
    server = module.make_server(0, api)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def test_slotgraph_run_on_the_queue(urls: tuple[str, str], workers: list[Worker], tmp_path: Path) -> None:
    queue, store = urls
    module = _load_api_module()
    server, url = _api(module, module.PurchasesApi())
    try:
        workers.append(Worker(queue, tmp_path / "worker.log"))
        workers[0].wait_ready()
        done = subprocess.run(
            [sys.executable, "-m", "slotgraph", "run", str(WORKFLOW), "--payload", json.dumps(GOAL),
             "--queue", queue, "--store", store, "--base-url", url, "--run-id", "q-1"],
            capture_output=True, text=True, timeout=DEADLINE,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr + workers[0].log.read_text(errors="replace")
        assert "run q-1: succeeded" in done.stdout
        assert "sent run q-1 to the queue" in done.stderr
        assert "✓ issue_refund" in done.stderr  # progress read from the store while the worker runs it
        record = _load(store, "q-1")
        assert record is not None and record["status"] == "succeeded" and record["attempts"] == 1
        assert server.api.refunds[0]["purchase_id"] == "P-1001"
    finally:
        server.shutdown()
        server.server_close()


def test_a_worker_killed_mid_run_and_the_run_finishes_on_another(
    urls: tuple[str, str], workers: list[Worker], tmp_path: Path
) -> None:
    queue, store = urls
    module = _load_api_module()
    arrived, release = threading.Event(), threading.Event()

    class HoldingApi(module.PurchasesApi):  # type: ignore[misc,name-defined]
        def handle(self, path: str, body: Any, key: str | None) -> tuple[int, dict[str, Any]]:
            if path == "/refunds" and not arrived.is_set():
                arrived.set()
                release.wait(DEADLINE)
            return super().handle(path, body, key)

    api = HoldingApi()
    server, url = _api(module, api)
    try:
        first = Worker(queue, tmp_path / "first.log")
        workers.append(first)
        first.wait_ready()
        sent = subprocess.run(
            [sys.executable, "-m", "slotgraph", "run", str(WORKFLOW), "--payload", json.dumps(GOAL),
             "--queue", queue, "--store", store, "--base-url", url, "--run-id", "kill-q", "--no-wait"],
            capture_output=True, text=True, timeout=DEADLINE,
        )  # fmt: skip
        assert sent.returncode == 0, sent.stderr
        assert arrived.wait(DEADLINE), first.log.read_text(errors="replace")  # the first worker is mid-refund
        second = Worker(queue, tmp_path / "second.log")
        workers.append(second)
        second.wait_ready()
        first.stop(signal.SIGKILL)
        release.set()
        record = _wait_done(store, "kill-q")
        assert record["status"] == "succeeded", record
        assert record["attempts"] == 2  # picked up twice: by the killed worker, then by the second
        assert [s["stage_id"] for s in record["stages"]][-1] == "issue_refund"
        keys = [r["idempotency_key"] for r in api.requests if r["path"] == "/refunds"]
        assert keys == ["kill-q:issue_refund", "kill-q:issue_refund"]
        assert len(api.refunds) == 1
        assert b"execute_run" in second.log.read_bytes()  # the second worker received the run
    finally:
        release.set()
        server.shutdown()
        server.server_close()


def test_bad_queue_urls_are_refused() -> None:
    with pytest.raises(QueueUnavailable, match="Redis"):
        parse_queue_url("amqp://localhost")
    with pytest.raises(QueueUnavailable, match="visibility_timeout"):
        parse_queue_url("redis://localhost/0?visibility_timeout=soon")
    settings = parse_queue_url("redis://localhost:6379/2?visibility_timeout=30&restore_interval=2")
    assert (settings.broker_url, settings.visibility_timeout, settings.restore_interval) == (
        "redis://localhost:6379/2",
        30.0,
        2.0,
    )
