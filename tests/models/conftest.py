"""Fixtures for the model backend tests: a scripted loopback HTTP server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .loopback import LoopbackServer


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    """A started loopback server; fails the test if it got a request nobody queued a reply for."""
    srv = LoopbackServer().start()
    try:
        yield srv
    finally:
        srv.stop()
    assert not srv.unexpected, f"the server got requests no reply was queued for: {srv.unexpected}"
