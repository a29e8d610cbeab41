"""The HTTP protocol every ``slotgraph serve`` process runs: uvicorn's, with Nagle's algorithm off on every
connection.

uvicorn sends a response's head and its body in two writes. With Nagle's algorithm on, the kernel holds the
second write back until the client acknowledges the first, and a client delays that acknowledgement by up to
40 ms (Linux's delayed ACK): every response then takes ~40 ms, whatever the server spends on it. asyncio
turns Nagle off (``TCP_NODELAY``) on each connection it accepts — but only for a socket whose ``proto`` is
``IPPROTO_TCP``. With ``--workers N`` uvicorn before 0.55 binds the listening socket itself as
``socket.socket(AF_INET)``, whose ``proto`` is 0, so the connections its workers accept keep Nagle on (one
process binds through ``loop.create_server(host, port)``, whose socket says ``IPPROTO_TCP``, and is not
affected; uvicorn 0.55 binds with ``proto=IPPROTO_TCP``, but the server extra allows uvicorn from 0.29).
Measured with ``benchmarks/service.py``'s echo endpoint, 8 requests in flight: 2 workers served 140–170
requests/s at a p50 of 44–56 ms, against 270–300 requests/s at 21–23 ms with this protocol.

:class:`NoDelayHTTPProtocol` is uvicorn's own choice of protocol (``httptools`` when it is installed, else
``h11``) that sets ``TCP_NODELAY`` on each TCP connection it is given, before it reads a byte. ``serve``
passes it to uvicorn as :data:`HTTP_PROTOCOL` (an import string, so spawned workers import it themselves).
"""

from __future__ import annotations

import asyncio
import socket

from uvicorn.protocols.http.auto import AutoHTTPProtocol

__all__ = ["HTTP_PROTOCOL", "NoDelayHTTPProtocol", "set_nodelay"]

HTTP_PROTOCOL = "slotgraph.server.http_protocol:NoDelayHTTPProtocol"
"""What ``slotgraph serve`` gives uvicorn as ``http=`` (also ``uvicorn --http``)."""


def set_nodelay(transport: asyncio.BaseTransport) -> None:
    """Turn Nagle's algorithm off on ``transport``'s socket if it is a TCP one (a Unix socket has none)."""
    sock = transport.get_extra_info("socket")
    if (
        sock is not None
        and sock.family in (socket.AF_INET, socket.AF_INET6)
        and sock.type == socket.SOCK_STREAM
    ):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


# AutoHTTPProtocol is a variable (httptools' protocol or h11's, chosen when uvicorn is imported)
class NoDelayHTTPProtocol(AutoHTTPProtocol):  # type: ignore[misc,valid-type]
    """uvicorn's HTTP protocol with ``TCP_NODELAY`` set on every connection (see the module's docstring)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        set_nodelay(transport)
        super().connection_made(transport)
