"""A real uvicorn server on a free loopback port, in a thread, for browser and benchmark-style tests."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx
import uvicorn
from fastapi import FastAPI


def wait_until_answering(
    get: Callable[[], httpx.Response], thread: threading.Thread, deadline_s: float = 20.0
) -> None:
    """Poll ``get`` until it answers 200 (bounded polling on observable state, no fixed sleep); fail once
    ``deadline_s`` passed or the server's thread ended."""
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            if get().status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not come up")
        threading.Event().wait(0.02)


@contextmanager
def live_server(app: FastAPI, *, startup_deadline: float = 20.0) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1:<free port>; yield its base URL once ``/healthz`` answers; stop it after."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answering(lambda: httpx.get(f"{base}/healthz", timeout=1.0), thread, startup_deadline)
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
