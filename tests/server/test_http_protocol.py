"""The served protocol turns Nagle's algorithm off on the connections of a socket bound as ``--workers``
binds it (a real uvicorn server in a thread, on the listening socket of uvicorn's ``Config.bind_socket``, and
on one bound as uvicorn before 0.55 bound it: ``socket.socket(AF_INET)``, whose ``proto`` is 0)."""

from __future__ import annotations

import asyncio
import socket
import threading

import httpx
import uvicorn
from fastapi import FastAPI
from uvicorn.protocols.http.auto import AutoHTTPProtocol

from slotgraph.server.http_protocol import HTTP_PROTOCOL, NoDelayHTTPProtocol

from .live import wait_until_answering


def _proto_zero_listener() -> socket.socket:
    """A listening socket as uvicorn < 0.55 bound it for ``--workers`` (``proto`` 0, which asyncio's own
    ``TCP_NODELAY`` skips); uvicorn 0.55 binds with ``proto=IPPROTO_TCP``."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.set_inheritable(True)
    return listener


def _nodelay_of_served_connection(http: str | type[asyncio.Protocol], *, proto_zero: bool = False) -> int:
    """Serve one request on a keep-alive connection as a uvicorn worker does (``Server.run(sockets)`` on the
    socket ``--workers`` binds, or a ``proto`` 0 one) and read ``TCP_NODELAY`` on the server's end of it."""
    app = FastAPI()

    @app.get("/ping")
    async def ping() -> dict[str, bool]:
        return {"ok": True}

    config = uvicorn.Config(app, host="127.0.0.1", port=0, http=http, log_level="warning", lifespan="off")
    listener = _proto_zero_listener() if proto_zero else config.bind_socket()
    port = listener.getsockname()[1]
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as client:
            wait_until_answering(lambda: client.get("/ping"), thread)
            # the client keeps its connection open, so the server still holds the protocol serving it
            (protocol,) = server.server_state.connections
            sock = protocol.transport.get_extra_info("socket")
            return int(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        listener.close()


def test_the_served_protocol_sets_nodelay_on_a_workers_connection() -> None:
    assert _nodelay_of_served_connection(HTTP_PROTOCOL) != 0


def test_the_served_protocol_sets_nodelay_on_a_proto_zero_listener() -> None:
    assert _nodelay_of_served_connection(HTTP_PROTOCOL, proto_zero=True) != 0


def test_uvicorns_own_protocol_leaves_nagle_on_a_proto_zero_listener() -> None:
    # Why the protocol exists: uvicorn < 0.55 (which the server extra allows) binds a worker's listening
    # socket with proto 0, which asyncio's own TCP_NODELAY skips.
    assert _nodelay_of_served_connection(AutoHTTPProtocol, proto_zero=True) == 0


def test_the_protocol_is_uvicorns_automatic_choice() -> None:
    assert issubclass(NoDelayHTTPProtocol, AutoHTTPProtocol)
