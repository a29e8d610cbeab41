"""``slotgraph serve`` in a process of its own, for the fault-injection tests: started, waited for, killed."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

WAIT = 60.0
"""The longest wait for anything observable (a server coming up, a turn to be saved)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(predicate: Callable[[], bool], what: str, seconds: float = WAIT) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():  # bounded polling on observable state
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        threading.Event().wait(0.02)


@dataclass
class Server:
    """``slotgraph serve`` in its own process."""

    agent: Path
    store: str
    env: dict[str, str]
    options: list[str] = field(default_factory=list)
    """More options for ``slotgraph serve`` (``--workers 2``)."""
    log: Path | None = None
    """Where the server's output goes (appended); None: nowhere."""
    base: str = ""
    proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Server:
        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        cmd = [sys.executable, "-m", "slotgraph", "serve", str(self.agent), "--store", self.store]
        log = subprocess.DEVNULL if self.log is None else self.log.open("ab")
        try:
            self.proc = subprocess.Popen(
                [*cmd, *self.options, "--port", str(port)], env=self.env, stdout=log, stderr=log
            )
        finally:
            if not isinstance(log, int):
                log.close()
        proc = self.proc

        def ready() -> bool:
            assert proc.poll() is None, "the server exited"
            try:
                return httpx.get(f"{self.base}/readyz", timeout=1.0).status_code == 200
            except httpx.TransportError:
                return False

        wait_until(ready, "the server to come up")
        return self

    def kill(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)
